import type { Rule } from '../../dsl/ast.js'
import type { AlertEvent } from '../../engine/alerts.js'
import { joinDiagnoses, type ClusterDiagnosis } from '../../engine/diagnose-cluster.js'
import type { Cause, Diagnosis } from '../../engine/diagnosis.js'
import type { AlertRecord, Store } from '../../engine/store/store.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import type { BotConfig } from '../config.js'
import { renderAlert, renderAlertUpdate, renderMovedToOrigin, renderResolved, renderStillFiring } from '../render/alert.js'
import type { BotMessage } from '../message.js'
import { messageArgs, type SlackPoster } from '../slack/slack-poster.js'
import { refineOrJoin } from './refine-alert.js'

/**
 * Alert events → Slack. A firing alert is posted once to its cluster's channel and its ts stored on
 * the alert; new evidence edits that message and adds a thread reply; a re-notification (the engine's
 * renotify interval) edits it and broadcasts a "still firing" reply; resolution edits it again and
 * broadcasts a resolved notice from the thread. Silenced alerts post nothing. One alert for a cluster
 * event: a firing that another broker's recent alert accounts for (as the cluster answer would link
 * them: its evidence names that broker, or that alert's rule explains it) is posted in that alert's
 * thread, not as a message of its own. When the consequence fired first (a follower's fetcher errors
 * are logged before the leader's own cause is), the origin's alert still becomes the thread's head:
 * the earlier message is edited to point at it and the consequence carries on in the origin's thread.
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
  // Its message belongs to the alert that named the same incident more exactly (refine-alert.ts).
  if (stored.supersededBy) return
  if (ev.type === 'firing' && alert.message) {
    // Re-notification of an alert already in the channel: refresh it and surface the thread again.
    const { channel: ch, ts } = alert.message
    await deps.poster.callNow('chat.update', { ...messageArgs(ch, await renderInThread(deps, alert, ev.cause)), ts })
    await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, renderStillFiring(alert, ev.cause, now, tz)), thread_ts: alert.message.threadTs ?? ts, reply_broadcast: true })
    await deps.store.updateAlert(fp, { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...shown })
    return
  }
  if (ev.type === 'firing') {
    if (await refineOrJoin({ ...deps, timeZone: deps.config.timeZone }, ev, now)) return
    const origin = await originAlert(deps, ev)
    let message: NonNullable<AlertRecord['message']>
    if (origin?.message) {
      // A consequence of an alert already in the channel: told in that alert's thread.
      const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(origin.message.channel, withConsequenceNote(renderAlert(alert, ev.cause, tz), origin)), thread_ts: origin.message.ts, unfurl_links: false })
      message = { channel: String(res.channel ?? origin.message.channel), ts: String(res.ts), threadTs: origin.message.ts }
    } else {
      const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(channel, renderAlert(alert, ev.cause, tz)), unfurl_links: false })
      message = { channel: String(res.channel ?? channel), ts: String(res.ts) }
    }
    await deps.store.updateAlert(fp, { message, notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...shown })
    if (!message.threadTs) await gatherConsequences(deps, { ...alert, message }, ev)
    // A fired alert is one of the day's diagnoses, whether or not anyone asked `why`.
    await deps.store.recordDiagnosis({ at: now, cluster: alert.cluster, broker: alert.broker ?? '', ruleId: alert.ruleId, severity: ev.cause.severity, cause: ev.cause.cause })
    return
  }
  if (!alert.message) return
  const { channel: ch, ts } = alert.message
  // Replies belong to the thread the alert lives in: its own, or its origin alert's.
  const thread = alert.message.threadTs ?? ts
  if (ev.type === 'updated') {
    await deps.poster.callNow('chat.update', { ...messageArgs(ch, await renderInThread(deps, alert, ev.cause)), ts })
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

/** The note a consequence's message carries in its origin's thread, on every rendering of it. */
function withConsequenceNote(rendered: BotMessage, origin: AlertRecord): BotMessage {
  const note = { kind: 'context' as const, text: `A consequence of broker ${escapeMrkdwn(origin.broker ?? '')}'s \`${escapeMrkdwn(origin.ruleId)}\` alert (this thread's), so not posted on its own.` }
  return { ...rendered, parts: [...rendered.parts, note] }
}

/** An alert's message as re-rendered on an update: a reply in an origin's thread keeps its note. */
async function renderInThread(deps: NotifyDeps, alert: AlertRecord, cause: Cause): Promise<BotMessage> {
  const rendered = renderAlert(alert, cause, { timeZone: deps.config.timeZone })
  const threadTs = alert.message?.threadTs
  if (!threadTs) return rendered
  const origin = (await deps.store.listAlerts({ open: true })).find((a) => a.message?.ts === threadTs && a.message.threadTs === undefined)
  return origin ? withConsequenceNote(rendered, origin) : rendered
}

/**
 * Alerts of other brokers posted on their own shortly before `origin` fired that the cluster answer
 * links to it as consequences: each one's top-level message is edited into a pointer at the origin's
 * alert and the alert is posted again in the origin's thread, where its updates and resolution follow.
 */
async function gatherConsequences(deps: NotifyDeps, origin: AlertRecord, ev: AlertEvent): Promise<void> {
  const tz = { timeZone: deps.config.timeZone }
  const candidates = await recentPeerAlerts(deps, ev)
  if (!candidates.length) return
  const joined = joinWithPeers(deps, ev, candidates)
  const linked = joined.links.filter((l) => l.cause.broker === ev.alert.broker && l.cause.ruleId === ev.cause.ruleId)
  for (const a of candidates) {
    if (!a.message || !linked.some((l) => l.consequence.broker === a.broker && l.consequence.ruleId === a.ruleId)) continue
    const cause = causeOfRecord(deps, a)
    const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(origin.message!.channel, withConsequenceNote(renderAlert(a, cause, tz), origin)), thread_ts: origin.message!.ts, unfurl_links: false })
    await deps.poster.callNow('chat.update', { ...messageArgs(a.message.channel, renderMovedToOrigin(a, origin, cause, tz)), ts: a.message.ts })
    await deps.store.updateAlert(a.fingerprint, { message: { channel: String(res.channel ?? origin.message!.channel), ts: String(res.ts), threadTs: origin.message!.ts } })
  }
}

/**
 * The firing alert on another broker of the same cluster, posted at top level within GROUP_WINDOW_MS,
 * whose cause joinDiagnoses links to this event's as its consequence (the earliest when several do).
 */
async function originAlert(deps: NotifyDeps, ev: AlertEvent): Promise<AlertRecord | undefined> {
  const broker = ev.alert.broker
  const candidates = await recentPeerAlerts(deps, ev)
  if (!candidates.length) return undefined
  const link = joinWithPeers(deps, ev, candidates).links.find((l) => l.consequence.broker === broker && l.consequence.ruleId === ev.cause.ruleId)
  if (!link) return undefined
  return candidates.filter((a) => a.broker === link.cause.broker && a.ruleId === link.cause.ruleId).sort((x, y) => (x.firedAt ?? x.activeAt) - (y.firedAt ?? y.activeAt))[0]
}

/** Firing alerts on the event's cluster's other brokers, posted at top level, fired within GROUP_WINDOW_MS of it. */
async function recentPeerAlerts(deps: NotifyDeps, ev: AlertEvent): Promise<AlertRecord[]> {
  const broker = ev.alert.broker
  if (broker === undefined) return []
  const firedAt = ev.alert.firedAt ?? deps.now()
  return (await deps.store.listAlerts({ open: true })).filter(
    (a) =>
      a.state === 'firing' &&
      a.cluster === ev.alert.cluster &&
      a.broker !== undefined &&
      a.broker !== broker &&
      a.message !== undefined &&
      a.message.threadTs === undefined &&
      Math.abs((a.firedAt ?? a.activeAt) - firedAt) <= GROUP_WINDOW_MS,
  )
}

/** A stored alert as a Cause the cluster join can weigh: its rule's severity, its evidence span. */
function causeOfRecord(deps: NotifyDeps, a: AlertRecord): Cause {
  const severity = (deps.rules ?? []).find((r) => r.id === a.ruleId)?.severity ?? 'warning'
  return { ruleId: a.ruleId, severity, cause: a.summary ?? a.ruleId, run: [], labels: a.labels, firstAt: a.firstEvidenceAt ?? a.activeAt, lastAt: a.evidenceAt ?? a.lastSeenAt, matchedAt: a.firedAt ?? a.activeAt, evidence: [], corroboration: 0, score: 0, explainsRules: [] }
}

/** The cluster answer over the event's cause and its peers' alerts, as the links between them. */
function joinWithPeers(deps: NotifyDeps, ev: AlertEvent, candidates: readonly AlertRecord[]): ClusterDiagnosis {
  const rules = deps.rules ?? []
  const now = deps.now()
  const byBroker = new Map<string, Cause[]>()
  for (const a of candidates) byBroker.set(a.broker!, [...(byBroker.get(a.broker!) ?? []), causeOfRecord(deps, a)])
  const diagnosis = (b: string, causes: Cause[]): Diagnosis => ({ cluster: ev.alert.cluster, broker: b, from: 0, to: now, at: now, causes, nearMisses: [], abnormal: [], signalsSeen: causes.length })
  return joinDiagnoses(rules, [...[...byBroker].map(([b, causes]) => diagnosis(b, causes)), diagnosis(ev.alert.broker!, [ev.cause])], { cluster: ev.alert.cluster, from: 0, to: now, now })
}
