import { describe, expect, it } from 'vitest'
import { evaluatePartition, lagSecondsAt, type CommitPoint, type LagStatus } from '../../engine/consumer-lag-status.js'

/**
 * Burrow's correctness table for its evaluator, case by case as linkedin/Burrow states it in
 * core/internal/evaluator/caching_test.go (`var tests`, cases 0–15; master at ced55ba): each case's
 * commits (offset, timestamp in ms, lag when Burrow received it; `null` where Burrow stores none),
 * its ring of broker offsets, the current lag, "now" (Burrow's timeNow, in seconds), the allowed lag
 * and the status Burrow's calculatePartitionStatus returns. STOP, STALL and REWIND are Burrow's
 * names for STOPPED, STALLED and REWIND.
 */
type BurrowCase = [index: number, why: string, commits: [number, number, number | null][], brokerOffsets: number[], currentLag: number, timeNowS: number, allowedLag: number, status: LagStatus]

const s = (offset: number, ts: number, lag: number | null): [number, number, number | null] => [offset, ts, lag]
const five = (offsets: number[], lags: number[]) => offsets.map((o, i) => s(o, (i + 1) * 100000, lags[i]))
const burrow9 = Array.from({ length: 15 }, (_, i) => s(792748079 + i, [1512224618356, 1512224619362, 1512224620366, 1512224621367, 1512224622370, 1512224623373, 1512224624378, 1512224625379, 1512224626383, 1512224627383, 1512224628383, 1512224629388, 1512224630391, 1512224631394, 1512224632397][i], 0))

const CASES: BurrowCase[] = [
  [0, 'OK because there is zero lag somewhere', five([1000, 2000, 3000, 4000, 5000], [0, 50, 100, 150, 200]), [5200], 200, 600, 0, 'OK'],
  [1, 'not stopped: time since the last commit (400 s) equals the window span, not greater', five([1000, 2000, 3000, 4000, 5000], [0, 50, 100, 150, 200]), [5200], 200, 900, 0, 'OK'],
  [2, 'STOP: time since the last commit (500 s) is long enough, even with zero lag at the start (Burrow #290)', five([1000, 2000, 3000, 4000, 5000], [0, 50, 100, 150, 200]), [5200], 200, 1000, 0, 'STOPPED'],
  [3, 'STOP when lag is always non-zero as well', five([1000, 2000, 3000, 4000, 5000], [50, 100, 150, 200, 250]), [5250], 250, 1000, 0, 'STOPPED'],
  [4, 'OK because of zero lag, though the offset never moves', five([1000, 1000, 1000, 1000, 1000], [0, 50, 100, 150, 200]), [1200], 200, 600, 0, 'OK'],
  [5, 'STALL: the offset never moves and the lag is always non-zero', five([1000, 1000, 1000, 1000, 1000], [100, 150, 200, 250, 300]), [1300], 300, 600, 0, 'STALLED'],
  [6, 'still STALL when the lag stays the same', five([1000, 1000, 1000, 1000, 1000], [100, 100, 100, 100, 100]), [1100], 100, 600, 0, 'STALLED'],
  [7, 'OK: the offsets go back, but the consumer caught up past the rewind and its lag decreased', five([1000, 2000, 3000, 2000, 4000], [100, 150, 200, 1250, 300]), [4300], 300, 600, 0, 'OK'],
  [8, 'OK because the current lag is 0, though the timestamps say stopped', five([1000, 2000, 3000, 4000, 5000], [50, 100, 150, 200, 250]), [5250], 0, 1000, 0, 'OK'],
  [9, 'STOP from the timestamps: the current lag is non-zero, only because there is new data (Burrow #290)', burrow9, [792749024, 792749000, 792748800, 792748600, 792748500], 931, 1512224650, 0, 'STOPPED'],
  [10, 'OK: stopped by the timestamps, but a recent broker offset shows zero lag (Burrow #303)', burrow9, [792748094, 792748093, 792748093, 792748093], 1, 1512224650, 0, 'OK'],
  [
    11,
    'case 0 with commits whose lag is unknown, which change nothing',
    [1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 5500].map((o, i) => s(o, 100000 + i * 50000, i % 2 ? null : (i / 2) * 50)),
    [5700],
    200,
    600,
    0,
    'OK',
  ],
  [12, 'OK: lag and stopped by the timestamps, but within the allowed lag', [s(1000, 100000, 2), s(2000, 200000, 1), s(2000, 300000, 1)], [2001], 1, 550, 1, 'OK'],
  [13, 'case 5 with an allowed lag of 99', five([1000, 1000, 1000, 1000, 1000], [100, 150, 200, 250, 300]), [1300], 300, 600, 99, 'STALLED'],
  [14, 'case 7 with an allowed lag of 99', five([1000, 2000, 3000, 2000, 4000], [100, 150, 200, 1250, 300]), [4300], 300, 600, 99, 'OK'],
  [15, 'REWIND: the offset went back and has not caught up to where it was', five([1000, 2000, 3000, 2000, 2500], [100, 150, 200, 1250, 300]), [4300], 300, 600, 0, 'REWIND'],
]

describe('engine/consumer-lag-status', () => {
  it.each(CASES)("Burrow's case %i: %s", (_i, _why, commits, brokerOffsets, currentLag, timeNowS, allowedLag, status) => {
    const points: CommitPoint[] = commits.map(([offset, at, lag]) => (lag === null ? { offset, at } : { offset, at, lag }))
    expect(evaluatePartition({ commits: points, recentLogEnds: brokerOffsets, currentLag }, timeNowS * 1000, allowedLag).status).toBe(status)
  })

  it('no commits yet is OK: nothing to judge', () => {
    expect(evaluatePartition({ commits: [], recentLogEnds: [10], currentLag: 10 }, 1000)).toEqual({ status: 'OK', rule: 'no-commits' })
  })

  describe('lagSecondsAt (kafka-lag-exporter interpolation)', () => {
    const history = [
      { at: 0, offset: 0 },
      { at: 30_000, offset: 300 },
      { at: 60_000, offset: 1500 },
    ]
    it.each([
      ['committed at the log end: no lag', 1500, 90_000, 0],
      ['halfway between two samples: the time halfway between them', 150, 60_000, 45],
      ['on a sample', 300, 60_000, 30],
      ['in the burst, where offsets grew fast', 900, 60_000, 15],
      ['older than the history: extrapolated at the overall rate', -750, 60_000, 90],
    ])('%s', (_, committed, now, seconds) => {
      expect(lagSecondsAt(history, committed, now)).toBeCloseTo(seconds, 6)
    })
    it('one point says nothing about time', () => {
      expect(lagSecondsAt([{ at: 0, offset: 10 }], 5, 1000)).toBeUndefined()
    })
  })
})
