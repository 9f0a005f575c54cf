import type { AggregateCond, AggregateFn } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { describeAtom } from './describe-cond.js'
import { coveredMs } from './data-span.js'
import { factsOf } from './derived-facts.js'
import { coversTrendWindow, floorSamples } from './floor-trend.js'
import { atomFilter, compareValue, moreTelling } from './filter.js'
import type { EvalData, EvalWindow, Match, MatchValue } from './match.js'
import { signalDimension, signalKind } from './signal-kind.js'

/** Evidence kept per aggregate match: enough to draw the timeline, bounded so 100k events stay cheap. */
export const AGGREGATE_EVIDENCE = 12

/**
 * Aggregates as sliding windows `[t - over, t]` (inclusive). The value only changes when an event
 * enters or leaves, so it is computed exactly at those instants (plus the window's ends) with prefix
 * sums and a monotonic deque: linear in the events. Consecutive instants where the comparison holds
 * form one episode, reported as one match at its most telling value.
 */
export function evaluateAggregate(cond: AggregateCond, data: EvalData, window: EvalWindow): Match[] {
  const keep = atomFilter(cond.atom)
  const name = cond.atom.signal
  const raw = signalKind(name) === 'fact' ? factsOf(data).filter((f) => f.name === name) : (data.series.get(name) ?? [])
  const counter = signalKind(name) !== 'event' && raw.some((s) => s.value !== undefined)
  const needsValue = cond.fn === 'max' || cond.fn === 'min' || cond.fn === 'avg' || cond.fn === 'sum' || cond.fn === 'trend' || cond.fn === 'floor_trend' || counter
  // Rules often aggregate the same atom by the same labels with other windows or thresholds: the
  // grouping is done once per data set and shared (the groups are never mutated).
  let memo = groupings.get(data)
  if (!memo) groupings.set(data, (memo = new Map()))
  const memoKey = [describeAtom(cond.atom), cond.by.join(','), needsValue, window.to].join('\u0000')
  let groups = memo.get(memoKey)
  if (!groups) memo.set(memoKey, (groups = groupEvents(raw, cond.by, keep, needsValue, window.to)))
  const out: Match[] = []
  for (const g of groups.values()) slide(cond, cond.fn === 'floor_trend' ? floorGroup(g, cond.overMs) : g, counter, window, out, data.coverage)
  return out.sort((a, b) => a.at - b.at)
}

/**
 * One bucket of an atom's events, with their times and values copied into typed arrays: the sliding
 * window reads these contiguous arrays instead of chasing one object per event, which keeps its cost
 * per event flat when the events no longer fit in the CPU caches (and the copies are shared by every
 * rule over the same atom).
 */
type Group = { labels: Record<string, string>; events: Signal[]; at: Float64Array; value: Float64Array }
type Groups = Map<string, Group>
const groupings = new WeakMap<EvalData, Map<string, Groups>>()

/** An atom's events up to `to`, bucketed by the `by` labels (one bucket when there are none). */
function groupEvents(raw: readonly Signal[], by: readonly string[], keep: (s: Signal) => boolean, needsValue: boolean, to: number): Groups {
  const groups: Groups = new Map()
  const none = new Float64Array(0)
  const single: Group | undefined = by.length === 0 ? { labels: {}, events: [], at: none, value: none } : undefined
  if (single) groups.set('', single)
  for (const s of raw) {
    if (s.at > to) break
    if (!keep(s)) continue
    if (needsValue && !Number.isFinite(s.value)) continue
    if (single) {
      single.events.push(s)
      continue
    }
    // The key is built without allocating a label object per event: this loop sees every event.
    const key = by.length === 1 ? (s.labels?.[by[0]] ?? '') : by.map((b) => s.labels?.[b] ?? '').join('\u0000')
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { labels: Object.fromEntries(by.map((b) => [b, s.labels?.[b] ?? ''])), events: [], at: none, value: none }))
    g.events.push(s)
  }
  for (const g of groups.values()) {
    const n = g.events.length
    g.at = new Float64Array(n)
    g.value = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      g.at[i] = g.events[i].at
      g.value[i] = g.events[i].value ?? 0
    }
  }
  return groups
}

/** A group reduced to its floor (the lowest sample of each twelfth of the window), for floor_trend. */
function floorGroup(g: Group, overMs: number): Group {
  const events = floorSamples(g.events, overMs)
  const at = new Float64Array(events.length)
  const value = new Float64Array(events.length)
  for (let i = 0; i < events.length; i++) {
    at[i] = events[i].at
    value[i] = events[i].value ?? 0
  }
  return { labels: g.labels, events, at, value }
}

/** Dimension and suffix of an aggregate's value, for `{signal}` interpolation. */
export function aggregateDimension(fn: AggregateFn, signal: string): Omit<MatchValue, 'value'> {
  const dim = signalDimension(signal)
  switch (fn) {
    case 'count':
      return { dimension: 'count' }
    case 'rate':
      return { dimension: 'rate' }
    case 'trend':
    case 'floor_trend':
      return dim === 'none' || dim === 'count' ? { dimension: 'rate' } : { dimension: dim, suffix: '/s' }
    default:
      return { dimension: dim === 'none' ? 'count' : dim }
  }
}

function slide(cond: AggregateCond, group: Group, counter: boolean, window: EvalWindow, out: Match[], coverage?: { from: number; to: number }): void {
  const { events, labels, at, value: val } = group
  const w = cond.overMs
  const n = events.length
  const t0 = n ? at[0] : 0
  const y0 = n ? val[0] : 0
  // Prefix sums: P[i] is the sum over events[0..i); only those the function reads are filled.
  const fn = cond.fn
  const wantSum = fn === 'sum' || fn === 'avg'
  const wantTrend = fn === 'trend' || fn === 'floor_trend'
  const wantInc = counter && (fn === 'rate' || fn === 'increase')
  const sized = (on: boolean) => new Float64Array(on ? n + 1 : 1)
  const sum = sized(wantSum)
  const sx = sized(wantTrend)
  const sy = sized(wantTrend)
  const sxy = sized(wantTrend)
  const sxx = sized(wantTrend)
  // inc[i]: counter increase from events[0] to events[i], a drop counting as a reset.
  const inc = sized(wantInc)
  for (let i = 0; i < n && (wantSum || wantTrend || wantInc); i++) {
    const v = val[i]
    if (wantSum) sum[i + 1] = sum[i] + v
    if (wantTrend) {
      const x = (at[i] - t0) / 1000
      const y = v - y0
      sx[i + 1] = sx[i] + x
      sy[i + 1] = sy[i] + y
      sxy[i + 1] = sxy[i] + x * y
      sxx[i + 1] = sxx[i] + x * x
    }
    if (wantInc && i > 0) {
      const prev = val[i - 1]
      inc[i] = inc[i - 1] + (v >= prev ? v - prev : v)
    }
  }
  const wantMax = fn === 'max'
  const wantMin = fn === 'min'
  // The instants where the window's content changes, generated in order without an array: each
  // event's arrival, its departure (one ms after it is `over` old), and the window's ends.
  let arrive = 0
  let depart = 0
  const nextPoint = (p: number): number | undefined => {
    while (arrive < n && at[arrive] <= p) arrive++
    while (depart < n && at[depart] + w + 1 <= p) depart++
    const next = Math.min(arrive < n ? at[arrive] : Infinity, depart < n ? at[depart] + w + 1 : Infinity)
    if (next < window.to) return next
    return p < window.to ? window.to : undefined
  }
  const maxDeque: number[] = []
  const minDeque: number[] = []
  let maxHead = 0
  let minHead = 0
  let lo = 0
  let hi = 0
  let episode: { start: number; startLo: number; last: number; best: number; bestLo: number; bestHi: number; extreme: number } | undefined
  const flush = () => {
    if (!episode) return
    out.push(episodeMatch(cond, events, labels, episode))
    episode = undefined
  }
  for (let p: number | undefined = window.from; p !== undefined; p = nextPoint(p)) {
    while (hi < n && at[hi] <= p) {
      const v = val[hi]
      if (wantMax) {
        while (maxDeque.length > maxHead && val[maxDeque[maxDeque.length - 1]] <= v) maxDeque.pop()
        maxDeque.push(hi)
      }
      if (wantMin) {
        while (minDeque.length > minHead && val[minDeque[minDeque.length - 1]] >= v) minDeque.pop()
        minDeque.push(hi)
      }
      hi++
    }
    while (lo < hi && at[lo] < p - w) lo++
    while (maxHead < maxDeque.length && maxDeque[maxHead] < lo) maxHead++
    while (minHead < minDeque.length && minDeque[minHead] < lo) minHead++
    const count = hi - lo
    let value: number | undefined
    let extreme = -1
    switch (cond.fn) {
      case 'count':
        value = count
        break
      case 'rate':
        // Over the part of the window the data covers: 6 rebalances in a 10-minute excerpt are 36 an hour.
        value = (counter ? (count >= 2 ? inc[hi - 1] - inc[lo] : 0) : count) / (coveredMs(coverage, p, w) / 1000)
        break
      case 'increase':
        value = counter ? (count >= 2 ? inc[hi - 1] - inc[lo] : 0) : count
        break
      case 'sum':
        value = sum[hi] - sum[lo]
        break
      case 'avg':
        value = count ? (sum[hi] - sum[lo]) / count : undefined
        break
      case 'max':
        extreme = count ? maxDeque[maxHead] : -1
        value = count ? val[extreme] : undefined
        break
      case 'min':
        extreme = count ? minDeque[minHead] : -1
        value = count ? val[extreme] : undefined
        break
      case 'trend':
      case 'floor_trend': {
        // No slope from data covering too little of the window: minutes are never extrapolated to a day.
        if (count < 2 || !coversTrendWindow(at[lo], at[hi - 1], w)) break
        const X = sx[hi] - sx[lo]
        const Y = sy[hi] - sy[lo]
        const denom = count * (sxx[hi] - sxx[lo]) - X * X
        value = denom > 0 ? (count * (sxy[hi] - sxy[lo]) - X * Y) / denom : undefined
        break
      }
    }
    if (value === undefined || !compareValue(value, cond.compare)) {
      flush()
      continue
    }
    if (!episode) episode = { start: p, startLo: lo, last: p, best: value, bestLo: lo, bestHi: hi, extreme }
    else {
      episode.last = p
      if (moreTelling(cond.compare, value, episode.best)) Object.assign(episode, { best: value, bestLo: lo, bestHi: hi, extreme })
    }
  }
  flush()
}

function episodeMatch(
  cond: AggregateCond,
  events: readonly Signal[],
  labels: Record<string, string>,
  e: { start: number; startLo: number; last: number; best: number; bestLo: number; bestHi: number; extreme: number },
): Match {
  const evidence = sampleEvidence(events, e.bestLo, e.bestHi, e.extreme)
  return {
    at: e.start,
    firstAt: Math.min(e.start, events[e.startLo]?.at ?? e.start, evidence[0]?.at ?? e.start),
    lastAt: e.last,
    evidence,
    evidenceTotal: e.bestHi - e.bestLo,
    labels: { ...labels },
    values: { [cond.atom.signal]: { value: e.best, ...aggregateDimension(cond.fn, cond.atom.signal) } },
  }
}

/** Up to AGGREGATE_EVIDENCE events of the window, evenly spread, always with the first, last and extreme. */
function sampleEvidence(events: readonly Signal[], lo: number, hi: number, extreme: number): Signal[] {
  const size = hi - lo
  if (size <= AGGREGATE_EVIDENCE) return events.slice(lo, hi)
  const picks = new Set<number>([lo, hi - 1])
  if (extreme >= 0) picks.add(extreme)
  const step = (size - 1) / (AGGREGATE_EVIDENCE - 1)
  for (let k = 0; picks.size < AGGREGATE_EVIDENCE && k < AGGREGATE_EVIDENCE; k++) picks.add(lo + Math.round(k * step))
  return [...picks].sort((a, b) => a - b).map((i) => events[i])
}
