import type { Cause, Diagnosis, Evidence, NearMiss, UnexplainedError } from '../engine/diagnosis.js'
import { describeUnread, hasUnread } from '../engine/unread-input.js'

/**
 * A Diagnosis for a terminal. By default it is what a person reads at 3 a.m.: the causes first, each
 * with its three most telling evidence lines and what to do, causes that are consequences of another
 * one line each, near misses one line each. `verbose` shows everything: scores and how they were made,
 * every evidence line and consequence, near-miss evidence. Colour only when asked (a TTY without
 * NO_COLOR); without it the text pastes into a ticket as is.
 */

/** How much to show and whether to colour it. */
export type TextRenderOptions = { verbose?: boolean; color?: boolean }

/** Evidence lines a cause shows unless verbose. */
const COMPACT_EVIDENCE = 3

/** Raw log lines are cut here; the source locates the full line. */
const TEXT_WIDTH = 160

/** Renders the whole diagnosis. */
export function renderDiagnosis(d: Diagnosis, opts: TextRenderOptions = {}): string {
  const verbose = opts.verbose === true
  const paint = painter(opts.color === true)
  const out: string[] = []
  const multiDay = isoDate(d.from) !== isoDate(d.to)
  out.push(`broker ${d.broker} of ${d.cluster} · ${isoStamp(d.from)} → ${isoStamp(d.to)} (${span(d.to - d.from)}) · ${d.signalsSeen} signals, ${d.rulesEvaluated ?? '?'} rules`)
  out.push(...dataSeen(d))
  if (hasUnread(d.unread)) out.push(`warning: ${describeUnread(d.unread)}`)
  out.push('')
  if (d.signalsSeen === 0) {
    out.push(`No signals stored for broker ${d.broker} in this window: nothing to diagnose. Is the broker's data being ingested? (try a longer --since)`)
    return out.join('\n')
  }
  if (d.timesUnknown) {
    const t = d.timesUnknown
    out.push(`times unknown: ${t.signals} signal${t.signals === 1 ? '' : 's'} from ${t.files.join(', ')}, a log without timestamps; they are placed in file order (1 ms apart) at a stand-in time, so their times and gaps mean nothing.`)
    out.push('')
  }
  const ruled = d.causes.filter((c) => c.confidence !== 'baseline').length
  if (ruled === 0 && d.causes.length) out.push('No rule matched; the most telling failure lines, explained by their failure class (baseline):')
  else if (d.causes.length === 0) out.push(d.unexplained?.length ? 'No rule matched; the log shows errors no rule explains (below).' : 'No rule matched.')
  d.causes.forEach((c, i) => {
    if (!verbose && c.explainedBy?.length) out.push(`${i + 1}. ${paint.severity(c.severity)}  ${c.cause} ${paint.dim(`(a consequence of ${c.explainedBy.join(', ')})`)}`, '')
    else out.push(...renderCause(c, i + 1, multiDay, verbose, paint), '')
  })
  if (d.nearMisses.length) {
    out.push('Near misses (part of a rule held):')
    for (const n of d.nearMisses) out.push(...(verbose ? renderNearMiss(n, multiDay) : [`  - [${n.ruleId}] ${n.message}`]))
    out.push('')
  }
  if (d.unexplained?.length) {
    out.push('Unexplained errors (no matched rule accounts for them):')
    for (const u of d.unexplained) out.push(...renderUnexplained(u, multiDay))
    if (d.unexplainedOmitted) out.push(`  … ${d.unexplainedOmitted} more error templates not shown`)
    out.push('')
  }
  if (d.abnormal.length) {
    out.push('Abnormal in the window:')
    for (const a of d.abnormal) out.push(`  - ${a.summary}`)
    out.push('')
  }
  if (!verbose && d.causes.length) out.push(paint.dim('(--verbose: scores, every evidence line and consequence, near-miss evidence)'))
  return out.join('\n').trimEnd()
}

type Paint = { severity(s: Cause['severity']): string; dim(t: string): string }

/** ANSI colours for a terminal that wants them; identity otherwise. */
function painter(color: boolean): Paint {
  const sgr = (code: string, t: string) => (color ? `\x1b[${code}m${t}\x1b[0m` : t)
  const SEVERITY: Record<string, string> = { critical: '1;31', warning: '1;33', info: '1;36' }
  return { severity: (s) => sgr(SEVERITY[s] ?? '1', s.toUpperCase()), dim: (t) => sgr('2', t) }
}

/** The evidence a cause shows compactly: its own condition's events first, then consequences, in time order. */
function tellingEvidence(evidence: readonly Evidence[]): Evidence[] {
  const own = evidence.filter((e) => !e.consequence)
  const picked = own.length >= COMPACT_EVIDENCE ? own.slice(-COMPACT_EVIDENCE) : [...own, ...evidence.filter((e) => e.consequence).slice(0, COMPACT_EVIDENCE - own.length)]
  return picked.sort((a, b) => a.at - b.at)
}

function renderCause(c: Cause, rank: number, multiDay: boolean, verbose: boolean, paint: Paint): string[] {
  const lines: string[] = []
  const labels = Object.entries(c.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  const explained = c.explainedBy?.length ? ` (a consequence of ${c.explainedBy.join(', ')})` : ''
  lines.push(`${rank}. ${paint.severity(c.severity)}  ${c.cause}${explained}`)
  if (c.confidence === 'baseline') lines.push(paint.dim(`   confidence: baseline — no specific rule matched; ${c.baseline?.classTitle ?? c.ruleId} explained at class level`))
  if (!verbose) {
    const times = c.matches && c.matches > 1 ? `, matched ${c.matches} times` : ''
    lines.push(paint.dim(`   rule ${c.ruleId}${labels ? ` {${labels}}` : ''} · at ${stamp(c.matchedAt, multiDay)}${times}${c.explainsRules.length ? ` · explains ${c.explainsRules.join(', ')}` : ''}`))
    if (c.advise) lines.push(`   advise: ${c.advise}`)
    for (const r of c.run) lines.push(`   next (Slack): /kafka ${r}`)
    const shown = tellingEvidence(c.evidence)
    if (shown.length) {
      lines.push(`   evidence${shown.length < c.evidence.length ? ` (${shown.length} of ${c.evidence.length + (c.consequencesOmitted ?? 0)})` : ''}:`)
      lines.push(...renderEvidence(shown, multiDay, '     '))
    }
    return lines
  }
  const p = c.scoreParts
  const scoreText = p
    ? `score ${fmt(c.score)} = ${c.severity} ${p.severity} + ${c.corroboration} signals ${p.corroboration} + recency ${fmt(p.recency)}${p.explains ? ` + explains ${fmt(p.explains)}` : ''}`
    : `score ${fmt(c.score)}`
  const times = c.matches && c.matches > 1 ? `, matched ${c.matches} times` : ''
  lines.push(`   rule ${c.ruleId}${labels ? ` {${labels}}` : ''} · at ${stamp(c.matchedAt, multiDay)}${times} · ${scoreText}`)
  if (c.explainsRules.length) lines.push(`   explains: ${c.explainsRules.join(', ')}`)
  if (c.advise) lines.push(`   advise: ${c.advise}`)
  if (c.runbook) lines.push(`   runbook: ${c.runbook}`)
  for (const r of c.run) lines.push(`   next (Slack): /kafka ${r}`)
  if (c.evidence.length) {
    lines.push('   evidence:')
    lines.push(...renderEvidence(c.evidence, multiDay, '     '))
    if (c.consequencesOmitted) lines.push(`     … ${c.consequencesOmitted} more consequences not shown`)
  }
  return lines
}

/** One template: severity, count, novelty and times; its wording; the example line and its cause. */
function renderUnexplained(u: UnexplainedError, multiDay: boolean): string[] {
  const times = u.count === 1 ? `at ${stamp(u.firstAt, multiDay)}` : `${stamp(u.firstAt, multiDay)} → ${stamp(u.lastAt, multiDay)}`
  const lines = [`  - ${u.severity.toUpperCase()} ×${u.count}${u.novel ? ' (new: not seen in the 24 h before)' : ''}  ${times}  template ${u.template}${u.logger ? `  logger ${u.logger}` : ''}`]
  if (u.pattern) lines.push(`      wording: ${clip(u.pattern)}`)
  lines.push(`      e.g. ${clip(u.example.split('\n')[0])}  [${u.source}]`)
  if (u.rootCause) lines.push(`      root cause: ${clip(u.rootCause)}`)
  else if (u.exception) lines.push(`      exception: ${u.exception}`)
  return lines
}

function renderNearMiss(n: NearMiss, multiDay: boolean): string[] {
  return [`  - [${n.ruleId}] ${n.message}`, ...renderEvidence(n.evidence, multiDay, '      ')]
}

/** Sources listed under the header before "+N more". */
const SOURCES_SHOWN = 6

/** "  data: log:/x/server.log 10:00:01Z → 10:42:13Z (42m, 312 signals)": what the answer rests on. */
function dataSeen(d: Diagnosis): string[] {
  const sources = d.sources ?? []
  const lines = sources.slice(0, SOURCES_SHOWN).map((s) => `  data: ${s.source} ${isoStamp(s.firstAt)} → ${isoStamp(s.lastAt)} (${span(s.lastAt - s.firstAt)}, ${s.signals} signal${s.signals === 1 ? '' : 's'})`)
  if (sources.length > SOURCES_SHOWN) lines.push(`  data: +${sources.length - SOURCES_SHOWN} more sources`)
  return lines
}

/** One line per point: time, signal, value, labels, then the raw line (or source). */
export function renderEvidence(evidence: readonly Evidence[], multiDay: boolean, indent: string): string[] {
  const width = Math.max(0, ...evidence.map((e) => e.signal.length))
  return evidence.map((e) => {
    const mark = e.consequence ? '↳ ' : '  '
    const value = e.valueText ? ` ${e.valueText}` : ''
    const labels = e.labels ? ` ${Object.entries(e.labels).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''
    const broker = e.broker === undefined ? ' (cluster)' : ''
    const tail = e.text ? `  ${clip(e.text.trim())}` : ''
    return `${indent}${mark}${stamp(e.at, multiDay)}  ${e.signal.padEnd(width)}${value}${labels}${broker}${tail}  [${e.source}]`
  })
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ')
  return one.length > TEXT_WIDTH ? `${one.slice(0, TEXT_WIDTH - 1)}…` : one
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1)
}

function isoDate(at: number): string {
  return new Date(at).toISOString().slice(0, 10)
}

/** "2018-08-14 02:15:52Z" */
export function isoStamp(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z')
}

function stamp(at: number, withDate: boolean): string {
  const iso = new Date(at).toISOString()
  return withDate ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : iso.slice(11, 23)
}

/** 90000 → "1m30s", for the window's length. */
export function span(ms: number): string {
  const parts: string[] = []
  let rest = Math.max(0, Math.round(ms / 1000))
  for (const [u, f] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= f || (u === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / f)}${u}`)
      rest %= f
    }
    if (parts.length === 2) break
  }
  return parts.join('')
}
