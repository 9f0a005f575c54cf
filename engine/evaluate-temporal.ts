import type { TemporalCond } from '../dsl/ast.js'
import type { Match } from './match.js'
import { combinePair } from './combine.js'

/**
 * `A within D of B`, `A before B within D`, `A after B within D` as linear merges over two match
 * lists. Each match is an interval: a point for most events, [start, end] for a pause (its `firstAt`
 * to its `lastAt`), so an 8.7 s full GC stamped at its start and a session timeout logged right
 * after it are 0 s apart, not 9 s. The distance between two intervals is the gap between them (0 when
 * they overlap); `A before B` means A starts no later than B. Each match is paired with its nearest
 * partner (both directions), so the result has at most |A| + |B| matches and the cost is linear
 * (plus one sort by start), never |A| × |B|. Bounds are inclusive: matches exactly D apart pair.
 */
export function evaluateTemporal(cond: TemporalCond, left: readonly Match[], right: readonly Match[], leftIntervals = false, rightIntervals = false): Match[] {
  if (left.length === 0 || right.length === 0) return []
  const d = cond.windowMs
  const l = spans(left, leftIntervals)
  const r = spans(right, rightIntervals)
  // Keyed by li * |right| + ri: a number per pair, not a string (dense incidents make many pairs).
  const pairs = new Map<number, [Match, Match]>()
  const add = (li: number, ri: number) => {
    if (!isSelfPair(left[li], right[ri])) pairs.set(li * right.length + ri, [left[li], right[ri]])
  }
  if (cond.op === 'within') {
    nearest(l, r, (i, j) => add(i, j), d, 'both')
    nearest(r, l, (j, i) => add(i, j), d, 'both')
  } else {
    // `A before B`: the earlier side is A; `A after B`: the earlier side is B.
    const [early, late] = cond.op === 'before' ? [l, r] : [r, l]
    const put = (e: number, la: number) => (cond.op === 'before' ? add(e, la) : add(la, e))
    nearest(late, early, (la, e) => put(e, la), d, 'backward')
    nearest(early, late, (e, la) => put(e, la), d, 'forward')
  }
  return [...pairs.values()].map(([a, b]) => combinePair(a, b)).sort((a, b) => a.at - b.at)
}

/** A list's intervals sorted by start, each with the index of its match in the original list. */
type Spans = { start: Float64Array; end: Float64Array; index: Int32Array; matches: readonly Match[] }

function spans(matches: readonly Match[], intervals: boolean): Spans {
  const n = matches.length
  const order = Array.from({ length: n }, (_, i) => i)
  const startOf = (m: Match) => (intervals ? m.firstAt : m.at)
  const endOf = (m: Match) => (intervals ? m.lastAt : m.at)
  // Sorted by `at` already; only intervals of different lengths can change the order of their starts.
  if (intervals) order.sort((a, b) => startOf(matches[a]) - startOf(matches[b]) || a - b)
  const start = new Float64Array(n)
  const end = new Float64Array(n)
  const index = new Int32Array(n)
  for (let k = 0; k < n; k++) {
    const m = matches[order[k]]
    start[k] = startOf(m)
    end[k] = endOf(m)
    index[k] = order[k]
  }
  return { start, end, index, matches }
}

/**
 * For each interval x of `from`, the nearest interval of `to` within d:
 * - backward: among those starting no later than x, the one ending last (gap = x.start - its end);
 * - forward: among those starting no earlier than x, the one starting first (gap = its start - x.end);
 * - both: the nearer of the two, the backward one on a tie (those starting at x's start count as backward).
 * `from` is walked in start order, so the prefix maximum of ends and the pointers only move forward.
 */
function nearest(from: Spans, to: Spans, emit: (fromIndex: number, toIndex: number) => void, d: number, direction: 'backward' | 'forward' | 'both'): void {
  let lo = 0 // first of `to` starting at or after x.start
  let hi = 0 // first of `to` starting strictly after x.start
  // The two latest-ending intervals among to[0..hi): the second stands in when the first is x itself.
  let best = -1
  let second = -1
  const n = to.start.length
  for (let k = 0; k < from.start.length; k++) {
    const xs = from.start[k]
    const xe = from.end[k]
    const self = from.matches[from.index[k]]
    while (lo < n && to.start[lo] < xs) lo++
    while (hi < n && to.start[hi] <= xs) {
      if (best < 0 || to.end[hi] > to.end[best]) {
        second = best
        best = hi
      } else if (second < 0 || to.end[hi] > to.end[second]) second = hi
      hi++
    }
    const back = best >= 0 && !isSelfPair(self, to.matches[to.index[best]]) ? best : second >= 0 && !isSelfPair(self, to.matches[to.index[second]]) ? second : -1
    const backGap = back >= 0 ? Math.max(0, xs - to.end[back]) : Infinity
    if (direction === 'backward') {
      if (backGap <= d) emit(from.index[k], to.index[back])
      continue
    }
    let f = direction === 'forward' ? lo : hi
    while (f < n && isSelfPair(self, to.matches[to.index[f]])) f++
    const fwdGap = f < n ? Math.max(0, to.start[f] - xe) : Infinity
    if (direction === 'forward') {
      if (fwdGap <= d) emit(from.index[k], to.index[f])
      continue
    }
    if (backGap <= d && backGap <= fwdGap) emit(from.index[k], to.index[back])
    else if (fwdGap <= d) emit(from.index[k], to.index[f])
  }
}

/** The same single signal on both sides (`x before x`) is not a pair. */
function isSelfPair(a: Match, b: Match): boolean {
  return a.evidence.length === 1 && b.evidence.length === 1 && a.evidence[0] === b.evidence[0]
}

/** The gap between two intervals, 0 when they overlap: how far apart a near miss's two sides were. */
export function intervalGap(aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  return Math.max(0, bStart - aEnd, aStart - bEnd)
}
