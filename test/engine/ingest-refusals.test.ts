import { randomUUID } from 'node:crypto'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, type LiveService } from '../../adapters/live/live-service.js'
import { SignalWriter } from '../../engine/ingest.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import type { Store } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'

// A signal the store refuses under a per-append limit (too many new clusters or brokers in one append)
// is not stored and never will be: the write path answers it as rejected, with the store's reason, to
// the caller that offered it, even when several callers' signals share one append; and serve's
// /metrics counts it under kafka_why_signals_rejected_total, not kafka_why_signals_total. Before, the
// writer answered every signal of a stored batch as accepted.

const sig = (cluster: string, at: number): Signal => ({ name: 'isr.shrink', at, cluster, broker: '1', source: 'test' })

const prefixes: string[] = []
const stores: Store[] = []
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await deletePrefixes(prefixes.splice(0))
})

const backends: [string, () => Store][] = [
  ['MemoryStore', () => new MemoryStore({ newClustersPerAppend: 2 })],
  [
    'RedisStore',
    () => {
      const prefix = `kafka-why-test:${randomUUID()}:`
      prefixes.push(prefix)
      return new RedisStore({ url: TEST_REDIS_URL, prefix, newClustersPerAppend: 2 })
    },
  ],
]

describe.each(backends)('engine/ingest refusals (%s)', (_, make) => {
  it('answers each caller for its own signals when one append refuses some of a shared batch', async () => {
    const store = make()
    stores.push(store)
    const writer = new SignalWriter(store)
    // Two callers in the same turn: their signals go to the store in one append.
    const a = writer.write(['c1', 'c2', 'c3', 'c4', 'c5'].map((c, i) => sig(c, 1000 + i)))
    const b = writer.write([sig('c1', 2000), sig('c1', 2001), sig('c2', 2002)])
    expect(await a).toEqual({ accepted: 2, rejected: { 'too many new clusters': 3 } })
    expect(await b).toEqual({ accepted: 3, rejected: {} })
    const stats = writer.stats()
    expect(stats.stored).toBe(5)
    expect(stats.rejected).toEqual({ 'too many new clusters': 3 })
    // What was answered as refused is indeed not stored.
    expect((await store.brokers()).map((r) => r.cluster)).toEqual(['c1', 'c2'])
    await writer.close()
  })

  it('lists which signals it refused only when asked', async () => {
    const store = make()
    stores.push(store)
    const batch = [sig('x1', 1), { ...sig('x1', 2), name: 'no.such.signal' }, sig('x2', 3), sig('x3', 4)]
    const plain = await store.append(batch)
    expect(plain).toEqual({ accepted: 2, rejected: { 'unknown signal': 1, 'too many new clusters': 1 } })
    const store2 = make()
    stores.push(store2)
    const listed = await store2.append(batch, { listRefused: true })
    expect(listed.refusals).toEqual([
      { index: 1, reason: 'unknown signal' },
      { index: 3, reason: 'too many new clusters' },
    ])
  })
})

describe('serve: store refusals on /metrics', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-refusals-'))
  let service: LiveService | undefined
  // No new broker may be admitted: every signal of the tailed log is refused by the store.
  const store = new MemoryStore({ newBrokersPerAppend: 0 })
  afterAll(async () => {
    await service?.stop()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('counts them as rejected with the reason, not as accepted', { timeout: 60_000 }, async () => {
    const log = path.join(dir, 'server.log')
    copyFileSync(new URL('../incidents/seed-000-stw-session-expiry/broker-1/server.log', import.meta.url), log)
    const config = parseLiveConfig(
      ['rules: [rules]', 'live:', '  listen: 127.0.0.1:0', '  engine: { enabled: false }', '  clusters:', '    prod:', '      logs:', `        - { broker: "1", path: ${JSON.stringify(log)}, from_end: false }`, ''].join('\n'),
      'k.yaml',
    )
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    service = await startLiveService({ config, store, log: quiet, env: {}, bot: false })
    let text = ''
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      text = await (await fetch(`${service.url}/metrics`)).text()
      if (/kafka_why_signals_rejected_total\{[^}]*reason="too many new brokers"[^}]*\} [1-9]/.test(text)) break
    }
    expect(text).toMatch(/kafka_why_signals_rejected_total\{source="logs",reason="too many new brokers"\} [1-9]\d*/)
    expect(text).not.toMatch(/kafka_why_signals_total\{source="logs"\} [1-9]/)
    expect(await store.brokers()).toEqual([])
  })
})
