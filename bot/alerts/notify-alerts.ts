import type { Cause } from '../../engine/diagnosis.js'
import type { AlertRecord, Store } from '../../engine/store/store.js'
import type { BotConfig } from '../config.js'
import { renderAlert, renderAlertUpdate, renderResolved } from '../render/alert.js'
import { messageArgs, type SlackPoster } from '../slack/slack-poster.js'

/**
 * Alert events → Slack. A firing alert is posted once to its cluster's channel and its ts stored on
 * the alert; new evidence edits that message and adds a thread reply; resolution edits it again and
 * broadcasts a resolved notice from the thread. Silenced alerts post nothing.
 */

/** What the engine's alert tick yields (engine/alerts.ts). */
export type AlertEvent = { type: 'firing' | 'updated' | 'resolved'; alert: AlertRecord; cause: Cause }

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
  const alert: AlertRecord = { ...ev.alert, message: stored.message ?? ev.alert.message, notifiedAt: stored.notifiedAt ?? ev.alert.notifiedAt }
  const now = deps.now()
  if (ev.type === 'firing') {
    if (alert.message) return
    const res = await deps.poster.callNow('chat.postMessage', { ...messageArgs(channel, renderAlert(alert, ev.cause, tz)), unfurl_links: false })
    await deps.store.updateAlert(fp, { message: { channel: String(res.channel ?? channel), ts: String(res.ts) }, notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length })
    return
  }
  if (!alert.message) return
  const { channel: ch, ts } = alert.message
  if (ev.type === 'updated') {
    await deps.poster.callNow('chat.update', { ...messageArgs(ch, renderAlert(alert, ev.cause, tz)), ts })
    if (!muted) {
      const since = alert.notifiedAt ?? alert.firedAt ?? alert.activeAt
      await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, renderAlertUpdate(alert, ev.cause, since, tz)), thread_ts: ts })
    }
    await deps.store.updateAlert(fp, { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length })
    return
  }
  const resolved = renderResolved(alert, ev.cause, tz)
  await deps.poster.callNow('chat.update', { ...messageArgs(ch, resolved), ts })
  await deps.poster.callNow('chat.postMessage', { ...messageArgs(ch, resolved), thread_ts: ts, reply_broadcast: true })
  await deps.store.updateAlert(fp, { notifiedAt: now })
}
