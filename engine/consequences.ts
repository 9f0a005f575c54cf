import type { Rule } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import type { Cause, Evidence } from './diagnosis.js'
import { toEvidence } from './evidence.js'
import type { EvalData, EvalWindow } from './match.js'

/** Consequence points per explained signal and in all, nearest the match first. */
const CONSEQUENCES_PER_SIGNAL = 5
const CONSEQUENCES_TOTAL = 20

/**
 * The signals a cause `explains`, as they occurred in the window, nearest the match first and capped,
 * joined into its timeline as consequences. Each explained signal present also corroborates the cause.
 */
export function addConsequences(cause: Cause, rule: Rule, data: EvalData, window: EvalWindow): void {
  const own = new Set(cause.evidence.map((e) => e.signal))
  const picked: Evidence[] = []
  let present = 0
  let omitted = 0
  for (const { signal } of rule.explains) {
    // A consequence follows its cause: nothing before the cause's first evidence counts.
    const series = data.series.get(signal) ?? []
    const lo = firstAtOrAfter(series, Math.max(window.from, cause.firstAt))
    const hi = firstAtOrAfter(series, window.to + 1)
    if (hi <= lo) continue
    if (!own.has(signal)) present++
    const nearest = nearestTo(series, lo, hi, cause.matchedAt, CONSEQUENCES_PER_SIGNAL)
    omitted += hi - lo - nearest.length
    picked.push(...nearest.map((s) => toEvidence(s, true)))
  }
  picked.sort((a, b) => Math.abs(a.at - cause.matchedAt) - Math.abs(b.at - cause.matchedAt))
  omitted += Math.max(0, picked.length - CONSEQUENCES_TOTAL)
  cause.evidence = [...cause.evidence, ...picked.slice(0, CONSEQUENCES_TOTAL)].sort((a, b) => a.at - b.at)
  cause.corroboration += present
  if (omitted) cause.consequencesOmitted = omitted
}

/** Index of the first signal at or after t in a time-sorted list (binary search). */
function firstAtOrAfter(list: readonly Signal[], t: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid].at < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The n signals of list[lo, hi) nearest to t, walking outwards from t: O(log size + n). */
function nearestTo(list: readonly Signal[], lo: number, hi: number, t: number, n: number): Signal[] {
  let right = Math.min(Math.max(firstAtOrAfter(list, t), lo), hi)
  let left = right - 1
  const out: Signal[] = []
  while (out.length < n && (left >= lo || right < hi)) {
    if (right >= hi || (left >= lo && t - list[left].at <= list[right].at - t)) out.push(list[left--])
    else out.push(list[right++])
  }
  return out
}

