import type { Rule } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import type { Cause, Evidence } from './diagnosis.js'
import { labelKey } from './eval-data.js'
import { isNotablePoint } from './abnormal.js'
import { toEvidence } from './evidence.js'
import type { EvalData, EvalWindow } from './match.js'
import { firstAtOrAfter } from './time-sorted.js'

/** Consequence points per explained signal and in all, nearest the match first. */
const CONSEQUENCES_PER_SIGNAL = 5
const CONSEQUENCES_TOTAL = 20
/**
 * How far an explained signal may precede the cause's earliest condition evidence and still be its
 * consequence: a lead-up counts only while unbroken (no gap over LEAD_GAP_MS between its points,
 * the last of them within LEAD_GAP_MS of the evidence) and never reaches back more than LEAD_MAX_MS.
 * A session's timeouts logged seconds before its expiry belong to it; start-up elections half a
 * minute earlier do not.
 */
export const LEAD_GAP_MS = 5_000
export const LEAD_MAX_MS = 60_000

/**
 * The signals a cause `explains`, as they occurred in the window, nearest the match first and capped,
 * joined into its timeline as consequences. Each explained signal present also corroborates the cause.
 * A raw line already in the timeline (as condition evidence or as another consequence) is not added again.
 */
export function addConsequences(cause: Cause, rule: Rule, data: EvalData, window: EvalWindow): void {
  const own = new Set(cause.evidence.map((e) => e.signal))
  const shown = new Set(cause.evidence.map((e) => rawLineKey(e.source, e.at, e.text, e.signal, e.labels)))
  const onset = cause.evidence.length ? cause.evidence.reduce((m, e) => Math.min(m, e.at), Infinity) : cause.firstAt
  // Only points past what a healthy broker shows are consequences: a gauge reading 0 offline partitions is not.
  const explained = rule.explains.map((e) => notablePoints(e.signal, data.series.get(e.signal) ?? []))
  const from = Math.max(window.from, leadUpStart(explained, onset))
  const picked: Evidence[] = []
  let present = 0
  let omitted = 0
  for (const series of explained) {
    const lo = firstAtOrAfter(series, from)
    const hi = firstAtOrAfter(series, window.to + 1)
    if (hi <= lo) continue
    if (!own.has(series[lo].name)) present++
    const nearest = nearestTo(series, lo, hi, cause.matchedAt, CONSEQUENCES_PER_SIGNAL, shown)
    omitted += hi - lo - nearest.length
    for (const s of nearest) picked.push(toEvidence(s, true))
  }
  picked.sort((a, b) => Math.abs(a.at - cause.matchedAt) - Math.abs(b.at - cause.matchedAt))
  omitted += Math.max(0, picked.length - CONSEQUENCES_TOTAL)
  cause.evidence = [...cause.evidence, ...picked.slice(0, CONSEQUENCES_TOTAL)].sort((a, b) => a.at - b.at)
  cause.corroboration += present
  if (omitted) cause.consequencesOmitted = omitted
}

/** The series' points that are notable (a copy only for the signals with a healthy range). */
function notablePoints(name: string, series: readonly Signal[]): readonly Signal[] {
  if (isNotablePoint(name, undefined) && isNotablePoint(name, 0)) return series
  return series.filter((s) => isNotablePoint(s.name, s.value))
}

/**
 * The earliest moment a consequence may have: walks back from the onset through the explained
 * signals logged before it, as long as each is within LEAD_GAP_MS of the next, at most LEAD_MAX_MS.
 */
export function leadUpStart(explained: readonly (readonly Signal[])[], onset: number): number {
  const before: number[] = []
  for (const series of explained) {
    const hi = firstAtOrAfter(series, onset)
    for (let i = firstAtOrAfter(series, onset - LEAD_MAX_MS); i < hi; i++) before.push(series[i].at)
  }
  before.sort((a, b) => b - a)
  let start = onset
  for (const at of before) {
    if (start - at > LEAD_GAP_MS) break
    start = at
  }
  return start
}

/**
 * Identifies the raw line a point came from. A log line's source names its file and line, and its
 * text is the line: one GC line read as two signals is one line. Scrape samples share a source (the
 * target) and carry no text, so their time, name and labels tell them apart.
 */
function rawLineKey(source: string, at: number, text: string | undefined, name: string, labels: Readonly<Record<string, string>> | undefined): string {
  return text !== undefined ? `${source}\u0000${at}\u0000${text}` : `${source}\u0000${at}\u0000${name}\u0000${labelKey(labels)}`
}


/**
 * The n signals of list[lo, hi) nearest to t, walking outwards from t, skipping raw lines already
 * shown (and recording those it takes): O(log size + n + skipped).
 */
function nearestTo(list: readonly Signal[], lo: number, hi: number, t: number, n: number, shown: Set<string>): Signal[] {
  let right = Math.min(Math.max(firstAtOrAfter(list, t), lo), hi)
  let left = right - 1
  const out: Signal[] = []
  while (out.length < n && (left >= lo || right < hi)) {
    const s = right >= hi || (left >= lo && t - list[left].at <= list[right].at - t) ? list[left--] : list[right++]
    const key = rawLineKey(s.source, s.at, s.text, s.name, s.labels)
    if (shown.has(key)) continue
    shown.add(key)
    out.push(s)
  }
  return out
}
