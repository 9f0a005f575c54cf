import { describe, expect, it } from 'vitest'
import { AlertEngine } from '../../engine/alerts.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { SignalQuery } from '../../engine/store/store.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const S = 1000
const H = 3600 * S

/** A real MemoryStore that counts the reads evaluation asks of it. */
class CountingStore extends MemoryStore {
  seriesReads: SignalQuery[] = []
  brokerReads = 0
  override querySeries(q: SignalQuery) {
    this.seriesReads.push(q)
    return super.querySeries(q)
  }
  override brokers() {
    this.brokerReads++
    return super.brokers()
  }
}

// A broker's own rule and one reading a cluster-wide series (offline partitions, which whichever
// broker is the controller reports), which makes every broker read every other broker's copy of it.
const PACK = rules(`
rule stw
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "JVM pause on broker {broker}"
rule offline
  when partitions.offline > 0
  then cause "{partitions.offline} partitions offline"
`)

const LEAK = rules(`
rule leak
  severity warning
  when trend(heap.after_gc) over 2h > 10
  then cause "heap after GC rising on broker {broker}"
`)

describe('engine/alerts tick cost', () => {
  async function readsOfOneTick(brokers: number) {
    const store = new CountingStore({ brokersPerCluster: 64 })
    const signals = []
    for (let b = 1; b <= brokers; b++) signals.push(sig('safepoint.sync', 100, 10, undefined, String(b)), sig('partitions.offline', 100, 0, undefined, String(b)))
    await store.append(signals)
    const engine = new AlertEngine({ store, rules: PACK, lagMs: 0, owner: 'cost' })
    store.seriesReads = []
    store.brokerReads = 0
    await engine.tick(200 * S)
    return store
  }

  it('reads the store a number of times linear in the brokers of a cluster, each broker\'s cluster-wide series once', async () => {
    const [small, medium, large] = [await readsOfOneTick(4), await readsOfOneTick(8), await readsOfOneTick(16)]
    // Each added broker adds the same reads (every broker reading every other's would add more each time).
    const perBroker = (medium.seriesReads.length - small.seriesReads.length) / 4
    expect(perBroker).toBeLessThanOrEqual(3)
    expect(large.seriesReads.length - medium.seriesReads.length).toBe(8 * perBroker)
    expect([small.brokerReads, large.brokerReads]).toEqual([1, 1])
    // Its own read, and once as the other brokers' cluster-wide copy: never once per other broker.
    const clusterWide = large.seriesReads.filter((q) => q.names?.includes('partitions.offline') && q.broker !== undefined)
    const perBrokerReads = new Map<string, number>()
    for (const q of clusterWide) perBrokerReads.set(q.broker!, (perBrokerReads.get(q.broker!) ?? 0) + 1)
    expect(perBrokerReads.size).toBe(16)
    expect(Math.max(...perBrokerReads.values())).toBeLessThanOrEqual(2)
  })

  it('still shows each broker the cluster-wide series another broker reported', async () => {
    const store = new MemoryStore()
    // Broker 2 is the controller: only it reports offline partitions.
    await store.append([sig('partitions.offline', 100, 3, undefined, '2'), ...[1, 3, 4].map((b) => sig('safepoint.sync', 100, 10, undefined, String(b)))])
    const engine = new AlertEngine({ store, rules: PACK, lagMs: 0, owner: 'cost' })
    const fired = await engine.tick(200 * S)
    expect(fired.filter((e) => e.alert.ruleId === 'offline').map((e) => e.alert.broker).sort()).toEqual(['1', '2', '3', '4'])
  })

  const heapRising = (fromSec: number, points: number, stepSec: number, base: number) =>
    Array.from({ length: points }, (_, i) => sig('heap.after_gc', fromSec + i * stepSec, base + i * 2000, { kind: 'young' }))

  it('evaluates long-window rules once per longWindowEveryMs, keeps them firing in between, and drops them once the window passes', async () => {
    const store = new CountingStore()
    await store.append(heapRising(0, 120, 60, 1e8))
    const engine = new AlertEngine({ store, rules: LEAK, lagMs: 0, keepFiringMs: 5 * 60 * S, longWindowEveryMs: 5 * 60 * S, owner: 'cost' })
    const t0 = 2 * H
    expect((await engine.tick(t0)).map((e) => [e.type, e.alert.ruleId])).toEqual([['firing', 'leak']])
    // Twenty minutes of 15 s ticks: the leak rule read on four of them, the alert firing throughout (no resolved notice).
    let ticksReadingHeap = 0
    for (let k = 1; k <= 80; k++) {
      store.seriesReads = []
      expect(await engine.tick(t0 + k * 15 * S)).toEqual([])
      if (store.seriesReads.some((q) => q.names?.includes('heap.after_gc'))) ticksReadingHeap++
    }
    expect(ticksReadingHeap).toBe(4)
    expect((await store.listAlerts({ open: true })).map((a) => a.state)).toEqual(['firing'])
    // Once the samples have left the window it resolves.
    const later = await engine.tick(t0 + 3 * H)
    expect(later.map((e) => [e.type, e.alert.ruleId])).toEqual([['resolved', 'leak']])
  })

  it('spreads the brokers of an estate over the interval instead of evaluating them all on one tick', async () => {
    const store = new CountingStore({ brokersPerCluster: 64 })
    await store.append(Array.from({ length: 40 }, (_, b) => sig('heap.after_gc', 10, 1e8, { kind: 'young' }, String(b + 1))))
    const engine = new AlertEngine({ store, rules: LEAK, lagMs: 0, longWindowEveryMs: 5 * 60 * S, owner: 'cost' })
    await engine.tick(2 * H)
    const perTick: number[] = []
    for (let k = 1; k <= 20; k++) {
      store.seriesReads = []
      await engine.tick(2 * H + k * 15 * S)
      perTick.push(new Set(store.seriesReads.filter((q) => q.names?.includes('heap.after_gc') && q.broker !== undefined).map((q) => q.broker)).size)
    }
    // Every broker once in the interval, and no tick with more than a fraction of them.
    expect(perTick.reduce((a, b) => a + b, 0)).toBe(40)
    expect(Math.max(...perTick)).toBeLessThanOrEqual(10)
  })

  it('sees a new long-window condition within one long-window interval', async () => {
    const store = new MemoryStore()
    const engine = new AlertEngine({ store, rules: LEAK, lagMs: 0, keepFiringMs: 5 * 60 * S, longWindowEveryMs: 5 * 60 * S, owner: 'cost' })
    const t0 = 2 * H
    // An hour of a flat heap: nothing to say.
    await store.append(Array.from({ length: 60 }, (_, i) => sig('heap.after_gc', 3600 + i * 60, 1e8, { kind: 'young' })))
    expect(await engine.tick(t0)).toEqual([])
    // Then it climbs for four minutes.
    await store.append(Array.from({ length: 16 }, (_, i) => sig('heap.after_gc', 7200 + (i + 1) * 15, 1e8 + (i + 1) * 1e8, { kind: 'young' })))
    const fired: number[] = []
    for (let at = t0 + 15 * S; at <= t0 + 10 * 60 * S && !fired.length; at += 15 * S) if ((await engine.tick(at)).some((e) => e.type === 'firing')) fired.push(at - t0)
    expect(fired).toHaveLength(1)
    expect(fired[0]).toBeLessThanOrEqual(5 * 60 * S)
  })

  it('with longWindowEveryMs 0 evaluates long-window rules on every tick', async () => {
    const store = new CountingStore()
    await store.append(heapRising(0, 120, 60, 1e8))
    const engine = new AlertEngine({ store, rules: LEAK, lagMs: 0, longWindowEveryMs: 0, owner: 'cost' })
    await engine.tick(2 * H)
    store.seriesReads = []
    await engine.tick(2 * H + 15 * S)
    expect(store.seriesReads.some((q) => q.names?.includes('heap.after_gc'))).toBe(true)
  })
})
