import type { Signal } from '../signals/signal.js'
import type { Match } from './match.js'

/**
 * One match made of several (a temporal pair, the operands of `and`): the evidence of all of them,
 * holding from the latest start. Placeholders keep the first operand's value for a name.
 */
export function combineMatches(parts: readonly Match[]): Match {
  const seen = new Set<Signal>()
  const evidence: Signal[] = []
  let duplicates = 0
  for (const p of parts)
    for (const s of p.evidence) {
      if (seen.has(s)) duplicates++
      else {
        seen.add(s)
        evidence.push(s)
      }
    }
  evidence.sort((a, b) => a.at - b.at)
  const labels: Record<string, string> = {}
  const values: Match['values'] = {}
  for (const p of parts) {
    Object.assign(labels, p.labels)
    for (const [k, v] of Object.entries(p.values)) if (!(k in values)) values[k] = v
  }
  return {
    at: parts.reduce((m, p) => Math.max(m, p.at), -Infinity),
    firstAt: parts.reduce((m, p) => Math.min(m, p.firstAt), Infinity),
    lastAt: parts.reduce((m, p) => Math.max(m, p.lastAt), -Infinity),
    evidence,
    evidenceTotal: parts.reduce((n, p) => n + p.evidenceTotal, 0) - duplicates,
    labels,
    values,
  }
}

/**
 * combineMatches([a, b]) without its general-case allocations: temporal operators and `and` build one
 * of these per pair, and a dense incident yields tens of thousands of pairs. Same result, field for field.
 */
export function combinePair(a: Match, b: Match): Match {
  const x = a.evidence
  const y = b.evidence
  // A stable merge of two time-sorted lists, a's first on equal times; a signal in both is kept once.
  const evidence: Signal[] = new Array(x.length + y.length)
  let i = 0
  let j = 0
  let k = 0
  let duplicates = 0
  while (i < x.length || j < y.length) {
    if (j >= y.length || (i < x.length && x[i].at <= y[j].at)) {
      evidence[k++] = x[i++]
      continue
    }
    const s = y[j++]
    if (inRun(x, s) || inRun(y, s, j - 1)) duplicates++
    else evidence[k++] = s
  }
  evidence.length = k
  const values: Match['values'] = { ...a.values }
  for (const key in b.values) if (!(key in values)) values[key] = b.values[key]
  return {
    at: Math.max(a.at, b.at),
    firstAt: Math.min(a.firstAt, b.firstAt),
    lastAt: Math.max(a.lastAt, b.lastAt),
    evidence,
    evidenceTotal: a.evidenceTotal + b.evidenceTotal - duplicates,
    labels: { ...a.labels, ...b.labels },
    values,
  }
}

/** Whether s occurs in list among the signals of its own time (before index `before`, when given). */
function inRun(list: readonly Signal[], s: Signal, before = list.length): boolean {
  let lo = 0
  let hi = before
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid].at < s.at) lo = mid + 1
    else hi = mid
  }
  for (let m = lo; m < before && list[m].at === s.at; m++) if (list[m] === s) return true
  return false
}

/** True when two label sets agree on every name they share (so `and` may join them). */
export function labelsCompatible(a: Record<string, string>, b: Record<string, string>): boolean {
  for (const k of Object.keys(a)) if (k in b && b[k] !== a[k]) return false
  return true
}
