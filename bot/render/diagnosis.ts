import type { Cause, Diagnosis, Evidence, UnexplainedError } from '../../engine/diagnosis.js'
import type { BotMessage, Button, MessagePart } from '../message.js'
import { escapeMrkdwn } from './block-kit.js'
import { describeUnread, hasUnread } from '../../engine/unread-input.js'
import { formatTime, formatWindow } from './time.js'

/**
 * The one Diagnosis → message renderer. Slack and the console both go through it, so what an
 * on-call engineer sees in a terminal is what the channel sees.
 */

/** Presentation choices that are not part of the diagnosis itself. */
export type DiagnosisRenderOptions = {
  timeZone: string
  /** Other brokers of the cluster, offered as "why another broker". */
  otherBrokers?: string[]
  /** Evidence lines shown per cause before "+N more". */
  maxEvidence?: number
  /** Longest raw log line shown in a timeline. */
  maxLineChars?: number
}

const SEVERITY_ICON = { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' } as const

/** Renders a diagnosis: header, ranked causes with evidence timelines, advice, runbook, buttons. */
export function renderDiagnosis(d: Diagnosis, opts: DiagnosisRenderOptions): BotMessage {
  const tz = opts.timeZone
  const parts: MessagePart[] = []
  // Baseline causes (no rule made them) never read as "likely causes": the headline still says no rule matched.
  const ruled = d.causes.filter((c) => c.confidence !== 'baseline').length
  const top = ruled ? d.causes[0] : undefined
  const baseline = d.causes.find((c) => c.confidence === 'baseline')
  const baselineNote = baseline?.baseline ? `; most telling failure: ${baseline.baseline.classTitle} (baseline)` : ''
  const headline = top
    ? `Broker ${d.broker} (${d.cluster}): ${ruled} likely cause${ruled === 1 ? '' : 's'}`
    : `Broker ${d.broker} (${d.cluster}): no rule matched${unexplainedNote(d)}${baselineNote}`
  parts.push({ kind: 'header', text: headline })
  parts.push({ kind: 'context', text: `${formatWindow(d.from, d.to, tz)} · ${d.signalsSeen} signals looked at` })
  if (hasUnread(d.unread)) parts.push({ kind: 'section', text: `:warning: ${escapeMrkdwn(describeUnread(d.unread))}` })

  if (d.signalsSeen === 0) {
    parts.push({ kind: 'section', text: `No signals are stored for broker ${d.broker} in this window, so nothing can be said about it. Check that its logs and metrics are being shipped.` })
  }

  d.causes.forEach((c, i) => {
    parts.push({ kind: 'divider' })
    parts.push(...renderCause(c, i + 1, opts))
  })

  if (d.nearMisses.length) {
    parts.push({ kind: 'divider' })
    const lines = d.nearMisses.slice(0, 8).map((n) => `• \`${escapeMrkdwn(n.ruleId)}\`: ${escapeMrkdwn(n.message)}`)
    if (d.nearMisses.length > 8) lines.push(`• … ${d.nearMisses.length - 8} more`)
    parts.push({ kind: 'section', text: `*Near misses* (part of a rule held):\n${lines.join('\n')}` })
  }
  if (d.unexplained?.length) {
    parts.push({ kind: 'divider' })
    parts.push({ kind: 'section', text: renderUnexplained(d.unexplained, d.unexplainedOmitted ?? 0, opts) })
  }
  if (d.timesUnknown) {
    const t = d.timesUnknown
    parts.push({ kind: 'context', text: escapeMrkdwn(`Times unknown: ${t.signals} signal${t.signals === 1 ? '' : 's'} came from ${t.files.slice(0, 5).join(', ')}${t.files.length > 5 ? ` and ${t.files.length - 5} more` : ''}, a log without timestamps; they are shown in file order at a stand-in time.`) })
  }
  if (!d.causes.length && d.abnormal.length) {
    const lines = d.abnormal.slice(0, 12).map((a) => `• \`${a.signal}\` ×${a.count}: ${escapeMrkdwn(a.summary)}${a.worst ? ` (worst ${escapeMrkdwn(a.worst)})` : ''}`)
    parts.push({ kind: 'section', text: `*What else looks abnormal:*\n${lines.join('\n')}` })
  }

  const others = (opts.otherBrokers ?? []).filter((b) => b !== d.broker)
  if (others.length) {
    parts.push({
      kind: 'actions',
      elements: [
        {
          kind: 'select',
          placeholder: 'Why another broker…',
          action: 'kafka_why_broker',
          options: others.map((b) => ({ label: `broker ${b}`, value: `${d.cluster}:${b}` })),
        },
      ],
    })
  }

  const text = top
    ? `Broker ${d.broker} (${d.cluster}): ${d.causes.map((c, i) => `${i + 1}. ${c.cause}`).join(' ')}`
    : `Broker ${d.broker} (${d.cluster}): no rule matched in ${formatWindow(d.from, d.to, tz)}${unexplainedNote(d)}${baseline ? ` — baseline: ${baseline.cause}` : ''}`
  return { text, parts, visibility: 'channel' }
}

/** "; 3 unexplained error templates": what the headline adds when errors remain unexplained. */
function unexplainedNote(d: Diagnosis): string {
  const n = (d.unexplained?.length ?? 0) + (d.unexplainedOmitted ?? 0)
  return n ? `; ${n} unexplained error template${n === 1 ? '' : 's'}` : ''
}

/** Slack's limit for one section's text, less room for the "more" note. */
const SECTION_BUDGET = 2900

/**
 * The unexplained error templates as one section: per row severity, count, novelty, times and one
 * example line (data from the broker, escaped; cut to fit Slack's 3000-character section limit).
 */
export function renderUnexplained(rows: readonly UnexplainedError[], omitted: number, opts: DiagnosisRenderOptions): string {
  const maxLine = Math.min(opts.maxLineChars ?? 160, 200)
  const head = '*Unexplained errors* (no matched rule accounts for them):'
  const lines: string[] = []
  let used = head.length
  let left = omitted
  for (let i = 0; i < rows.length; i++) {
    const u = rows[i]
    const when = u.count === 1 ? formatTime(u.firstAt, opts.timeZone, true) : `${formatTime(u.firstAt, opts.timeZone, true)} – ${formatTime(u.lastAt, opts.timeZone, true)}`
    const example = u.example.split('\n')[0]
    const cut = example.length > maxLine ? `${example.slice(0, maxLine - 1)}…` : example
    const cause = u.rootCause ?? u.exception
    const line = `• *${u.severity.toUpperCase()}* ×${u.count}${u.novel ? ' · _new_' : ''} · ${when}\n\`${escapeMrkdwn(cut).replace(/`/g, "'")}\`${cause ? `\n   ${escapeMrkdwn(cause.length > maxLine ? `${cause.slice(0, maxLine - 1)}…` : cause)}` : ''}`
    if (used + line.length + 1 > SECTION_BUDGET) {
      left += rows.length - i
      break
    }
    lines.push(line)
    used += line.length + 1
  }
  return `${head}\n${lines.join('\n')}${left ? `\n• … ${left} more error template${left === 1 ? '' : 's'}` : ''}`
}

/** One ranked cause: title, why it ranks, timeline, advice, runbook, buttons. */
export function renderCause(c: Cause, rank: number, opts: DiagnosisRenderOptions): MessagePart[] {
  const parts: MessagePart[] = []
  const labels = Object.entries(c.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  const what =
    c.confidence === 'baseline'
      ? `confidence: _baseline_ (no specific rule matched; explained at the level of its failure class) · ${c.matches ?? 1} failure line${c.matches === 1 ? '' : 's'}`
      : `rule \`${escapeMrkdwn(c.ruleName ?? c.ruleId)}\`${labels ? ` · ${escapeMrkdwn(labels)}` : ''} · ${c.corroboration} corroborating signal${c.corroboration === 1 ? '' : 's'}`
  parts.push({
    kind: 'section',
    text: `${SEVERITY_ICON[c.severity]} *${rank}. ${escapeMrkdwn(c.cause)}*\n${c.severity} · ${what} · matched ${formatTime(c.matchedAt, opts.timeZone, true)}`,
  })
  if (c.evidence.length) parts.push({ kind: 'section', text: renderTimeline(c.evidence, opts, c.matchedAt) })
  if (c.advise) parts.push({ kind: 'section', text: `:bulb: ${escapeMrkdwn(c.advise)}` })
  if (c.runbook) parts.push({ kind: 'context', text: `Runbook: ${runbookLink(c.runbook)}` })
  const notes: string[] = []
  if (c.explainsRules.length) notes.push(`Also explains: ${c.explainsRules.map((r) => `\`${escapeMrkdwn(r)}\``).join(', ')}`)
  if (c.explainedBy?.length) notes.push(`A consequence of ${c.explainedBy.map((r) => `\`${escapeMrkdwn(r)}\``).join(', ')}`)
  if (c.matches !== undefined && c.matches > 1) notes.push(`matched ${c.matches} times; the timeline shows the latest`)
  if (c.consequencesOmitted) notes.push(`${c.consequencesOmitted} more consequence line${c.consequencesOmitted === 1 ? '' : 's'} left out`)
  if (notes.length) parts.push({ kind: 'context', text: notes.join(' · ') })
  parts.push({ kind: 'actions', elements: causeButtons(c) })
  return parts
}

/** Buttons for a cause: show the rule, silence it for an hour, and each suggested command. */
export function causeButtons(c: Cause, fingerprint?: string): Button[] {
  const buttons: Button[] = [
    // A baseline has no rule to show.
    ...(c.confidence === 'baseline' ? [] : [{ kind: 'button', label: 'Show rule', action: 'kafka_show_rule', value: c.ruleId } as const]),
    { kind: 'button', label: 'Silence 1h', action: 'kafka_silence_1h', value: JSON.stringify({ matcher: fingerprint ?? c.ruleId }) },
  ]
  for (const cmd of c.run.slice(0, 3)) buttons.push({ kind: 'button', label: `Run: ${cmd}`, action: 'kafka_run', value: cmd, style: 'primary' })
  return buttons
}

/**
 * Timestamped evidence lines in a code block. The condition's own evidence is always shown first in
 * priority; consequences fill the remaining lines, nearest the match first; samples that came from
 * one log line are merged into one timeline line.
 */
export function renderTimeline(evidence: Evidence[], opts: DiagnosisRenderOptions, matchedAt?: number): string {
  const max = opts.maxEvidence ?? 12
  const maxLine = opts.maxLineChars ?? 160
  const rows = mergeRows(evidence)
  const own = rows.filter((r) => !r.consequence)
  const effects = rows.filter((r) => r.consequence)
  const pivot = matchedAt ?? (own.length ? own[own.length - 1].at : 0)
  const chosen = [...own.slice(-max), ...effects.sort((a, b) => Math.abs(a.at - pivot) - Math.abs(b.at - pivot)).slice(0, Math.max(0, max - own.length))]
  const shown = chosen.sort((a, b) => a.at - b.at)
  const all = [...rows].sort((a, b) => a.at - b.at)
  const multiDay = all.length > 0 && all[all.length - 1].at - all[0].at > 86_400_000
  const lines = shown.map((r) => {
    const raw = r.text ? `  ${r.text.length > maxLine ? `${r.text.slice(0, maxLine - 1)}…` : r.text}` : ''
    const where = r.broker !== undefined ? ` b${r.broker}` : ''
    return `${formatTime(r.at, opts.timeZone, multiDay)}${where} ${r.consequence ? '↳ ' : ''}${r.what}${raw}`.replace(/```/g, "'''")
  })
  const more = rows.length - shown.length
  return `\`\`\`\n${escapeMrkdwn(lines.join('\n'))}\n\`\`\`${more > 0 ? `\n+${more} more evidence line${more === 1 ? '' : 's'} not shown` : ''}`
}

type Row = { at: number; broker?: string; consequence: boolean; what: string; text?: string }

function mergeRows(evidence: Evidence[]): Row[] {
  const rows = new Map<string, Row>()
  for (const e of [...evidence].sort((a, b) => a.at - b.at)) {
    const what = `${e.signal}${e.valueText ? ` ${e.valueText}` : ''}`
    const key = e.text ? `${e.at}|${e.broker}|${e.text}` : `${e.at}|${e.broker}|${what}|${JSON.stringify(e.labels ?? {})}`
    const row = rows.get(key)
    if (row) {
      if (!row.what.split(', ').includes(what)) row.what += `, ${what}`
      row.consequence &&= Boolean(e.consequence)
    } else rows.set(key, { at: e.at, broker: e.broker, consequence: Boolean(e.consequence), what, text: e.text })
  }
  return [...rows.values()]
}

/** A runbook as a link when it is a URL, else as text. */
export function runbookLink(runbook: string): string {
  return /^https?:\/\/[^\s<>|]+$/.test(runbook) ? `<${runbook.replace(/&/g, '&amp;')}>` : escapeMrkdwn(runbook)
}
