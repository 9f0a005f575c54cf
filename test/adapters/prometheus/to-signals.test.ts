import { describe, expect, it } from 'vitest'
import { parseExposition } from '../../../adapters/prometheus/exposition.js'
import { SampleConverter } from '../../../adapters/prometheus/to-signals.js'
import type { Signal } from '../../../signals/signal.js'

describe('adapters/prometheus/to-signals', () => {
  const at = (s: number) => 1_700_000_000_000 + s * 1000
  function scrape(c: SampleConverter, t: number, text: string): Signal[] {
    c.begin(at(t))
    const out = parseExposition(text).samples.flatMap((s) => c.convert(s))
    c.end()
    return out
  }

  it.each([
    // [naming, counter line template]
    ['1.x kafka-lowercase-naming', (v: number) => `kafka_server_replicamanager_isrshrinks_total ${v}`],
    ['0.x default', (v: number) => `kafka_server_ReplicaManager_Count{name="IsrShrinksPerSec",} ${v}`],
  ])('turns a %s counter into a per-second rate, across a reset', (_, line) => {
    const c = new SampleConverter({ cluster: 'c', broker: '1', source: 't' })
    expect(scrape(c, 0, line(100))).toEqual([])
    expect(scrape(c, 10, line(150))).toMatchObject([{ name: 'isr.shrink_rate', value: 5, at: at(10) }])
    // the broker restarted: the counter went down and counted 20 since zero
    c.begin(at(20))
    const reset = parseExposition(line(20)).samples.flatMap((s) => c.convert(s))
    const stats = c.end()
    expect(reset).toMatchObject([{ name: 'isr.shrink_rate', value: 2 }])
    expect(stats.counterResets).toBe(1)
    expect(scrape(c, 30, line(20))).toMatchObject([{ value: 0 }])
  })

  it('tells a restart by the process start time and forgets the old process counters', () => {
    const c = new SampleConverter({ cluster: 'c', broker: '1', source: 't' })
    const text = (start: number, gc: number) => `process_start_time_seconds ${start}\njvm_gc_collection_seconds_count{gc="G1 Young Generation"} ${gc}`
    expect(scrape(c, 0, text(1.7e9, 10)).map((s) => s.name)).toEqual(['process.start'])
    expect(scrape(c, 15, text(1.7e9, 40))).toMatchObject([{ name: 'gc.count', value: 2, labels: { collector: 'G1 Young Generation' } }])
    const after = scrape(c, 30, text(1.7e9 + 25, 45))
    expect(after.map((s) => s.name)).toEqual(['process.start', 'process.restart'])
    expect(after[1].labels).toEqual({ from: new Date(1.7e12).toISOString(), to: new Date(1.7e12 + 25_000).toISOString() })
    expect(scrape(c, 45, text(1.7e9 + 25, 60))).toMatchObject([{ name: 'gc.count', value: 1 }])
  })

  it('scales GC seconds per second into a ratio and keeps per-topic labels', () => {
    const c = new SampleConverter({ cluster: 'c', broker: '1', source: 't' })
    const text = (gcSum: number, conv: number) =>
      `jvm_gc_collection_seconds_sum{gc="G1 Old Generation"} ${gcSum}\nkafka_server_brokertopicmetrics_fetchmessageconversions_total{topic="orders"} ${conv}`
    scrape(c, 0, text(1, 0))
    expect(scrape(c, 10, text(3, 5000))).toMatchObject([
      { name: 'gc.time', value: 0.2, labels: { collector: 'G1 Old Generation' } },
      { name: 'fetch.down_conversion', value: 500, labels: { topic: 'orders' } },
    ])
  })

  it('remembers at most maxSeries counters and forgets series that vanish', () => {
    const c = new SampleConverter({ cluster: 'c', source: 't', maxSeries: 2 })
    const line = (topic: string) => `kafka_server_brokertopicmetrics_fetchmessageconversions_total{topic="${topic}"} 1`
    c.begin(at(0))
    for (const t of ['a', 'b', 'c']) parseExposition(line(t)).samples.forEach((s) => c.convert(s))
    expect(c.end().droppedSeries).toBe(1)
    expect(c.seriesCount).toBe(2)
    scrape(c, 10, line('a'))
    expect(c.seriesCount).toBe(1)
  })

  it('counts NaN where a number is needed instead of storing it', () => {
    const c = new SampleConverter({ cluster: 'c', source: 't' })
    c.begin(at(0))
    expect(parseExposition('process_open_fds NaN').samples.flatMap((s) => c.convert(s))).toEqual([])
    expect(c.end().nonFinite).toBe(1)
  })
})
