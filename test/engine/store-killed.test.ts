import { afterEach, describe, expect, it } from 'vitest'
import { RedisStore } from '../../engine/store/redis-store.js'
import { StoreUnavailableError } from '../../engine/store/store.js'
import { startLabRedis, type LabRedis } from '../../lab/redis-server.js'
import type { Signal } from '../../signals/signal.js'

// Redis killed (SIGKILL) while a large append is in flight, as when it dies under `why --replay
// --store` or `replay --store`: the append rejects once, with the store's one-line outage error,
// and nothing is left to reject unawaited — an unhandled AbortError used to print the aborted
// pipeline's arguments (signal data) after the command had already failed.

let redis: LabRedis | undefined
afterEach(async () => {
  await redis?.stop()
  redis = undefined
})

const signals = (n: number): Signal[] =>
  Array.from({ length: n }, (_, i) => ({ name: 'isr.shrink', at: 1_700_000_000_000 + i, cluster: 'prod', broker: String(1 + (i % 6)), source: `log:server.log:${i}`, text: `[2026-12-01 15:20:11,525] INFO [Partition orders-${i % 50} broker=1] Shrinking ISR from 1,2,3 to 1 secret-row-${i}`, labels: { topic: 'orders', partition: String(i % 50) } }))

describe('engine/store/redis-store killed mid-append', () => {
  it.each([5, 25, 80, 200])('killed %i ms into a 200,000-signal append: one StoreUnavailableError, no unhandled rejection, no signal data', { timeout: 60_000 }, async (delayMs) => {
    const server = (redis = await startLabRedis())
    const store = new RedisStore({ url: server.url, prefix: 'killed:', batchSize: 2000, commandTimeoutMs: 3000, connectTimeoutMs: 500 })
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await store.append(signals(10))
      const pending = store.append(signals(200_000))
      setTimeout(() => void server.kill(), delayMs)
      const err = await pending.then(
        () => undefined,
        (e: unknown) => e,
      )
      // Late rejections of the other pipeline in flight surface within a few event-loop turns.
      await new Promise((r) => setTimeout(r, 1500))
      expect(err).toBeInstanceOf(StoreUnavailableError)
      expect((err as Error).message.split('\n')).toHaveLength(1)
      expect((err as Error).message).not.toMatch(/secret-row|isr\.shrink/)
      expect(String((err as Error).cause)).not.toMatch(/secret-row|isr\.shrink/)
      expect(unhandled.map(String)).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
      await store.close()
    }
  })
})
