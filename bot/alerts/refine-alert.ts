import type { Rule } from '../../dsl/ast.js'
import { observedSignalsOfRule } from '../../dsl/signals-of-rule.js'
import type { AlertEvent } from '../../engine/alerts.js'
import type { AlertRecord, Store } from '../../engine/store/store.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { formatTime } from '../render/time.js'
import { renderAlert } from '../render/alert.js'
import { messageArgs, type SlackPoster } from '../slack/slack-poster.js'

/**
 * One broker, one incident, one message. Evidence from outside names a broker that stopped
 * responding before the broker can say why; when its own evidence arrives, the rule that names the
 * mechanism explains everything the first alert rested on (its `explains` covers that rule's
 * signals, the test a diagnosis uses to call one cause the other's consequence). That alert then
 * takes the first one's message over: the message is edited in place (chat.update) and the first
 * alert stops speaking. The other way round, an alert whose every signal the broker's alert in the
 * channel already explains posts nothing and shares that message.
 */

/** What taking over or joining a message needs; a subset of notify-alerts' dependencies. */
export type RefineDeps = {
  store: Store
  poster: SlackPoster
  rules?: readonly Rule[]
  timeZone: string
}

/** True when `by` explains every signal `other`'s condition rests on (outside a `not`). */
export function explainsRule(by: Rule | undefined, other: Rule | undefined): boolean {
  if (!by || !other || by.id === other.id) return false
  const explains = new Set(by.explains.map((e) => e.signal))
  const needs = observedSignalsOfRule(other)
  return needs.length > 0 && needs.every((n) => explains.has(n))
}

/**
 * Handles a new firing of `ev` on a broker that already has an alert in the channel it explains or
 * is explained by. Returns the message the alert now shares, or undefined when neither holds (the
 * caller posts as usual).
 */
export async function refineOrJoin(deps: RefineDeps, ev: AlertEvent, now: number): Promise<NonNullable<AlertRecord['message']> | undefined> {
  const rules = deps.rules ?? []
  const broker = ev.alert.broker
  if (!rules.length || broker === undefined) return undefined
  const ruleOf = (id: string) => rules.find((r) => r.id === id)
  const rule = ruleOf(ev.alert.ruleId)
  const posted = (await deps.store.listAlerts({ open: true }))
    .filter((a) => a.state === 'firing' && a.cluster === ev.alert.cluster && a.broker === broker && a.fingerprint !== ev.alert.fingerprint && a.message && !a.supersededBy)
    .sort((x, y) => (x.firedAt ?? x.activeAt) - (y.firedAt ?? y.activeAt))
  const fp = ev.alert.fingerprint
  const told = { notifiedAt: now, summary: ev.cause.cause, evidenceCount: ev.cause.evidence.length }
  // Already told: the alert in the channel explains this one, which joins its message silently.
  const covering = posted.find((a) => explainsRule(ruleOf(a.ruleId), rule))
  if (covering?.message) {
    await deps.store.updateAlert(fp, { ...told, message: covering.message, supersededBy: covering.fingerprint })
    return covering.message
  }
  const refined = posted.filter((a) => explainsRule(rule, ruleOf(a.ruleId)))
  const first = refined[0]
  if (!first?.message) return undefined
  // The mechanism is known now: the first message says it, with a line on what named the broker first.
  const rendered = renderAlert(ev.alert, ev.cause, { timeZone: deps.timeZone })
  const at = first.firedAt ?? first.activeAt
  const note = {
    kind: 'context' as const,
    text: `First posted ${formatTime(at, deps.timeZone)} as \`${escapeMrkdwn(first.ruleId)}\`, from evidence outside the broker; rewritten with what its own evidence shows.`,
  }
  const message = first.message
  await deps.poster.callNow('chat.update', { ...messageArgs(message.channel, { ...rendered, parts: [...rendered.parts, note] }), ts: message.ts })
  const newest = Math.max(-Infinity, ...ev.cause.evidence.map((e) => e.at))
  await deps.store.updateAlert(fp, { ...told, message, ...(Number.isFinite(newest) ? { shownEvidenceAt: newest } : {}) })
  for (const a of refined) await deps.store.updateAlert(a.fingerprint, { supersededBy: fp })
  // The mechanism named is one of the day's diagnoses, as a posted alert is.
  await deps.store.recordDiagnosis({ at: now, cluster: ev.alert.cluster, broker, ruleId: ev.alert.ruleId, severity: ev.cause.severity, cause: ev.cause.cause })
  return message
}
