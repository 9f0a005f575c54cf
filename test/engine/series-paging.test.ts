import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineScripts, type ScriptCommands } from '../../engine/store/lua-scripts.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import type { Signal } from '../../signals/signal.js'
import { startLabRedis, type LabRedis } from '../../lab/redis-server.js'

// The alert loop's reads (readSeriesChanges, series-changes-n.lua) take a window page by page: a
// sender that floods one series makes more short script calls, never one script that holds Redis for
// the whole window (it read every member of the window in one call). Paging is by rank after the last
// member read, so members sharing one time are each read once. A redis-server of our own, with every
// command in SLOWLOG, so the calls counted are only this test's.

let server: LabRedis
let redis: Redis
let store: RedisStore
const PAGE = 500
const sig = (at: number, i: number): Signal => ({ name: 'isr.shrink', at, cluster: 'flood', broker: '1', source: 'test', labels: { partition: String(i) } })

beforeAll(async () => {
  server = await startLabRedis(['--slowlog-log-slower-than', '0', '--slowlog-max-len', '100000'])
  redis = new Redis(server.url)
  store = new RedisStore({ url: server.url, prefix: 'paging:', seriesPage: PAGE, commandTimeoutMs: 30_000 })
}, 30_000)
afterAll(async () => {
  await store?.close()
  redis?.disconnect()
  await server?.stop()
})

/** Script calls Redis ran since the last look, as SLOWLOG recorded them. */
async function scriptCalls(): Promise<number> {
  const entries = (await redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][]
  await redis.call('SLOWLOG', 'RESET')
  return entries.filter(([, , , args]) => /^EVAL/i.test(args[0] ?? '')).length
}

describe('engine/store series paging', () => {
  it('reads a flooded window whole, in calls of at most a page each', async () => {
    const signals = Array.from({ length: 5200 }, (_, i) => sig(10_000 + i, i))
    expect((await store.append(signals)).accepted).toBe(5200)
    const query = { cluster: 'flood', broker: '1', names: ['isr.shrink'], from: 10_000, to: 20_000 }
    const whole = (await store.querySeries(query)).get('isr.shrink')!
    await scriptCalls()
    const [r] = await store.readSeriesChanges({ cluster: 'flood', broker: '1' }, [{ name: 'isr.shrink', read: { from: 10_000, to: 20_000 } }])
    // 5,200 members in pages of 500: the first call and ten more.
    expect(await scriptCalls()).toBe(11)
    expect(r.signals.length).toBe(5200)
    expect(r.signals).toEqual(whole)
    // A range ending inside the series stops at its end.
    const [part] = await store.readSeriesChanges({ cluster: 'flood', broker: '1' }, [{ name: 'isr.shrink', check: { from: 10_000, to: 10_999 }, read: { from: 11_000, to: 12_499 } }])
    expect(part.count).toBe(1000)
    expect(part.signals.map((s) => s.at)).toEqual(Array.from({ length: 1500 }, (_, i) => 11_000 + i))
  }, 60_000)

  it('reads each of many signals sharing one time once', async () => {
    const same = Array.from({ length: 1700 }, (_, i) => ({ ...sig(50_000, i), broker: '2' }))
    await store.append(same)
    const [r] = await store.readSeriesChanges({ cluster: 'flood', broker: '2' }, [{ name: 'isr.shrink', read: { from: 0, to: 60_000 } }])
    expect(r.signals.length).toBe(1700)
    expect(new Set(r.signals.map((s) => s.labels!.partition)).size).toBe(1700)
  }, 60_000)

  it('tells the caller to start over when the member it read last is gone', async () => {
    const raw = new Redis(server.url) as Redis & ScriptCommands
    defineScripts(raw)
    try {
      await raw.zadd('paging-raw', 1, 'a', 2, 'b', 3, 'c')
      expect(await raw.seriesPage('paging-raw', 'a', 10, 1)).toEqual([1, ['b']])
      expect(await raw.seriesPage('paging-raw', 'a', 2, 10)).toEqual([1, ['b']])
      expect(await raw.seriesPage('paging-raw', 'gone', 10, 10)).toEqual([0, []])
    } finally {
      raw.disconnect()
    }
  })
})
