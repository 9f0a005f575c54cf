import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { AlertEngine } from '../../engine/alerts.js'
import { SeriesCache } from '../../engine/series-cache.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import type { SignalQuery } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const prefixes: string[] = []
const stores: RedisStore[] = []
afterAll(async () => {
  for (const s of stores) await s.close()
  await deletePrefixes(prefixes)
})

function redisStore(): RedisStore {
  const prefix = `test-series-cache-${randomUUID()}:`
  prefixes.push(prefix)
  const store = new RedisStore({ url: TEST_REDIS_URL, prefix })
  stores.push(store)
  return store
}

const S = 1000
const NAMES = ['safepoint.sync', 'zk.session_timeout', 'heap.used', 'partitions.offline']

/** A second of a broker's life: a gauge sample, a safepoint line, now and then a session timeout. */
function second(sec: number, broker = '1'): Signal[] {
  const out = [sig('heap.used', sec, 1e9 + sec, undefined, broker), sig('safepoint.sync', sec + 0.25, 5 + (sec % 7), undefined, broker)]
  if (sec % 13 === 0) out.push(sig('zk.session_timeout', sec + 0.5, 6000, undefined, broker))
  return out
}

describe('engine/series-cache: the alert loop reads only what is new', () => {
  it('answers what the store answers, tick after tick, through new lines, late lines, a cluster-wide series and retention', async () => {
    const store = redisStore()
    const cache = new SeriesCache(store, { settleMs: 5 * S })
    let sec = 0
    const feed = async (until: number) => {
      const batch: Signal[] = []
      for (; sec < until; sec++) batch.push(...second(sec))
      await store.append(batch)
    }
    await feed(120)
    await store.append([sig('partitions.offline', 30, 2, undefined, undefined)])
    const ask = async (q: SignalQuery) => {
      const [cached, direct] = await Promise.all([cache.querySeries(q), store.querySeries(q)])
      expect([...cached]).toEqual([...direct])
      return cached
    }
    for (let tick = 0; tick < 12; tick++) {
      const to = (120 + tick * 15) * S
      const window = { cluster: 'c', broker: '1', names: NAMES, from: to - 60 * S, to }
      const history = { cluster: 'c', broker: '1', names: ['safepoint.sync'], from: to - 120 * S, to: to - 60 * S - 1 }
      await ask(window)
      await ask(history)
      await ask({ cluster: 'c', names: NAMES, from: to - 60 * S, to })
      cache.endTick()
      await feed(120 + (tick + 1) * 15)
      // A line 40 s late lands in the part of the window the cache kept: the check must catch it.
      if (tick === 3) await store.append([sig('zk.session_timeout', (to - 40 * S) / S + 0.1, 7000)])
      // Retention cuts into the kept window.
      if (tick === 6) await store.trim(to - 50 * S)
      // The cluster-wide series gets a sample inside the kept part of its window.
      if (tick === 8) await store.append([sig('partitions.offline', (to - 30 * S) / S, 1, undefined, undefined)])
    }
    expect(cache.stats.rereads).toBeGreaterThanOrEqual(3)
    expect(cache.stats.reused).toBeGreaterThan(cache.stats.read)
  })

  it('reads a tick\'s worth of new signals once the window is held, and drops what a tick did not ask for', async () => {
    const store = redisStore()
    const cache = new SeriesCache(store, { settleMs: 5 * S })
    const batch: Signal[] = []
    for (let sec = 0; sec < 400; sec++) batch.push(...second(sec))
    await store.append(batch)
    const q = (to: number): SignalQuery => ({ cluster: 'c', broker: '1', names: NAMES, from: to - 300 * S, to })
    await cache.querySeries(q(360 * S))
    cache.endTick()
    const before = { ...cache.stats }
    await cache.querySeries(q(375 * S))
    // 15 s newer plus the 5 s re-read for late lines, two signals a second (and a timeout or two).
    expect(cache.stats.read - before.read).toBeLessThanOrEqual(20 * 2 + 2)
    expect(cache.stats.reused - before.reused).toBeGreaterThan(500)
    expect(cache.size).toBe(NAMES.length)
    cache.endTick()
    cache.endTick()
    expect(cache.size).toBe(0)
  })

  it('gives the alert engine the same notifications as reading every window whole', async () => {
    const STW = rules(`
rule stw
  severity critical
  when zk.session_timeout within 5s of safepoint.sync > 9s
  then cause "JVM pause ({safepoint.sync}) on broker {broker}"
rule offline
  when partitions.offline > 0
  then cause "{partitions.offline} partitions offline"
`)
    const [a, b] = [redisStore(), redisStore()]
    const opts = { rules: STW, lagMs: 15 * S, keepFiringMs: 60 * S, renotifyMs: 0, minUpdateIntervalMs: 0 }
    const reusing = new AlertEngine({ store: a, ...opts })
    const whole = new AlertEngine({ store: b, ...opts, reuseReads: false })
    expect(reusing.seriesCache).toBeDefined()
    expect(whole.seriesCache).toBeUndefined()
    const seen: string[][] = [[], []]
    let sec = 0
    for (let tick = 1; tick <= 30; tick++) {
      const batch: Signal[] = []
      for (; sec < tick * 15; sec++) for (const broker of ['1', '2']) batch.push(...second(sec, broker))
      // Late lines, older than the part of the window read again each tick (20 s): a pause beside a
      // session timeout already stored (91.5 s, 247.5 s), an offline sample.
      if (tick === 10) batch.push(sig('safepoint.sync', 90.3, 9500, undefined, '2'), sig('partitions.offline', 95, 1, undefined, '1'))
      if (tick === 20) batch.push(sig('safepoint.sync', 247.7, 12_000, undefined, '1'))
      await a.append(batch)
      await b.append(batch)
      const now = tick * 15 * S
      for (const [i, engine] of [reusing, whole].entries()) {
        for (const e of await engine.tick(now)) seen[i].push(`${now} ${e.type} ${e.alert.ruleId} ${e.alert.broker} ${e.cause.cause} ${e.cause.evidence.length}`)
      }
    }
    expect(seen[0].length).toBeGreaterThanOrEqual(4)
    expect(seen[0]).toEqual(seen[1])
    expect(seen[0].filter((e) => / firing stw 2 /.test(e))).toHaveLength(1)
    expect(seen[0].filter((e) => / firing stw 1 /.test(e))).toHaveLength(1)
    expect(reusing.seriesCache!.stats.reused).toBeGreaterThan(0)
    expect(reusing.seriesCache!.stats.rereads).toBeGreaterThan(0)
  })
})
