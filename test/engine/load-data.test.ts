import { describe, expect, it } from 'vitest'
import { evaluateRulesFromStore } from '../../engine/evaluate-store.js'
import { loadEvalData, loadForRules } from '../../engine/load-data.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

describe('engine/load-data', () => {
  const signals = [
    sig('isr.shrink', 10, undefined, { topic: 't' }),
    sig('isr.shrink', 5, undefined, { topic: 'u' }, '2'),
    sig('partitions.offline', 12, 3, undefined, '2'),
    sig('client.not_leader', 11, undefined, { topic: 't' }, undefined),
    sig('client.not_leader', 9, undefined, { topic: 't' }, undefined),
    sig('gc.pause', 13, 400, { kind: 'young' }),
    sig('config.segment_ms', 1, 100, { topic: 't' }),
    sig('config.segment_ms', 2, 100, { topic: 'other' }, undefined),
    sig('broker.version', 1, 3_007_000, undefined, '2'),
  ]

  it.each([
    { names: undefined, series: { 'client.not_leader': [9, 11], 'gc.pause': [13], 'isr.shrink': [10], 'partitions.offline': [12] }, facts: ['config.segment_ms', 'config.segment_ms'] },
    { names: ['isr.shrink', 'client.not_leader'], series: { 'client.not_leader': [9, 11], 'isr.shrink': [10] }, facts: [] },
    { names: ['partitions.offline', 'config.segment_ms'], series: { 'partitions.offline': [12] }, facts: ['config.segment_ms', 'config.segment_ms'] },
  ])('reads the broker, its cluster scope and cluster-wide signals of other brokers: $names', async ({ names, series, facts }) => {
    const store = new MemoryStore()
    await store.append(signals)
    const { data, signalsRead } = await loadEvalData(store, { cluster: 'c', broker: '1', names, from: 0, to: 100_000 })
    const got = Object.fromEntries([...data.series].map(([n, l]) => [n, l.map((s) => s.at / 1000)]).sort(([a], [b]) => String(a).localeCompare(String(b))))
    expect(got).toEqual(series)
    expect(data.facts.map((f) => f.name)).toEqual(facts)
    expect(signalsRead).toBe(Object.values(series).flat().length + facts.length)
  })

  it('keeps to the time range', async () => {
    const store = new MemoryStore()
    await store.append(signals)
    const { data } = await loadEvalData(store, { cluster: 'c', broker: '1', from: 10_000, to: 11_000 })
    expect([...data.series.values()].flat().map((s) => s.at)).toEqual([10_000, 11_000])
  })
})

describe('engine/evaluate-store', () => {
  it('evaluates rules from a store, reaching back for their windows', async () => {
    const store = new MemoryStore()
    await store.append([0, 600, 1200].map((t) => sig('group.rebalance', t, undefined, { group: 'g' })))
    const pack = rules('rule churn when count(group.rebalance) by group over 1h > 2 then cause "x"\nrule pause when safepoint.sync > 2s then cause "y"')
    const results = await evaluateRulesFromStore(pack, store, { cluster: 'c', broker: '1', from: 1_500_000, to: 1_800_000, now: 1_800_000 })
    expect(results.map((r) => [r.rule.id, r.matches.map((m) => m.labels)])).toEqual([
      ['churn', [{ group: 'g' }]],
      ['pause', []],
    ])
  })
})

describe('engine/load-data loadForRules', () => {
  const pack = rules('rule leak when trend(heap.after_gc) over 6h > 0 then cause "x" explains isr.expand\nrule shrink when isr.shrink then cause "y"')
  const signals = [
    sig('heap.after_gc', 1000, 1e9),
    sig('heap.after_gc', 20_000, 2e9),
    sig('isr.shrink', 1000),
    sig('isr.shrink', 20_000),
    sig('isr.expand', 1000),
    sig('isr.expand', 20_000),
    sig('gc.pause', 20_000, 10),
  ]
  it.each([
    { everything: false, loaded: { 'heap.after_gc': [1000, 20_000], 'isr.expand': [20_000], 'isr.shrink': [20_000] } },
    { everything: true, loaded: { 'gc.pause': [20_000], 'heap.after_gc': [1000, 20_000], 'isr.expand': [20_000], 'isr.shrink': [20_000] } },
  ])('reads each signal only as far back as its rules reach (everything: $everything)', async ({ everything, loaded }) => {
    const store = new MemoryStore()
    await store.append(signals)
    const { data, signalsRead } = await loadForRules(store, { cluster: 'c', broker: '1', rules: pack, from: 18_000_000, to: 21_000_000, everything })
    const got = Object.fromEntries([...data.series].map(([n, l]) => [n, l.map((s) => s.at / 1000)]).sort(([a], [b]) => String(a).localeCompare(String(b))))
    expect(got).toEqual(loaded)
    expect(signalsRead).toBe(Object.values(loaded).flat().length)
  })
})
