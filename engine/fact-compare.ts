import type { Comparison } from '../dsl/ast.js'
import { lookupSignal } from '../signals/catalogue.js'
import type { Signal } from '../signals/signal.js'
import { factsOf } from './derived-facts.js'
import { compareValue } from './filter.js'
import type { EvalData } from './match.js'

/**
 * Comparisons whose right side is a fact of the broker (`gc.pause > 33% of zk.session_timeout_limit`):
 * the threshold is that fact's value at the event's time, times the share. Facts are few, so each
 * name's values are sorted once per data set and every event costs one short scan. The right side may
 * also be a gauge of the broker, read at the sample's time with its labels: which part of a request's
 * time dominates is a share of its total, not an absolute number.
 */

const sortedFacts = new WeakMap<EvalData, Map<string, Signal[]>>()

function factsNamed(data: EvalData, name: string): Signal[] {
  let byName = sortedFacts.get(data)
  if (!byName) sortedFacts.set(data, (byName = new Map()))
  let list = byName.get(name)
  if (!list) byName.set(name, (list = factsOf(data).filter((f) => f.name === name && f.value !== undefined).sort((a, b) => a.at - b.at)))
  return list
}

/**
 * The fact in force at `t`: the latest recorded at or before it, else the earliest recorded after
 * (a timeout logged when the session was re-established still describes the session before).
 */
export function factAt(data: EvalData, name: string, t: number): Signal | undefined {
  const list = factsNamed(data, name)
  let best: Signal | undefined
  for (const f of list) {
    if (f.at > t) break
    best = f
  }
  return best ?? list[0]
}

/**
 * The sample of gauge `name` in force at `t` for the compared sample's labels (those the gauge has):
 * `request.local_time_p99{request="Produce"} > 50% of request.total_time_p99` reads the Produce total
 * of the same scrape, not another request's.
 */
export function gaugeAt(data: EvalData, name: string, t: number, labels: Readonly<Record<string, string>> | undefined): Signal | undefined {
  const own = lookupSignal(name)?.labels ?? []
  const list = data.series.get(name) ?? []
  // The latest sample at or before t: binary search, then back over other label sets.
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid].at <= t) lo = mid + 1
    else hi = mid
  }
  for (let i = lo - 1; i >= 0; i--) {
    const s = list[i]
    if (s.value !== undefined && own.every((l) => s.labels?.[l] === labels?.[l])) return s
  }
  return undefined
}

/**
 * The literal threshold a comparison stands for at `t`; undefined when it names a fact nobody
 * recorded, or a gauge with no sample yet for the compared sample's labels.
 */
export function thresholdAt(cmp: Comparison, data: EvalData, t: number, labels?: Readonly<Record<string, string>>): number | undefined {
  if (!cmp.of) return cmp.value.value
  const f = lookupSignal(cmp.of.signal)?.kind === 'gauge' ? gaugeAt(data, cmp.of.signal, t, labels) : factAt(data, cmp.of.signal, t)
  return f?.value !== undefined ? f.value * cmp.value.value : undefined
}

/** `compareValue` for any comparison: a literal, or a share of the fact (or gauge) in force at `t`. */
export function compareAt(value: number | undefined, cmp: Comparison, data: EvalData, t: number, labels?: Readonly<Record<string, string>>): boolean {
  if (!cmp.of) return compareValue(value, cmp)
  const threshold = thresholdAt(cmp, data, t, labels)
  if (threshold === undefined) return false
  return compareValue(value, { op: cmp.op, value: { ...cmp.value, value: threshold } })
}
