import type { Rule } from '../dsl/ast.js'
import { signalsOfRule } from '../dsl/signals-of-rule.js'
import type { Signal } from '../signals/signal.js'
import type { TimesUnknown, UnexplainedError } from './diagnosis.js'
import type { EvalData, EvalWindow } from './match.js'
import { maskMessage, TemplateMiner } from './template-miner.js'

/**
 * What the log is screaming about that no matched rule accounts for. Every FATAL/ERROR record is a
 * generic signal (`log.fatal`, `log.error`) labelled with its template; the diagnosis shows those no
 * cause explains, one row per template, so an unknown failure is never met with silence.
 */

/** The generic signals shown as unexplained errors, most severe first. */
export const UNEXPLAINED_SIGNALS = ['log.fatal', 'log.error'] as const

/** Every generic log signal, including WARN-with-exception records (not listed, but explainable). */
export const GENERIC_LOG_SIGNALS = ['log.fatal', 'log.error', 'log.warn_exception', 'log.warn_failure'] as const

/** A template absent from this long before the window is new. */
export const NOVELTY_LOOKBACK_MS = 24 * 3_600_000

/** Rows shown at most. */
export const MAX_UNEXPLAINED = 10

/** Characters kept of a row's example line. */
const EXAMPLE_MAX = 600

/** The label the log adapter puts on signals of a file without any timestamp. */
const TIME_UNKNOWN_LABEL = 'time_unknown'

/**
 * The signal names the matched rules account for: what their conditions read and what they
 * `explains`. A generic error is explained when its own name is among them (a rule that explains
 * `log.error` explains every error), or when its record also yielded a specific signal that is.
 */
export function explainedNames(rules: readonly Rule[]): Set<string> {
  const out = new Set<string>()
  for (const r of rules) {
    for (const n of signalsOfRule(r)) out.add(n)
    for (const e of r.explains) out.add(e.signal)
  }
  return out
}

/** True when a generic error signal is accounted for by the names in `covered`. */
export function isExplained(s: Signal, covered: ReadonlySet<string>): boolean {
  if (covered.has(s.name)) return true
  const also = s.labels?.signals
  if (!also) return false
  for (const n of also.split(',')) if (covered.has(n)) return true
  return false
}

type Group = { severity: UnexplainedError['severity']; template: string; masked: string; signals: Signal[] }

/**
 * The top unexplained error templates of the window: grouped by template id, mined templates (`m-…`)
 * further clustered Drain-style, ranked by severity, then novelty (no signal of the template in the
 * `NOVELTY_LOOKBACK_MS` before the window, given as `priorTemplates`), then count, then recency.
 */
export function findUnexplained(
  data: EvalData,
  window: EvalWindow,
  covered: ReadonlySet<string>,
  priorTemplates: ReadonlySet<string>,
): { rows: UnexplainedError[]; omitted: number } {
  const rows: UnexplainedError[] = []
  for (const name of UNEXPLAINED_SIGNALS) {
    const severity = name === 'log.fatal' ? 'fatal' : 'error'
    const groups = new Map<string, Group>()
    for (const s of data.series.get(name) ?? []) {
      if (s.at < window.from || s.at > window.to || isExplained(s, covered)) continue
      const template = s.labels?.template ?? 'unknown'
      let g = groups.get(template)
      if (!g) groups.set(template, (g = { severity, template, masked: s.labels?.pattern ?? maskMessage(firstLine(s.text ?? '')), signals: [] }))
      g.signals.push(s)
    }
    // Catalogue templates are exact already; mined ones that differ only in what the masker could not
    // tell (a topic, a client id) are merged, oldest first so the result does not depend on store order.
    const mined = [...groups.values()].filter((g) => g.template.startsWith('m-')).sort((a, b) => a.signals[0].at - b.signals[0].at || a.template.localeCompare(b.template))
    const miner = new TemplateMiner<Group>()
    for (const g of mined) miner.add({ masked: g.masked, item: g })
    const clusters: { id: string; pattern?: string; groups: Group[] }[] = [...groups.values()].filter((g) => !g.template.startsWith('m-')).map((g) => ({ id: g.template, groups: [g] }))
    for (const t of miner.templates()) clusters.push(t.items.length === 1 ? { id: t.items[0].template, pattern: t.items[0].masked, groups: t.items } : { id: t.id, pattern: t.template, groups: t.items })
    for (const c of clusters) rows.push(toRow(severity, c.id, c.pattern, c.groups, priorTemplates))
  }
  const rank = (r: UnexplainedError) => (r.severity === 'fatal' ? 2 : 1)
  rows.sort((a, b) => rank(b) - rank(a) || Number(b.novel) - Number(a.novel) || b.count - a.count || b.lastAt - a.lastAt || a.template.localeCompare(b.template))
  return { rows: rows.slice(0, MAX_UNEXPLAINED), omitted: Math.max(0, rows.length - MAX_UNEXPLAINED) }
}

function toRow(severity: UnexplainedError['severity'], id: string, pattern: string | undefined, groups: Group[], prior: ReadonlySet<string>): UnexplainedError {
  const all = groups.flatMap((g) => g.signals)
  let first = all[0]
  let last = all[0]
  for (const s of all) {
    if (s.at < first.at) first = s
    if (s.at >= last.at) last = s
  }
  const example = last.text ?? ''
  const row: UnexplainedError = {
    severity,
    template: id,
    count: all.length,
    firstAt: first.at,
    lastAt: last.at,
    example: example.length > EXAMPLE_MAX ? `${example.slice(0, EXAMPLE_MAX - 1)}…` : example,
    source: last.source,
    novel: !groups.some((g) => prior.has(g.template)),
  }
  if (pattern !== undefined) row.pattern = pattern
  if (groups.length > 1) row.templates = groups.map((g) => g.template)
  if (last.broker !== undefined) row.broker = last.broker
  for (const [key, label] of [['logger', 'logger'], ['exception', 'exception'], ['rootCause', 'root_cause']] as const) {
    const v = last.labels?.[label]
    if (v !== undefined) row[key] = v
  }
  return row
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n')
  return nl < 0 ? text : text.slice(0, nl)
}

/**
 * Signals of the window whose log had no timestamps at all (their times stand in for "unknown"): how
 * many, and from which files, so the diagnosis can say its timeline is not real time.
 */
export function findTimesUnknown(data: EvalData, window: EvalWindow): TimesUnknown | undefined {
  let signals = 0
  const files = new Set<string>()
  for (const list of data.series.values()) {
    for (const s of list) {
      if (s.labels?.[TIME_UNKNOWN_LABEL] === undefined || s.at < window.from || s.at > window.to) continue
      signals++
      files.add(s.source.replace(/^log:/, '').replace(/:\d+$/, ''))
    }
  }
  return signals ? { signals, files: [...files].sort() } : undefined
}
