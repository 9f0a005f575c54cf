/**
 * How a leak is told from a sawtooth or a warm-up. Heap after GC rises and falls as the old generation
 * fills and is collected; what a leak moves is the floor, the lowest it comes back to. So the floor is
 * the minimum of each twelfth of the window, and its least-squares slope is the trend. A slope needs
 * data across at least half its window: a minute of warm-up is never extrapolated into a day. The leak
 * rule (`floor_trend(heap.after_gc) over 24h`) and the digest's heap trend both read these functions.
 */

/** Share of a trend's window its samples must span before a slope is computed. */
export const TREND_MIN_COVERAGE = 0.5
/** Buckets per window whose minima make the floor. */
export const FLOOR_BUCKETS = 12

/** A time-stamped value: a signal, a chart point. */
export type Sample = { at: number; value?: number }

/**
 * The floor of a series: per bucket of `windowMs / FLOOR_BUCKETS` (aligned to the epoch, so every
 * window over the same data sees the same buckets), the sample with the lowest value, in time order.
 */
export function floorSamples<T extends Sample>(samples: readonly T[], windowMs: number): T[] {
  const size = Math.max(1, Math.floor(windowMs / FLOOR_BUCKETS))
  const out: T[] = []
  let bucket = Number.NaN
  for (const s of samples) {
    if (s.value === undefined || !Number.isFinite(s.value)) continue
    const b = Math.floor(s.at / size)
    if (b !== bucket) {
      out.push(s)
      bucket = b
    } else if (s.value < out[out.length - 1].value!) out[out.length - 1] = s
  }
  return out
}

/** True when samples from `firstAt` to `lastAt` cover enough of a window to have a trend. */
export function coversTrendWindow(firstAt: number, lastAt: number, windowMs: number): boolean {
  return lastAt - firstAt >= TREND_MIN_COVERAGE * windowMs
}

/** Least-squares slope in value per ms; undefined with fewer than two distinct times. */
export function slopePerMs(samples: readonly Sample[]): number | undefined {
  const n = samples.length
  if (n < 2) return undefined
  const t0 = samples[0].at
  let sx = 0
  let sy = 0
  for (const s of samples) {
    sx += s.at - t0
    sy += s.value!
  }
  const mx = sx / n
  const my = sy / n
  let num = 0
  let den = 0
  for (const s of samples) {
    num += (s.at - t0 - mx) * (s.value! - my)
    den += (s.at - t0 - mx) ** 2
  }
  return den === 0 ? undefined : num / den
}

/**
 * The slope of a series' floor over `windowMs` (value per ms), or undefined when the samples span
 * less than TREND_MIN_COVERAGE of it: the same reading the leak rule makes, for whoever charts it.
 */
export function floorTrend(samples: readonly Sample[], windowMs: number): number | undefined {
  const valued = samples.filter((s) => s.value !== undefined && Number.isFinite(s.value))
  if (valued.length < 2 || !coversTrendWindow(valued[0].at, valued[valued.length - 1].at, windowMs)) return undefined
  return slopePerMs(floorSamples(valued, windowMs))
}
