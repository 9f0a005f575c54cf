import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'

/**
 * A disk that fills steadily is a failure with a date: the broker halts with "No space left on device"
 * when it runs out. Neither node-exporter nor the host agent says when that is, only how much is
 * free, so the engine derives it per broker and file system: the least-squares slope of free bytes
 * over the last FILL_FIT_WINDOW_MS (and over its recent half, so a burst that has ended does not
 * count), and the free bytes divided by that fall.
 */
export const TIME_TO_FULL_SERIES = 'disk.time_to_full'

/** The per-broker series the time to full is worked out from. */
export const TIME_TO_FULL_SOURCE = 'disk.avail'

/**
 * The fill rate is fitted over this much history: long enough that one segment deleted by retention
 * (log.retention.check.interval.ms, 5 minutes by default) or a burst does not decide it alone.
 */
export const FILL_FIT_WINDOW_MS = 10 * 60_000

/** A fit needs samples spanning at least this much of the window, and at least FILL_FIT_MIN_SAMPLES. */
export const FILL_FIT_MIN_SPAN_MS = 5 * 60_000
export const FILL_FIT_MIN_SAMPLES = 5

/** True for the name deriveTimeToFull computes. */
export function isTimeToFullSeries(name: string): boolean {
  return name === TIME_TO_FULL_SERIES
}

const seriesKey = (s: Signal) => `${s.labels?.path ?? ''}\u0000${s.labels?.device ?? ''}`

/**
 * The derived series from one broker's disk.avail samples (any order, any file systems): at each
 * sample whose file system lost space over the fit window, one sample valued the time to full (ms),
 * labelled with the file system; its text gives the free bytes and the fill rate. A file system that holds steady or gains space
 * yields nothing there, so a sustained `disk.time_to_full < X for D` needs it to keep filling. Each
 * fit reads the samples of one window, a bounded number at any scrape interval.
 */
export function deriveTimeToFull(avail: readonly Signal[]): Signal[] {
  const groups = new Map<string, Signal[]>()
  for (const s of avail) {
    if (s.value === undefined || !Number.isFinite(s.value)) continue
    const key = seriesKey(s)
    const list = groups.get(key)
    if (list) list.push(s)
    else groups.set(key, [s])
  }
  const out: Signal[] = []
  for (const list of groups.values()) {
    list.sort((a, b) => a.at - b.at)
    let start = 0
    for (let end = 0; end < list.length; end++) {
      const last = list[end]
      while (list[start].at < last.at - FILL_FIT_WINDOW_MS) start++
      const count = end - start + 1
      if (count < FILL_FIT_MIN_SAMPLES || last.at - list[start].at < FILL_FIT_MIN_SPAN_MS) continue
      // A steady fill falls over the whole window and over its recent half; a burst that has ended
      // still tilts the whole window, but not its recent half. The slower of the two rates is taken.
      const span = last.at - list[start].at
      let mid = start
      while (list[mid].at < last.at - span / 2) mid++
      if (end - mid + 1 < 3) continue
      const slope = Math.max(slopePerMs(list, start, end), slopePerMs(list, mid, end))
      if (!(slope < 0)) continue
      const fillPerSecond = -slope * 1000
      const timeToFull = Math.max(0, last.value!) / -slope
      const path = last.labels?.path
      const rate = `${formatValue(fillPerSecond, 'bytes')}/s`
      // Only the file system's own labels: a sustained condition follows one label set, and the rate changes with every sample.
      const labels: Record<string, string> = { ...(last.labels ?? {}) }
      out.push({
        name: TIME_TO_FULL_SERIES,
        at: last.at,
        cluster: last.cluster,
        ...(last.broker !== undefined ? { broker: last.broker } : {}),
        value: timeToFull,
        labels,
        source: `derived:${last.source}`,
        text: `${path ?? 'a file system'}: ${formatValue(last.value!, 'bytes')} free, filling at ${rate} over the last ${formatValue(last.at - list[start].at, 'duration')} (${count} samples): full in ${formatValue(timeToFull, 'duration')}`,
      })
    }
  }
  return out.sort((a, b) => a.at - b.at)
}

/** Least-squares slope of value over time (bytes per ms) of list[start..end], centred so large values keep their precision. */
function slopePerMs(list: readonly Signal[], start: number, end: number): number {
  const n = end - start + 1
  const t0 = list[start].at
  let meanT = 0
  let meanV = 0
  for (let i = start; i <= end; i++) {
    meanT += list[i].at - t0
    meanV += list[i].value!
  }
  meanT /= n
  meanV /= n
  let sxy = 0
  let sxx = 0
  for (let i = start; i <= end; i++) {
    const dt = list[i].at - t0 - meanT
    sxy += dt * (list[i].value! - meanV)
    sxx += dt * dt
  }
  return sxx === 0 ? 0 : sxy / sxx
}
