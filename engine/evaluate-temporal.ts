import type { TemporalCond } from '../dsl/ast.js'
import type { Match } from './match.js'
import { combinePair } from './combine.js'

/**
 * `A within D of B`, `A before B within D`, `A after B within D` as linear merges over two
 * time-sorted match lists. Each event is paired with its nearest partner (both directions), so the
 * result has at most |A| + |B| matches and the cost is linear, never |A| × |B|. Bounds are inclusive:
 * events exactly D apart match; equal timestamps satisfy `before` and `after`.
 */
export function evaluateTemporal(cond: TemporalCond, left: readonly Match[], right: readonly Match[]): Match[] {
  if (left.length === 0 || right.length === 0) return []
  const d = cond.windowMs
  // Keyed by li * |right| + ri: a number per pair, not a string (dense incidents make many pairs).
  const pairs = new Map<number, [Match, Match]>()
  const add = (l: Match, r: Match, li: number, ri: number) => {
    if (!isSelfPair(l, r)) pairs.set(li * right.length + ri, [l, r])
  }
  if (cond.op === 'within') {
    nearest(left, right, (i, j) => add(left[i], right[j], i, j), d, 'both')
    nearest(right, left, (j, i) => add(left[i], right[j], i, j), d, 'both')
  } else {
    // `A before B`: the earlier side is A; `A after B`: the earlier side is B.
    const [early, late] = cond.op === 'before' ? [left, right] : [right, left]
    const put = (e: number, l: number) => (cond.op === 'before' ? add(left[e], right[l], e, l) : add(left[l], right[e], l, e))
    nearest(late, early, (l, e) => put(e, l), d, 'backward')
    nearest(early, late, (e, l) => put(e, l), d, 'forward')
  }
  return [...pairs.values()].map(([l, r]) => combinePair(l, r)).sort((a, b) => a.at - b.at)
}

/**
 * For each item of `from`, the nearest item of `to` within d: looking back (to.at in [x - d, x]),
 * forward (to.at in [x, x + d]) or both (nearest either side; the earlier on a tie). Two monotone
 * pointers: `lo` is the first item at or after x, `hi` the first strictly after x.
 */
function nearest(
  from: readonly Match[],
  to: readonly Match[],
  emit: (fromIndex: number, toIndex: number) => void,
  d: number,
  direction: 'backward' | 'forward' | 'both',
): void {
  let lo = 0
  let hi = 0
  for (let i = 0; i < from.length; i++) {
    const x = from[i].at
    while (lo < to.length && to[lo].at < x) lo++
    while (hi < to.length && to[hi].at <= x) hi++
    if (direction === 'forward') {
      const f = pickForward(from[i], to, lo, x, d)
      if (f >= 0) emit(i, f)
      continue
    }
    const back = pickBack(from[i], to, hi - 1, x, d)
    if (direction === 'backward') {
      if (back >= 0) emit(i, back)
      continue
    }
    const fwd = pickForward(from[i], to, hi, x, d)
    if (back >= 0 && (fwd < 0 || x - to[back].at <= to[fwd].at - x)) emit(i, back)
    else if (fwd >= 0) emit(i, fwd)
  }
}

/** Last index ≤ k, skipping the item itself, whose time is within d before x. */
function pickBack(self: Match, to: readonly Match[], k: number, x: number, d: number): number {
  while (k >= 0 && isSelfPair(self, to[k])) k--
  return k >= 0 && x - to[k].at <= d ? k : -1
}

/** First index ≥ k, skipping the item itself, whose time is within d after x. */
function pickForward(self: Match, to: readonly Match[], k: number, x: number, d: number): number {
  while (k < to.length && isSelfPair(self, to[k])) k++
  return k < to.length && to[k].at - x <= d ? k : -1
}

/** The same single signal on both sides (`x before x`) is not a pair. */
function isSelfPair(a: Match, b: Match): boolean {
  return a.evidence.length === 1 && b.evidence.length === 1 && a.evidence[0] === b.evidence[0]
}
