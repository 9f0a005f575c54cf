import { describe, expect, it } from 'vitest'
import type { Cond } from '../../dsl/ast.js'
import { buildEvalData } from '../../engine/eval-data.js'
import { evaluateCond } from '../../engine/evaluate.js'
import type { Signal } from '../../signals/signal.js'
import { encodeVersion } from '../../signals/units.js'
import { cond } from './parse.js'
import { data, sig, win } from './signals.js'

const ZK = 'zk.session_timeout'
const SP = 'safepoint.sync'
const run = (cond: Cond, signals: Signal[], from = 0, to = 3600) => evaluateCond(cond, data(signals), win(from, to))

describe('engine/evaluate', () => {
  describe('temporal', () => {
    // A pause is filed at its end and covers [end - value, end]: sp [[end, ms]] below. Distances are the
    // gaps between intervals; `A before B` means A starts no later than B.
    it.each([
      { name: 'timeout at the end of the pause', zk: [10], sp: [[10, 3000]], op: 'within', at: [10] },
      { name: 'timeout inside the pause (intervals overlap)', zk: [9], sp: [[10, 3000]], op: 'within', at: [10] },
      { name: 'exactly D after the pause ends', zk: [15], sp: [[10, 3000]], op: 'within', at: [15] },
      { name: 'just over D after the pause ends', zk: [15.001], sp: [[10, 3000]], op: 'within', at: [] },
      { name: 'exactly D before the pause starts', zk: [10], sp: [[18, 3000]], op: 'within', at: [18] },
      { name: 'just over D before the pause starts', zk: [10], sp: [[18.001, 3000]], op: 'within', at: [] },
      { name: 'empty left stream', zk: [], sp: [[10, 3000]], op: 'within', at: [] },
      { name: 'empty right stream', zk: [10], sp: [], op: 'within', at: [] },
      { name: 'comparison filters the right side', zk: [10], sp: [[11, 2000]], op: 'within', at: [] },
      { name: 'before: A starts before the pause', zk: [10], sp: [[14, 3000]], op: 'before', at: [14] },
      { name: 'before: the pause started first', zk: [10], sp: [[12, 3000]], op: 'before', at: [] },
      { name: 'before: A at the pause start', zk: [10], sp: [[13, 3000]], op: 'before', at: [13] },
      { name: 'before: exactly D before the pause starts', zk: [10], sp: [[18, 3000]], op: 'before', at: [18] },
      { name: 'before: just outside', zk: [10], sp: [[18.001, 3000]], op: 'before', at: [] },
      { name: 'after: A right after the pause', zk: [12], sp: [[10, 3000]], op: 'after', at: [12] },
      { name: 'after: A during the pause', zk: [9], sp: [[10, 3000]], op: 'after', at: [10] },
      { name: 'after: A before the pause', zk: [6], sp: [[10, 3000]], op: 'after', at: [] },
      { name: 'after: exactly D after the pause ends', zk: [15], sp: [[10, 3000]], op: 'after', at: [15] },
      { name: 'each timeout pairs with its nearest pause', zk: [10, 100], sp: [[12, 3000], [101, 4000]], op: 'within', at: [12, 101] },
      { name: 'two timeouts share one pause', zk: [10, 14], sp: [[12, 3000]], op: 'within', at: [12, 14] },
    ] as const)('$name', ({ zk, sp, op, at }) => {
      const signals = [...zk.map((t) => sig(ZK, t, 7768)), ...sp.map(([t, v]) => sig(SP, t, v))]
      const matches = run(cond(op === 'within' ? `${ZK} within 5s of ${SP} > 2s` : `${ZK} ${op} ${SP} > 2s within 5s`), signals)
      expect(matches.map((m) => m.at / 1000)).toEqual(at)
      for (const m of matches) {
        expect(m.evidence.map((e) => e.name).sort()).toEqual([SP, ZK])
        expect(m.at).toBe(Math.max(...m.evidence.map((e) => e.at)))
        const starts = m.evidence.map((e) => (e.name === SP ? e.at - e.value! : e.at))
        expect(m.firstAt).toBe(Math.min(...starts))
      }
    })

    it('a full GC stamped at its start still pairs with the timeout logged as it ends (the 8.7 s pause of 09:59:51)', () => {
      // JDK 8 stamps the collection at 09:59:51.0; the adapter files it at its end, 09:59:59.7.
      const gcStart = 35_991
      const signals = [sig('gc.pause', gcStart + 8.7, 8700, { kind: 'full' }), sig(ZK, 36_000, 9000)]
      const matches = run(cond(`${ZK} within 5s of gc.pause > 2s`), signals, 0, 40_000)
      expect(matches).toHaveLength(1)
      expect(matches[0].firstAt).toBe(gcStart * 1000)
      // As instants 9 s apart they would not pair: the interval is what makes them meet.
      expect(run(cond(`${ZK} within 5s of gc.pause > 2s`), [sig('gc.pause', gcStart + 8.7, 100, { kind: 'young' }), sig(ZK, 36_000, 9000)], 0, 40_000)).toEqual([])
    })

    it('stays linear with pauses of every length mixed', () => {
      const signals: Signal[] = []
      for (let i = 0; i < 2000; i++) signals.push(sig(ZK, i * 10, 7000), sig(SP, i * 10 + 3 + (i % 7), 2100 + (i % 13) * 1000))
      const matches = run(cond(`${ZK} within 5s of ${SP} > 2s`), signals, 0, 30_000)
      expect(matches.length).toBeGreaterThanOrEqual(2000)
      expect(matches.length).toBeLessThanOrEqual(4000)
    })

    it('keeps a pair whose earlier event lies before the window but whose later event is inside', () => {
      const signals = [sig(SP, 98, 3000), sig(ZK, 102, 7768)]
      expect(run(cond(`${ZK} within 5s of ${SP} > 2s`), signals, 100, 200).map((m) => m.at)).toEqual([102_000])
      expect(run(cond(`${ZK} within 5s of ${SP} > 2s`), signals, 103, 200)).toEqual([])
    })

    it('does not pair a signal with itself', () => {
      expect(run(cond('isr.shrink before isr.shrink within 5s'), [sig('isr.shrink', 10)])).toEqual([])
      expect(run(cond('isr.shrink before isr.shrink within 5s'), [sig('isr.shrink', 10), sig('isr.shrink', 12)])).toHaveLength(1)
    })

    it('stays linear: 4× the events cost far less than the 16× of pairing every event with every other', () => {
      const build = (n: number) => {
        const signals: Signal[] = []
        for (let i = 0; i < n; i++) signals.push(sig(ZK, i, 7000), sig(SP, i + 0.5, 3000))
        return signals
      }
      const pairing = cond(`${ZK} within 5s of ${SP} > 2s`)
      const bestOf3 = (signals: Signal[]) => {
        let best = Infinity
        for (let k = 0; k < 3; k++) {
          const started = performance.now()
          const matches = run(pairing, signals, 0, 100_000)
          best = Math.min(best, performance.now() - started)
          expect(matches.length).toBeGreaterThanOrEqual(signals.length / 2)
          expect(matches.length).toBeLessThanOrEqual(signals.length)
        }
        return best
      }
      const small = bestOf3(build(5_000))
      const large = bestOf3(build(20_000))
      expect(large / small).toBeLessThan(10)
    })
  })

  describe('comparisons and units', () => {
    it.each([
      [SP, 3301, 'safepoint.sync > 2s', true],
      [SP, 2000, 'safepoint.sync > 2s', false],
      [SP, 2000, 'safepoint.sync >= 2s', true],
      [SP, 2000, 'safepoint.sync == 2000ms', true],
      [SP, 2000, 'safepoint.sync != 2s', false],
      [SP, 0.5, 'safepoint.sync < 600us', true],
      [SP, 0.0005, 'safepoint.sync > 10ns', true],
      ['heap.after_gc', 3.5 * 1024 ** 3, 'heap.after_gc > 3GiB', true],
      ['heap.after_gc', 3.1e9, 'heap.after_gc > 3GiB', false],
      ['heap.after_gc', 3.1e9, 'heap.after_gc > 3GB', true],
      ['request_handler.idle', 0.15, 'request_handler.idle < 20%', true],
      ['request_handler.idle', 0.2, 'request_handler.idle <= 20%', true],
      ['request_handler.idle', 0.25, 'request_handler.idle < 20%', false],
      ['fetch.down_conversion', 3, 'fetch.down_conversion > 100/m', true],
      ['log.segments', 30, 'log.segments > 30', false],
    ] as [string, number, string, boolean][])('%s = %s: %s → %s', (name, value, text, expected) => {
      expect(run(cond(text), [sig(name, 10, value)])).toHaveLength(expected ? 1 : 0)
    })

    it('ignores signals without a value when comparing', () => {
      expect(run(cond('safepoint.sync > 0ms'), [sig(SP, 10)])).toEqual([])
    })
  })

  describe('label filters', () => {
    const shrinks = [sig('isr.shrink', 1, undefined, { topic: 'orders', partition: '0' }), sig('isr.shrink', 2, undefined, { topic: 'orders-dlq', partition: '1' }), sig('isr.shrink', 3, undefined, { topic: 'payments' }), sig('isr.shrink', 4)]
    it.each([
      ['isr.shrink{topic="orders"}', [1]],
      ['isr.shrink{topic!="orders"}', [2, 3, 4]],
      ['isr.shrink{topic=~"orders.*"}', [1, 2]],
      ['isr.shrink{topic=~"order"}', []],
      ['isr.shrink{topic!~"orders.*"}', [3, 4]],
      ['isr.shrink{partition!="0"}', [2, 3, 4]],
      ['isr.shrink{topic=~"orders.*", partition!="0"}', [2]],
    ] as [string, number[]][])('%s keeps %j', (text, at) => {
      expect(run(cond(text), shrinks).map((m) => m.at / 1000)).toEqual(at)
    })
  })

  describe('aggregates', () => {
    const rb = (t: number, group = 'g') => sig('group.rebalance', t, undefined, { group })
    it.each([
      { name: 'count above threshold', c: cond('count(group.rebalance) over 10s > 2'), signals: [rb(0), rb(1), rb(2)], at: [2], value: 3 },
      { name: 'count: events exactly the window apart are inside', c: cond('count(group.rebalance) over 10s > 2'), signals: [rb(0), rb(5), rb(10)], at: [10], value: 3 },
      { name: 'count: just outside the window', c: cond('count(group.rebalance) over 10s > 2'), signals: [rb(0), rb(5), rb(10.001)], at: [], value: 0 },
      { name: 'count on an empty stream', c: cond('count(group.rebalance) over 10m < 1'), signals: [], at: [0], value: 0 },
      { name: 'count below once events leave', c: cond('count(group.rebalance) over 10s < 1'), signals: [rb(-5), rb(0)], at: [10.001], value: 0 },
      { name: 'rate of events per second', c: cond('rate(group.rebalance) over 10s > 0.25/s'), signals: [rb(0), rb(1), rb(2)], at: [2], value: 0.3 },
      { name: 'rate written per minute', c: cond('rate(group.rebalance) over 1m >= 3/m'), signals: [rb(0), rb(1), rb(2)], at: [2], value: 0.05 },
      { name: 'max', c: cond('max(safepoint.sync) over 1m > 2s'), signals: [sig(SP, 0, 100), sig(SP, 5, 3301), sig(SP, 6, 10)], at: [5], value: 3301 },
      { name: 'min', c: cond('min(request_handler.idle) over 1m < 20%'), signals: [sig('request_handler.idle', 0, 0.5), sig('request_handler.idle', 5, 0.1)], at: [5], value: 0.1 },
      { name: 'avg (peak of the episode, after the small pause leaves)', c: cond('avg(safepoint.sync) over 1m > 1s'), signals: [sig(SP, 0, 500), sig(SP, 5, 2500)], at: [5], value: 2500 },
      { name: 'sum', c: cond('sum(gc.pause) over 1m >= 1s'), signals: [sig('gc.pause', 0, 400), sig('gc.pause', 5, 600)], at: [5], value: 1000 },
      { name: 'increase across a counter reset', c: cond('increase(log.segments) over 1h > 79'), signals: [sig('log.segments', 0, 100), sig('log.segments', 1, 150), sig('log.segments', 2, 10), sig('log.segments', 3, 30)], at: [3], value: 80 },
      { name: 'increase is not fooled by the reset', c: cond('increase(log.segments) over 1h > 80'), signals: [sig('log.segments', 0, 100), sig('log.segments', 1, 150), sig('log.segments', 2, 10), sig('log.segments', 3, 30)], at: [], value: 0 },
      { name: 'rate of a counter with a reset', c: cond('rate(log.segments) over 100s >= 0.8/s'), signals: [sig('log.segments', 0, 100), sig('log.segments', 1, 150), sig('log.segments', 2, 10), sig('log.segments', 3, 30)], at: [3], value: 0.8 },
      { name: 'trend rising', c: cond('trend(heap.after_gc) over 4m > 0'), signals: [0, 1, 2, 3].map((i) => sig('heap.after_gc', i * 60, 1e9 + i * 6e6)), at: [120], value: 1e5 },
      { name: 'trend falling is not rising', c: cond('trend(heap.after_gc) over 4m > 0'), signals: [0, 1, 2, 3].map((i) => sig('heap.after_gc', i * 60, 1e9 - i * 6e6)), at: [], value: 0 },
      { name: 'trend falling', c: cond('trend(heap.after_gc) over 4m < 0'), signals: [0, 1, 2, 3].map((i) => sig('heap.after_gc', i * 60, 1e9 - i * 6e6)), at: [120], value: -1e5 },
      { name: 'no trend from 3 minutes of an hour: never extrapolated', c: cond('trend(heap.after_gc) over 1h > 0'), signals: [0, 1, 2, 3].map((i) => sig('heap.after_gc', i * 60, 1e9 + i * 6e6)), at: [], value: 0 },
    ])('$name', ({ c, signals, at, value }) => {
      const matches = run(c, signals)
      expect(matches.map((m) => m.at / 1000)).toEqual(at)
      if (at.length) expect(Object.values(matches[0].values)[0].value).toBeCloseTo(value, 6)
    })

    it('groups by label and names the group', () => {
      const signals = [rb(1, 'a'), rb(2, 'b'), rb(3, 'a'), rb(4, 'a'), rb(5, 'b')]
      const matches = run(cond('count(group.rebalance) by group over 1m > 2'), signals)
      expect(matches.map((m) => m.labels)).toEqual([{ group: 'a' }])
      expect(matches[0].evidence.every((e) => e.labels?.group === 'a')).toBe(true)
    })

    it('reports one episode per stretch where the condition holds, at its peak', () => {
      const signals = [rb(0), rb(1), rb(2), rb(3), rb(100), rb(101), rb(102)]
      const matches = run(cond('count(group.rebalance) over 10s > 2'), signals)
      expect(matches.map((m) => [m.at / 1000, m.values['group.rebalance'].value])).toEqual([[2, 4], [102, 3]])
      // held until the second event left the window, 1 ms after it was 10 s old
      expect(matches[0].lastAt).toBe(10_001)
    })

    it('bounds the evidence of a large window', () => {
      const signals = Array.from({ length: 5000 }, (_, i) => rb(i * 0.1))
      const [m] = run(cond('count(group.rebalance) over 1h > 100'), signals)
      expect(m.evidence.length).toBeLessThanOrEqual(12)
      expect(m.evidenceTotal).toBe(5000)
    })
  })

  describe('sustained', () => {
    it.each([
      { name: 'a run still open holds to the window end while its last sample is fresh', samples: [[0, 0.1], [30, 0.1], [60, 0.1]], to: 100, lastAt: 100 },
      { name: 'a run still open holds one D past its last sample at most', samples: [[0, 0.1], [30, 0.1], [60, 0.1]], to: 3600, lastAt: 120 },
      { name: 'a run ended by a failing sample held until just before it', samples: [[0, 0.1], [30, 0.1], [60, 0.1], [75, 0.9]], to: 3600, lastAt: 74.999 },
    ])('$name', ({ samples, to, lastAt }) => {
      const matches = run(cond('request_handler.idle < 20% for 1m'), samples.map(([t, v]) => sig('request_handler.idle', t, v)), 0, to)
      expect(matches.map((m) => m.lastAt / 1000)).toEqual([lastAt])
    })

    const idle = (t: number, v: number) => sig('request_handler.idle', t, v)
    it.each([
      { name: 'every sample over D satisfies it', samples: [[0, 0.1], [15, 0.1], [30, 0.1], [45, 0.1], [60, 0.1]], at: [60] },
      { name: 'one sample breaks the run', samples: [[0, 0.1], [15, 0.1], [30, 0.5], [45, 0.1], [60, 0.1]], at: [] },
      { name: 'samples do not cover D', samples: [[0, 0.1], [15, 0.1], [30, 0.1], [45, 0.1]], at: [] },
      { name: 'a gap longer than D breaks the run', samples: [[0, 0.1], [70, 0.1]], at: [] },
      { name: 'a new run after a break', samples: [[0, 0.5], [10, 0.1], [40, 0.1], [70, 0.1]], at: [70] },
    ])('$name', ({ samples, at }) => {
      const matches = run(cond('request_handler.idle < 20% for 1m'), samples.map(([t, v]) => idle(t, v)))
      expect(matches.map((m) => m.at / 1000)).toEqual(at)
    })
  })

  describe('facts', () => {
    const fact = (name: string, value: number, sec = 5, labels?: Record<string, string>) => sig(name, sec, value, labels)
    it.each([
      { name: 'segment.ms of 100 ms', c: cond('config.segment_ms < 1m'), facts: [fact('config.segment_ms', 100, 5, { topic: 't' })], n: 1 },
      { name: 'segment.ms of 7 days', c: cond('config.segment_ms < 1m'), facts: [fact('config.segment_ms', 7 * 86_400_000)], n: 0 },
      { name: 'the latest value wins', c: cond('config.segment_ms < 1m'), facts: [fact('config.segment_ms', 100, 1), fact('config.segment_ms', 7 * 86_400_000, 2)], n: 0 },
      { name: 'version 0.10.2.1 < 2.2.1', c: cond('broker.version < 2.2.1'), facts: [fact('broker.version', encodeVersion('0.10.2.1')!)], n: 1 },
      { name: 'version 3.7.0 is not < 2.2.1', c: cond('broker.version < 2.2.1'), facts: [fact('broker.version', encodeVersion('3.7.0')!)], n: 0 },
      { name: 'a fact recorded after now is not yet known', c: cond('config.segment_ms < 1m'), facts: [fact('config.segment_ms', 100, 4000)], n: 0 },
      { name: 'a fact older than the window still holds', c: cond('config.segment_ms < 1m'), facts: [fact('config.segment_ms', 100, -86_400)], n: 1 },
    ])('$name', ({ c, facts, n }) => {
      const matches = run(c, facts)
      expect(matches).toHaveLength(n)
      for (const m of matches) expect(m.lastAt).toBe(3_600_000)
    })
  })

  describe('a topic\'s fact joins that topic\'s events only', () => {
    const roll = (topic: string, sec: number) => sig('log.segment_roll', sec, undefined, { topic, partition: '0' })
    const rolls = (topic: string) => Array.from({ length: 40 }, (_, i) => roll(topic, 10 + i))
    const storm = cond('count(log.segment_roll) by topic over 1m > 30 and config.segment_ms < 1m')
    it.each([
      { name: 'the storming topic has the tiny segment.ms', signals: [...rolls('fast'), sig('config.segment_ms', 1, 100, { topic: 'fast' })], topics: ['fast'] },
      { name: 'another topic has it: no match', signals: [...rolls('metrics'), sig('config.segment_ms', 1, 100, { topic: 'fast' }), sig('config.segment_ms', 1, 7 * 86_400_000, { topic: 'metrics' })], topics: [] },
      { name: 'a broker-wide value joins every topic', signals: [...rolls('metrics'), sig('config.segment_ms', 1, 100)], topics: ['metrics'] },
    ])('$name', ({ signals, topics }) => {
      expect(run(storm, signals).map((m) => m.labels.topic)).toEqual(topics)
    })
  })

  describe('a signal compared with a fact', () => {
    const limit = (ms: number, sec = 1) => sig('config.zookeeper_session_timeout_ms', sec, ms)
    it.each([
      { name: 'a pause over a third of a 6 s session', c: `${SP} > 33% of zk.session_timeout_limit`, signals: [limit(6000), sig(SP, 10, 3300)], n: 1 },
      { name: 'the same pause against an 18 s session', c: `${SP} > 33% of zk.session_timeout_limit`, signals: [limit(18000), sig(SP, 10, 3300)], n: 0 },
      { name: 'the whole fact when no share is written', c: `${SP} > zk.session_timeout_limit`, signals: [limit(6000), sig(SP, 10, 6500)], n: 1 },
      { name: 'the negotiated timeout wins over the configured one', c: `${SP} > 33% of zk.session_timeout_limit`, signals: [limit(6000), sig('zk.negotiated_session_timeout', 2, 18000), sig(SP, 10, 3300)], n: 0 },
      { name: 'Kafka 2.5+ without a config: the 18 s default', c: `${SP} > 33% of zk.session_timeout_limit`, signals: [sig('broker.version', 1, encodeVersion('2.8.1')), sig(SP, 10, 3300)], n: 0 },
      { name: 'Kafka before 2.5 without a config: the 6 s default', c: `${SP} > 33% of zk.session_timeout_limit`, signals: [sig('broker.version', 1, encodeVersion('2.0.0')), sig(SP, 10, 3300)], n: 1 },
      { name: 'nothing known: the smaller default, 6 s', c: `${SP} > 33% of zk.session_timeout_limit`, signals: [sig(SP, 10, 3300)], n: 1 },
      { name: 'a fact nobody recorded never holds', c: `${SP} > config.zookeeper_session_timeout_ms`, signals: [sig(SP, 10, 99_000)], n: 0 },
    ])('$name', ({ c, signals, n }) => {
      expect(run(cond(c), signals)).toHaveLength(n)
    })

    it('reads the value in force at each event: the latest before it, else the first after', () => {
      const facts = [sig('config.zookeeper_session_timeout_ms', 100, 6000), sig('config.zookeeper_session_timeout_ms', 200, 18000)]
      const pauses = [sig(SP, 50, 3000), sig(SP, 150, 3000), sig(SP, 250, 3000)]
      // The store keeps a fact's latest value; a caller holding its history hands all of it over.
      const d = { ...buildEvalData('c', '1', pauses), facts }
      const matches = evaluateCond(cond(`${SP} > 33% of config.zookeeper_session_timeout_ms`), d, win(0, 3600))
      expect(matches.map((m) => m.at / 1000)).toEqual([50, 150])
    })

    it('inside a temporal rule: the STW rule of the rule pack', () => {
      const rule = cond(`${ZK} within 5s of ${SP} > 33% of zk.session_timeout_limit`)
      expect(run(rule, [limit(6000), sig(SP, 10, 3300), sig(ZK, 11, 7768)])).toHaveLength(1)
      expect(run(rule, [limit(18000), sig(SP, 10, 3300), sig(ZK, 11, 7768)])).toHaveLength(0)
    })
  })

  describe('boolean', () => {
    const shrink = sig('isr.shrink', 10)
    const shutdown = sig('broker.shutdown', 20)
    const oom = sig('jvm.oom', 30, undefined, { kind: 'heap' })
    it.each([
      { name: 'not: absent', c: cond('not broker.shutdown'), signals: [shrink], n: 1 },
      { name: 'not: present', c: cond('not broker.shutdown'), signals: [shutdown], n: 0 },
      { name: 'and not', c: cond('isr.shrink and not broker.shutdown'), signals: [shrink], n: 1 },
      { name: 'and not, excluded', c: cond('isr.shrink and not broker.shutdown'), signals: [shrink, shutdown], n: 0 },
      { name: 'and: one side missing', c: cond('isr.shrink and jvm.oom'), signals: [shrink], n: 0 },
      { name: 'and: both', c: cond('isr.shrink and jvm.oom'), signals: [shrink, oom], n: 1 },
      { name: 'or: either', c: cond('broker.shutdown or jvm.oom'), signals: [shutdown, oom], n: 2 },
      { name: 'nested (A or B) and C', c: cond('(broker.shutdown or jvm.oom) and isr.shrink'), signals: [shrink, oom], n: 1 },
      { name: 'nested (A or B) and C, C missing', c: cond('(broker.shutdown or jvm.oom) and isr.shrink'), signals: [oom], n: 0 },
      { name: 'not (A and B)', c: cond('not (isr.shrink and jvm.oom)'), signals: [shrink], n: 1 },
      { name: 'empty data: not holds, and fails', c: cond('not jvm.oom or isr.shrink and jvm.oom'), signals: [], n: 1 },
    ])('$name', ({ c, signals, n }) => {
      expect(run(c, signals)).toHaveLength(n)
    })

    it('and joins grouped operands on their shared labels', () => {
      const rb = (t: number, g: string) => sig('group.rebalance', t, undefined, { group: g })
      const mf = (t: number, g: string) => sig('group.member_failed', t, undefined, { group: g })
      const both = cond('count(group.rebalance) by group over 1h > 1 and count(group.member_failed) by group over 1h > 0')
      const matches = run(both, [rb(1, 'a'), rb(2, 'a'), rb(3, 'b'), rb(4, 'b'), mf(5, 'b')])
      expect(matches.map((m) => m.labels)).toEqual([{ group: 'b' }])
      expect(matches[0].evidence.map((e) => e.name)).toContain('group.member_failed')
    })

    it('and over a temporal pair and a fact carries both as evidence', () => {
      const pairAndFact = cond(`${ZK} within 5s of ${SP} > 2s and config.zookeeper_session_timeout_ms <= 6s`)
      const matches = run(pairAndFact, [sig(ZK, 10, 7768), sig(SP, 9, 3301), sig('config.zookeeper_session_timeout_ms', 1, 6000)])
      expect(matches).toHaveLength(1)
      expect(matches[0].evidence.map((e) => e.name)).toEqual(['config.zookeeper_session_timeout_ms', SP, ZK])
    })
  })
})
