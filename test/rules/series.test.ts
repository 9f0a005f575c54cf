import { describe, expect, it } from 'vitest'
import { expandValues, MAX_STEPS, parseSeriesLine, SeriesError, seriesToSignals } from '../../cli/rule-test/series.js'

describe('cli/rule-test/series', () => {
  it.each([
    ['1 2 3', [1, 2, 3]],
    ['0+10x3', [0, 10, 20, 30]],
    ['10-2x2', [10, 8, 6]],
    ['5x2', [5, 5, 5]],
    ['_ 1 _', [undefined, 1, undefined]],
    ['_x3 7', [undefined, undefined, undefined, 7]],
    ['1 _x2 2x1', [1, undefined, undefined, 2, 2]],
  ])('expands %s', (text, values) => {
    expect(expandValues(text, 'count')).toEqual(values)
  })

  it.each([
    ['3.3s', 'duration', 3300],
    ['7768ms', 'duration', 7768],
    ['512MiB', 'bytes', 512 * 1024 ** 2],
    ['20%', 'ratio', 0.2],
    ['120/m', 'rate', 2],
    ['0.10.2.1', 'version', 10002.001],
  ] as const)('reads %s in base units', (text, dimension, value) => {
    expect(expandValues(text, dimension)[0]).toBeCloseTo(value, 6)
  })

  it('expands units inside a ramp', () => {
    expect(expandValues('1GiB+512MiBx2', 'bytes')).toEqual([1024 ** 3, 1.5 * 1024 ** 3, 2 * 1024 ** 3])
  })

  it.each([
    ['3.3s', 'bytes', "'3.3s' is a duration, but this signal is measured in bytes"],
    ['abc', 'count', "'abc' is not a number"],
    ['2.8.1', 'duration', "'2.8.1' is a version"],
    [`1x${MAX_STEPS + 1}`, 'count', 'larger than'],
  ] as const)('refuses %s for a %s signal', (text, dimension, message) => {
    expect(() => expandValues(text, dimension)).toThrow(message)
  })

  it('points at the column of the bad value', () => {
    try {
      parseSeriesLine('safepoint.sync{broker="1"}: 0 0 3.3GiB')
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(SeriesError)
      expect((err as SeriesError).column).toBe(33)
    }
  })

  it('takes broker and cluster out of the labels and checks the rest against the catalogue', () => {
    const s = parseSeriesLine('isr.shrink{broker="3", cluster="prod", topic="orders", partition="4"}: 0 2')
    expect(s).toMatchObject({ name: 'isr.shrink', broker: '3', cluster: 'prod', labels: { topic: 'orders', partition: '4' } })
    expect(() => parseSeriesLine('isr.shrink{group="g"}: 1')).toThrow("isr.shrink has no label 'group'")
    expect(() => parseSeriesLine('safepoint.synch{broker="1"}: 1')).toThrow("unknown signal 'safepoint.synch'")
  })

  it('turns a valueless event sample n into n events, and keeps values of the others', () => {
    const start = Date.parse('2024-01-01T00:00:00Z')
    const shrinks = seriesToSignals(parseSeriesLine('isr.shrink{broker="1", topic="t"}: 0 3 _ 1'), { start, intervalMs: 1000, cluster: 'c', source: 'test' })
    expect(shrinks.map((s) => s.at - start)).toEqual([1000, 1000, 1000, 3000])
    expect(shrinks.every((s) => s.value === undefined && s.broker === '1' && s.labels?.topic === 't')).toBe(true)
    const pauses = seriesToSignals(parseSeriesLine('safepoint.sync{broker="1"}: _ 3.3s'), { start, intervalMs: 60_000, cluster: 'c', source: 'test' })
    expect(pauses).toEqual([expect.objectContaining({ at: start + 60_000, value: 3300, cluster: 'c' })])
  })
})
