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
    at: Math.max(...parts.map((p) => p.at)),
    firstAt: Math.min(...parts.map((p) => p.firstAt)),
    lastAt: Math.max(...parts.map((p) => p.lastAt)),
    evidence,
    evidenceTotal: parts.reduce((n, p) => n + p.evidenceTotal, 0) - duplicates,
    labels,
    values,
  }
}

/** True when two label sets agree on every name they share (so `and` may join them). */
export function labelsCompatible(a: Record<string, string>, b: Record<string, string>): boolean {
  for (const k of Object.keys(a)) if (k in b && b[k] !== a[k]) return false
  return true
}
