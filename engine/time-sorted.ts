import type { Signal } from '../signals/signal.js'

/** Index of the first signal at or after `at` in a time-sorted list (binary search). */
export function firstAtOrAfter(list: readonly Signal[], at: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid].at < at) lo = mid + 1
    else hi = mid
  }
  return lo
}
