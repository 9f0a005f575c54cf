import type { Signal } from '../signals/signal.js'
import type { EvalData } from './match.js'
import { signalKind } from './signal-kind.js'

/**
 * Builds the evaluator's input from loose signals (any order, facts mixed in), so tests, replay and
 * the store loader all hand the evaluator the same sorted shape.
 */
export function buildEvalData(cluster: string, broker: string, signals: Iterable<Signal>, facts: Iterable<Signal> = []): EvalData {
  const series = new Map<string, Signal[]>()
  const factList: Signal[] = [...facts]
  for (const s of signals) {
    if (signalKind(s.name) === 'fact') {
      factList.push(s)
      continue
    }
    let list = series.get(s.name)
    if (!list) series.set(s.name, (list = []))
    list.push(s)
  }
  for (const list of series.values()) if (!isSorted(list)) list.sort((a, b) => a.at - b.at)
  return { cluster, broker, series, facts: latestFacts(factList) }
}

/** Keeps the latest fact per name and label set: facts compare the latest known value. */
export function latestFacts(facts: readonly Signal[]): Signal[] {
  const latest = new Map<string, Signal>()
  for (const f of facts) {
    const key = `${f.name}\u0000${labelKey(f.labels)}`
    const prev = latest.get(key)
    if (!prev || f.at >= prev.at) latest.set(key, f)
  }
  return [...latest.values()]
}

/** A stable text key for a label set, used to group series and to fingerprint alerts. */
export function labelKey(labels: Readonly<Record<string, string>> | undefined): string {
  if (!labels) return ''
  const names = Object.keys(labels).sort()
  return names.map((n) => `${n}=${JSON.stringify(labels[n])}`).join(',')
}

/** Merges time-sorted lists in one linear pass. */
export function mergeSorted(a: readonly Signal[], b: readonly Signal[]): Signal[] {
  if (a.length === 0) return [...b]
  if (b.length === 0) return [...a]
  const out: Signal[] = new Array(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) out[k++] = a[i].at <= b[j].at ? a[i++] : b[j++]
  while (i < a.length) out[k++] = a[i++]
  while (j < b.length) out[k++] = b[j++]
  return out
}

function isSorted(list: readonly Signal[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i].at < list[i - 1].at) return false
  return true
}
