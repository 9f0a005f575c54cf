import type { Rule } from '../../dsl/ast.js'
import type { AlertEvent } from '../../engine/alerts.js'
import { joinDiagnoses } from '../../engine/diagnose-cluster.js'
import type { Cause, Diagnosis } from '../../engine/diagnosis.js'
import type { AlertRecord, Store } from '../../engine/store/store.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import type { BotConfig } from '../config.js'
import { renderAlert, renderAlertUpdate, renderResolved, renderStillFiring } from '../render/alert.js'
import { messageArgs, type SlackPoster } from '../slack/slack-poster.js'

/**
 * Alert events → Slack. A firing alert is posted once to its cluster's channel and its ts stored on
 * the alert; new evidence edits that message and adds a thread reply; a re-notification (the engine's
 * renotify interval) edits it and broadcasts a "still firing" reply; resolution edits it again and
 * broadcasts a resolved notice from the thread. Silenced alerts post nothing. One alert for a cluster
 * event: a firing that another broker's recent alert accounts for (as the cluster answer would link
 * them: its evidence names that broker, or that alert's rule explains it) is posted in that alert's
 * thread, not as a message of its own.
 */

export type { AlertEvent }

/** What sending alert notices needs. */
export type NotifyDeps = {
  store: Store
  poster: SlackPoster
  config: BotConfig
  now: () => number
  /** The loaded rules, for links by a rule's `explains`; without them only evidence naming a broker links alerts. */
  rules?: readonly Rule[]
}

/** Another broker's alert fired this close to a new one may be the origin the new one is a consequence of. */
export const GROUP_WINDOW_MS = 10 * 60_000

/** Queues one Slack action per event, in order per channel; resolves when all have been sent. */
export async function notifyAlerts(deps: NotifyDeps, events: AlertEvent[]): Promise<{ posted: number; silenced: number }> {
  const silences = await deps.store.listSilences(deps.now())
  let posted = 0
  let silenced = 0
  const work: Promise<unknown>[] = []
  for (const ev of events) {
    const muted = silences.some((s) => s.matcher === ev.alert.fingerprint || s.matcher === ev.alert.ruleId || s.matcher === ev.cause.ruleName)
    if (muted && ev.type === 'firing') {
      silenced++
      continue
    }
    const channel = deps.config.clusters.find((c) => c.name === ev.alert.cluster)?.channel ?? deps.config.clusters[0].channel
    posted++
    work.push(deps.poster.enqueue(channel, () => handle(deps, channel, ev, muted)))
  }
  await Promise.all(work)
  return { posted, silenced }
}

async function handle(deps: NotifyDeps, channel: string, ev: AlertEvent, muted: boolean): Promise<void> {
  const tz = { timeZone: deps.config.timeZone }
  const fp = ev.alert.fingerprint
  // Read the stored alert inside the queue: an earlier firing post in this channel has completed.
  const stored = (await deps.store.getAlert(fp)) ?? ev.alert
  const alert: AlertRecord = { ...ev.alert, message: stored.message ?? ev.alert.message, shownEvidenceAt: stored.shownEvidenceAt ?? ev.alert.shownEvidenceAt }
  const now = deps.now()
  const newest = Math.max(alert.shownEvidenceAt ?? -Infinity, ...ev.cause.evidence.map((e) => e.at))
  const shown = Number.isFinite(newest) ? { shownEvidenceAt: newest } : {}
  // A redelivery is for a post that never happened: if the first one did land meanwhile, it stands.
  if (ev.redelivered && stored.message) return
  if (ev.type === 'firing' && alert.message) {
    // Re-notification of an alert already in the channel: refresh it and surface the thread again.
    const { channel: ch, ts } = alert.message
    await deps.poster.callNow('chat.update', { ...messageArgs(ch, renderAlert(alert, ev.cause, tz)), ts })
    await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, renderStillFiring(alert, ev.cause, now, tz)), thread_ts: alert.message.threadTs ?? ts, reply_broadcast: true })
    await deps.store.updateAlert(fp, { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...shown })
    return
  }
  if (ev.type === 'firing') {
    const origin = await originAlert(deps, ev)
    let message: NonNullable<AlertRecord['message']>
    if (origin?.message) {
      // A consequence of an alert already in the channel: told in that alert's thread.
      const rendered = renderAlert(alert, ev.cause, tz)
      const note = { kind: 'context' as const, text: `A consequence of broker ${escapeMrkdwn(origin.broker ?? '')}'s \`${escapeMrkdwn(origin.ruleId)}\` alert (this thread's), so not posted on its own.` }
      const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(origin.message.channel, { ...rendered, parts: [...rendered.parts, note] }), thread_ts: origin.message.ts, unfurl_links: false })
      message = { channel: String(res.channel ?? origin.message.channel), ts: String(res.ts), threadTs: origin.message.ts }
    } else {
      const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(channel, renderAlert(alert, ev.cause, tz)), unfurl_links: false })
      message = { channel: String(res.channel ?? channel), ts: String(res.ts) }
    }
    await deps.store.updateAlert(fp, { message, notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...shown })
    // A fired alert is one of the day's diagnoses, whether or not anyone asked `why`.
    await deps.store.recordDiagnosis({ at: now, cluster: alert.cluster, broker: alert.broker ?? '', ruleId: alert.ruleId, severity: ev.cause.severity, cause: ev.cause.cause })
    return
  }
  if (!alert.message) return
  const { channel: ch, ts } = alert.message
  // Replies belong to the thread the alert lives in: its own, or its origin alert's.
  const thread = alert.message.threadTs ?? ts
  if (ev.type === 'updated') {
    await deps.poster.callNow('chat.update', { ...messageArgs(ch, renderAlert(alert, ev.cause, tz)), ts })
    if (!muted) {
      const since = alert.shownEvidenceAt ?? alert.firedAt ?? alert.activeAt
      await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, renderAlertUpdate(alert, ev.cause, since, tz)), thread_ts: thread })
    }
    await deps.store.updateAlert(fp, { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...(muted ? {} : shown) })
    return
  }
  const resolved = renderResolved(alert, ev.cause, tz)
  await deps.poster.callNow('chat.update', { ...messageArgs(ch, resolved), ts })
  await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, resolved), thread_ts: thread, reply_broadcast: true })
  await deps.store.updateAlert(fp, { notifiedAt: now })
}

/**
 * The firing alert on another broker of the same cluster, posted at top level within GROUP_WINDOW_MS,
 * whose cause joinDiagnoses links to this event's as its consequence (the earliest when several do).
 */
async function originAlert(deps: NotifyDeps, ev: AlertEvent): Promise<AlertRecord | undefined> {
  const broker = ev.alert.broker
  if (broker === undefined) return undefined
  const firedAt = ev.alert.firedAt ?? deps.now()
  const candidates = (await deps.store.listAlerts({ open: true })).filter(
    (a) =>
      a.state === 'firing' &&
      a.cluster === ev.alert.cluster &&
      a.broker !== undefined &&
      a.broker !== broker &&
      a.message !== undefined &&
      a.message.threadTs === undefined &&
      Math.abs((a.firedAt ?? a.activeAt) - firedAt) <= GROUP_WINDOW_MS,
  )
  if (!candidates.length) return undefined
  const rules = deps.rules ?? []
  const now = deps.now()
  const byBroker = new Map<string, Cause[]>()
  for (const a of candidates) {
    const severity = rules.find((r) => r.id === a.ruleId)?.severity ?? 'warning'
    const cause: Cause = { ruleId: a.ruleId, severity, cause: a.summary ?? a.ruleId, run: [], labels: a.labels, firstAt: a.firstEvidenceAt ?? a.activeAt, lastAt: a.evidenceAt ?? a.lastSeenAt, matchedAt: a.firedAt ?? a.activeAt, evidence: [], corroboration: 0, score: 0, explainsRules: [] }
    byBroker.set(a.broker!, [...(byBroker.get(a.broker!) ?? []), cause])
  }
  const diagnosis = (b: string, causes: Cause[]): Diagnosis => ({ cluster: ev.alert.cluster, broker: b, from: 0, to: now, at: now, causes, nearMisses: [], abnormal: [], signalsSeen: causes.length })
  const joined = joinDiagnoses(rules, [...[...byBroker].map(([b, causes]) => diagnosis(b, causes)), diagnosis(broker, [ev.cause])], { cluster: ev.alert.cluster, from: 0, to: now, now })
  const link = joined.links.find((l) => l.consequence.broker === broker && l.consequence.ruleId === ev.cause.ruleId)
  if (!link) return undefined
  return candidates.filter((a) => a.broker === link.cause.broker && a.ruleId === link.cause.ruleId).sort((x, y) => (x.firedAt ?? x.activeAt) - (y.firedAt ?? y.activeAt))[0]
}
