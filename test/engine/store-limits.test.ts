import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import type { Store } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'
import { SIGNAL_LIMITS } from '../../signals/signal-limits.js'
import { registerSecret } from '../../secrets/redact.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'

// What one sender may make the store hold or do in one append: every field bounded, a bounded
// number of new clusters and brokers, broker admission in time linear in the append, and facts
// that age out with the retention like every other signal. Both stores, Redis the real one.

const MiB = 'x'.repeat(1 << 20)
const DAY = 86_400_000
const sig = (s: Partial<Signal>): Signal => ({ name: 'isr.shrink', at: 1000, cluster: 'prod', broker: '1', source: 'test', ...s })

const prefixes: string[] = []
const stores: Store[] = []
const backends: [string, () => Store][] = [
  ['MemoryStore', () => new MemoryStore()],
  [
    'RedisStore',
    () => {
      const prefix = `kafka-why-test:${randomUUID()}:`
      prefixes.push(prefix)
      return new RedisStore({ url: TEST_REDIS_URL, prefix })
    },
  ],
]

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await deletePrefixes(prefixes.splice(0))
})

describe.each(backends)('engine/store limits (%s)', (_, make) => {
  const open = () => {
    const s = make()
    stores.push(s)
    return s
  }

  it('refuses a signal whose labels, source or cluster name are over their bound, counted by reason; cuts a long text', async () => {
    const store = open()
    const manyLabels = Object.fromEntries(Array.from({ length: SIGNAL_LIMITS.labels + 1 }, (_, i) => [`l${i}`, 'v']))
    const r = await store.append([
      sig({ labels: { a: MiB, b: MiB } }),
      sig({ labels: { [MiB]: 'v' } }),
      sig({ labels: manyLabels }),
      sig({ source: MiB }),
      sig({ cluster: MiB }),
      sig({ text: MiB, at: 2000 }),
    ])
    expect(r).toEqual({ accepted: 1, rejected: { 'label too long': 2, 'too many labels': 1, 'source too long': 1, 'cluster too long': 1 } })
    const [kept] = await store.query({ cluster: 'prod', broker: '1', from: 0, to: 10_000 })
    expect(kept.text!.length).toBe(SIGNAL_LIMITS.textChars)
  })

  it('redacts a long text before cutting it, so a secret across the cut leaves no prefix', async () => {
    const store = open()
    registerSecret('straddling-secret-7731')
    const r = await store.append([sig({ text: `${'a'.repeat(SIGNAL_LIMITS.textChars - 8)}straddling-secret-7731 and more` })])
    expect(r.accepted).toBe(1)
    const [kept] = await store.query({ cluster: 'prod', broker: '1', from: 0, to: 10_000 })
    expect(kept.text).not.toContain('straddl')
  })

  it('admits at most 256 new clusters per append, in time linear in the append (4,000 clusters were one 19.8 s Lua script)', async () => {
    const store = open()
    const started = performance.now()
    const r = await store.append(Array.from({ length: 4000 }, (_, i) => sig({ cluster: `c${i}`, at: i })))
    const ms = performance.now() - started
    expect(r.rejected).toEqual({ 'too many new clusters': 4000 - 256 })
    expect(r.accepted).toBe(256)
    expect(ms).toBeLessThan(2000)
    // The next append admits the next clusters: a refusal is per append, not for good.
    const again = await store.append(Array.from({ length: 300 }, (_, i) => sig({ cluster: `c${i}`, at: i })))
    expect(again).toEqual({ accepted: 300, rejected: {} })
  }, 60_000)

  it('admits at most 4,096 new brokers per append', async () => {
    const store = open()
    const r = await store.append(Array.from({ length: 5000 }, (_, i) => sig({ cluster: `p${i % 10}`, broker: String(i), at: i })))
    expect(r.rejected).toEqual({ 'too many new brokers': 5000 - 4096 })
  }, 60_000)

  it('ages facts out like signals: 20,000 topic facts written 10 days ago do not survive a 7-day trim of an active broker', async () => {
    const store = open()
    const now = 30 * DAY
    const old = now - 10 * DAY
    for (let i = 0; i < 20_000; i += 5000) {
      const r = await store.append(Array.from({ length: 5000 }, (_, j) => sig({ name: 'config.retention_ms', at: old, value: 1, labels: { topic: `t${i + j}` } })))
      expect(r.accepted).toBe(5000)
    }
    await store.append([sig({ at: now - DAY }), sig({ name: 'config.retention_ms', at: now - DAY, value: 2, labels: { topic: 'fresh' } })])
    await store.trim(now - 7 * DAY)
    expect((await store.facts('prod', '1')).map((f) => f.labels?.topic)).toEqual(['fresh'])
    expect(await store.brokers()).toEqual([{ cluster: 'prod', broker: '1' }])
  }, 60_000)
})
