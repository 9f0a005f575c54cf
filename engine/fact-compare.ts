import type { Comparison } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { factsOf } from './derived-facts.js'
import { compareValue } from './filter.js'
import type { EvalData } from './match.js'

/**
 * Comparisons whose right side is a fact of the broker (`gc.pause > 33% of zk.session_timeout_limit`):
 * the threshold is that fact's value at the event's time, times the share. Facts are few, so each
 * name's values are sorted once per data set and every event costs one short scan.
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

/** The literal threshold a comparison stands for at `t`; undefined when it names a fact nobody recorded. */
export function thresholdAt(cmp: Comparison, data: EvalData, t: number): number | undefined {
  if (!cmp.of) return cmp.value.value
  const f = factAt(data, cmp.of.signal, t)
  return f ? f.value! * cmp.value.value : undefined
}

/** `compareValue` for any comparison: a literal, or a share of the fact in force at `t`. */
export function compareAt(value: number | undefined, cmp: Comparison, data: EvalData, t: number): boolean {
  if (!cmp.of) return compareValue(value, cmp)
  const threshold = thresholdAt(cmp, data, t)
  if (threshold === undefined) return false
  return compareValue(value, { op: cmp.op, value: { ...cmp.value, value: threshold } })
}
