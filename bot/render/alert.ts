import type { Cause } from '../../engine/diagnosis.js'
import type { AlertRecord } from '../../engine/store/store.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeMrkdwn } from './block-kit.js'
import { causeButtons, renderTimeline, runbookLink } from './diagnosis.js'
import { formatDuration, formatTime } from './time.js'

/**
 * Alert lifecycle messages: one message per incident, edited in place as evidence grows, a thread
 * reply for each update and a resolved notice, so a channel sees one thread instead of a flood.
 */

/** Presentation choices for alert messages. */
export type AlertRenderOptions = { timeZone: string; maxEvidence?: number }

function where(alert: AlertRecord): string {
  const labels = Object.entries(alert.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  return `${alert.cluster}${alert.broker !== undefined ? ` broker ${alert.broker}` : ''}${labels ? ` (${labels})` : ''}`
}

/** The channel message of a firing alert; re-rendered with fresh evidence on every update. */
export function renderAlert(alert: AlertRecord, cause: Cause, opts: AlertRenderOptions): BotMessage {
  const firedAt = alert.firedAt ?? alert.activeAt
  // "since" is when the evidence happened, as the broker logged it; when the engine decided comes after.
  const since = alert.firstEvidenceAt ?? firedAt
  const decided = alert.firstEvidenceAt !== undefined ? ` (first evidence) · alerted ${formatTime(firedAt, opts.timeZone)}` : ''
  const parts: MessagePart[] = [
    { kind: 'header', text: `${cause.severity === 'critical' ? ':red_circle:' : ':large_orange_circle:'} Firing: ${cause.cause}` },
    {
      kind: 'section',
      text: `*${escapeMrkdwn(where(alert))}* · ${cause.severity} · rule \`${escapeMrkdwn(cause.ruleName ?? cause.ruleId)}\`\nFiring since ${formatTime(since, opts.timeZone, true)} ${opts.timeZone}${decided} · last seen ${formatTime(alert.evidenceAt ?? alert.lastSeenAt, opts.timeZone)}`,
    },
  ]
  if (cause.evidence.length) parts.push({ kind: 'section', text: renderTimeline(cause.evidence, { timeZone: opts.timeZone, maxEvidence: opts.maxEvidence ?? 10 }, cause.matchedAt) })
  if (cause.advise) parts.push({ kind: 'section', text: `:bulb: ${escapeMrkdwn(cause.advise)}` })
  if (cause.runbook) parts.push({ kind: 'context', text: `Runbook: ${runbookLink(cause.runbook)}` })
  parts.push({ kind: 'context', text: `Fingerprint \`${escapeMrkdwn(alert.fingerprint)}\`` })
  const buttons = causeButtons(cause, alert.fingerprint)
  if (alert.broker !== undefined) buttons.splice(1, 0, { kind: 'button', label: `Why broker ${alert.broker}`, action: 'kafka_run', value: `why ${alert.cluster}:${alert.broker}` })
  parts.push({ kind: 'actions', elements: buttons })
  return { text: `Firing: ${cause.cause} — ${where(alert)}`, parts, visibility: 'channel' }
}

/** The thread reply when an alert gains evidence: only what is new since the last notice. */
export function renderAlertUpdate(alert: AlertRecord, cause: Cause, sinceMs: number, opts: AlertRenderOptions): BotMessage {
  const fresh = cause.evidence.filter((e) => e.at > sinceMs)
  const parts: MessagePart[] = [
    { kind: 'section', text: `:arrows_counterclockwise: *New evidence* for ${escapeMrkdwn(where(alert))}: ${fresh.length} line${fresh.length === 1 ? '' : 's'} since ${formatTime(sinceMs, opts.timeZone)}` },
  ]
  if (fresh.length) parts.push({ kind: 'section', text: renderTimeline(fresh, { timeZone: opts.timeZone, maxEvidence: opts.maxEvidence ?? 10 }) })
  return { text: `New evidence: ${cause.cause} — ${where(alert)}`, parts, visibility: 'channel' }
}

/** The thread reply, broadcast to the channel, when a long-firing alert is re-notified. */
export function renderStillFiring(alert: AlertRecord, cause: Cause, now: number, opts: AlertRenderOptions): BotMessage {
  const firedAt = alert.firstEvidenceAt ?? alert.firedAt ?? alert.activeAt
  return {
    text: `Still firing after ${formatDuration(Math.max(0, now - firedAt))}: ${cause.cause} — ${where(alert)}`,
    parts: [{ kind: 'section', text: `:warning: *Still firing* after ${formatDuration(Math.max(0, now - firedAt))} (since ${formatTime(firedAt, opts.timeZone, true)} ${opts.timeZone}): ${escapeMrkdwn(cause.cause)}` }],
    visibility: 'channel',
  }
}

/** The resolved notice, and the edited original once the alert has cleared. */
export function renderResolved(alert: AlertRecord, cause: Cause, opts: AlertRenderOptions): BotMessage {
  const firedAt = alert.firedAt ?? alert.activeAt
  const resolvedAt = alert.resolvedAt ?? alert.lastSeenAt
  return {
    text: `Resolved: ${cause.cause} — ${where(alert)}`,
    parts: [
      { kind: 'header', text: `:white_check_mark: Resolved: ${cause.cause}` },
      {
        kind: 'section',
        text: `*${escapeMrkdwn(where(alert))}* · rule \`${escapeMrkdwn(cause.ruleName ?? cause.ruleId)}\`\nFired ${formatTime(firedAt, opts.timeZone, true)}, resolved ${formatTime(resolvedAt, opts.timeZone, true)} ${opts.timeZone} (${formatDuration(Math.max(0, resolvedAt - firedAt))})`,
      },
      { kind: 'context', text: `Fingerprint \`${escapeMrkdwn(alert.fingerprint)}\`` },
    ],
    visibility: 'channel',
  }
}

/**
 * What a consequence's own message becomes once its origin's alert fires after it: a pointer, so
 * the channel keeps one alert for the event. It claims no state (the alert goes on in the origin's
 * thread), so it never needs another edit.
 */
export function renderMovedToOrigin(alert: AlertRecord, origin: AlertRecord, cause: Cause, opts: AlertRenderOptions): BotMessage {
  const originWhere = `broker ${escapeMrkdwn(origin.broker ?? '?')}'s \`${escapeMrkdwn(origin.ruleId)}\` alert`
  const firedAt = alert.firedAt ?? alert.activeAt
  const originAt = origin.firedAt ?? origin.activeAt
  return {
    text: `A consequence of broker ${origin.broker ?? '?'}'s ${origin.ruleId} alert: ${cause.cause} — ${where(alert)}`,
    parts: [
      {
        kind: 'section',
        text: `:link: *${escapeMrkdwn(where(alert))}* · rule \`${escapeMrkdwn(cause.ruleName ?? cause.ruleId)}\` fired at ${formatTime(firedAt, opts.timeZone, true)} ${opts.timeZone}; it is a consequence of ${originWhere}, which fired at ${formatTime(originAt, opts.timeZone, true)}. It goes on in that alert's thread.`,
      },
      { kind: 'context', text: `${escapeMrkdwn(cause.cause)} · fingerprint \`${escapeMrkdwn(alert.fingerprint)}\`` },
    ],
    visibility: 'channel',
  }
}
