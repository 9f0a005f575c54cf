import type { AlertEvent } from '../../engine/alerts.js'
import type { AlertRecord, Store } from '../../engine/store/store.js'
import type { BotConfig } from '../config.js'
import { renderAlert, renderAlertUpdate, renderResolved, renderStillFiring } from '../render/alert.js'
import { messageArgs, type SlackPoster } from '../slack/slack-poster.js'

/**
 * Alert events → Slack. A firing alert is posted once to its cluster's channel and its ts stored on
 * the alert; new evidence edits that message and adds a thread reply; a re-notification (the engine's
 * renotify interval) edits it and broadcasts a "still firing" reply; resolution edits it again and
 * broadcasts a resolved notice from the thread. Silenced alerts post nothing.
 */

export type { AlertEvent }

/** What sending alert notices needs. */
export type NotifyDeps = { store: Store; poster: SlackPoster; config: BotConfig; now: () => number }

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
    await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, renderStillFiring(alert, ev.cause, now, tz)), thread_ts: ts, reply_broadcast: true })
    await deps.store.updateAlert(fp, { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...shown })
    return
  }
  if (ev.type === 'firing') {
    const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(channel, renderAlert(alert, ev.cause, tz)), unfurl_links: false })
    await deps.store.updateAlert(fp, { message: { channel: String(res.channel ?? channel), ts: String(res.ts) }, notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...shown })
    // A fired alert is one of the day's diagnoses, whether or not anyone asked `why`.
    await deps.store.recordDiagnosis({ at: now, cluster: alert.cluster, broker: alert.broker ?? '', ruleId: alert.ruleId, severity: ev.cause.severity, cause: ev.cause.cause })
    return
  }
  if (!alert.message) return
  const { channel: ch, ts } = alert.message
  if (ev.type === 'updated') {
    await deps.poster.callNow('chat.update', { ...messageArgs(ch, renderAlert(alert, ev.cause, tz)), ts })
    if (!muted) {
      const since = alert.shownEvidenceAt ?? alert.firedAt ?? alert.activeAt
      await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, renderAlertUpdate(alert, ev.cause, since, tz)), thread_ts: ts })
    }
    await deps.store.updateAlert(fp, { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length, ...(muted ? {} : shown) })
    return
  }
  const resolved = renderResolved(alert, ev.cause, tz)
  await deps.poster.callNow('chat.update', { ...messageArgs(ch, resolved), ts })
  await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, resolved), thread_ts: ts, reply_broadcast: true })
  await deps.store.updateAlert(fp, { notifiedAt: now })
}
