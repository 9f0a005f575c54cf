import { describe, expect, it } from 'vitest'
import { evaluateCond } from '../../engine/evaluate.js'
import { floorSamples, floorTrend } from '../../engine/floor-trend.js'
import type { Signal } from '../../signals/signal.js'
import { cond } from './parse.js'
import { data, sig } from './signals.js'

const MiB = 1024 ** 2
const DAY_S = 86_400
/** Heap after GC every 10 minutes for `hours`, from `at(t)` (t in seconds). */
const series = (hours: number, at: (t: number) => number): Signal[] =>
  Array.from({ length: hours * 6 }, (_, i) => sig('heap.after_gc', i * 600, Math.round(at(i * 600))))
/** A 40-minute sawtooth between 1.3 and 2.1 GiB around `floor(t)`. */
const sawtooth = (floor: (t: number) => number) => (t: number) => floor(t) + ((t % 2400) / 2400) * 800 * MiB
const leakRule = cond('floor_trend(heap.after_gc) over 24h > 20000')
const matchesAtEnd = (signals: Signal[]) => evaluateCond(leakRule, data(signals), { from: 0, to: DAY_S * 2000, now: DAY_S * 2000 })

describe('engine/floor-trend', () => {
  it.each([
    { name: 'a steady 40-minute sawtooth over a day', signals: series(24, sawtooth(() => 1300 * MiB)), slope: 0, leak: false },
    { name: 'the same sawtooth on a floor rising 2 GiB a day', signals: series(24, sawtooth((t) => 1300 * MiB + (t / DAY_S) * 2048 * MiB)), slope: (2048 * MiB) / DAY_S, leak: true },
    { name: 'an hour of warm-up, climbing fast (too little of a day to extrapolate)', signals: series(1, (t) => 100 * MiB + t * 50_000), slope: undefined, leak: false },
  ])('$name: the digest and the leak rule read the same floor', ({ signals, slope, leak }) => {
    const perSecond = floorTrend(signals, DAY_S * 1000)
    if (slope === undefined) expect(perSecond).toBeUndefined()
    else if (slope === 0) expect(Math.abs(perSecond! * 1000)).toBeLessThan(100) // bytes per second
    else expect((perSecond! * 1000) / slope).toBeCloseTo(1, 1)
    expect(matchesAtEnd(signals).length > 0).toBe(leak)
  })

  it('keeps the lowest sample of each twelfth of the window, in time order', () => {
    const s = [sig('heap.after_gc', 0, 5), sig('heap.after_gc', 3600, 3), sig('heap.after_gc', 7300, 9), sig('heap.after_gc', 8000, 4)]
    expect(floorSamples(s, DAY_S * 1000).map((x) => x.value)).toEqual([3, 4])
  })
})
