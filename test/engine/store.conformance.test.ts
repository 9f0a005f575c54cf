import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Cluster, Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Signal } from '../../signals/signal.js'
import { registerSecret } from '../../secrets/redact.js'
import { MemoryStore, type StoreCaps } from '../../engine/store/memory-store.js'
import { deleteKeysWithPrefix, RedisStore } from '../../engine/store/redis-store.js'
import { createKeys } from '../../engine/store/keys.js'
import { keySlot } from '../../engine/store/cluster-slot.js'
import { openStore, sharedStoreSource } from '../../engine/store/open-store.js'
import { startLabRedisCluster, type LabRedisCluster } from '../../lab/redis-cluster.js'
import type { AlertRecord, PendingChange, Store } from '../../engine/store/store.js'
import { deletePrefix, TEST_REDIS_URL as REDIS_URL } from '../support/redis-prefix.js'

// Every Store implementation must pass this one suite. RedisStore runs against the real Redis on
// 127.0.0.1:6379 under a random prefix per test; only that prefix is deleted afterwards. It runs a
// third time against a real Redis Cluster (3 masters, 3 replicas) this file starts on loopback ports
// the first time it is needed and stops at the end.

type Harness = {
  make(caps?: StoreCaps): Promise<Store>
  /** A second handle on the first store's data, as another engine process would have (MemoryStore: the same object). */
  replica(): Promise<Store>
  cleanup(): Promise<void>
}
type Backend = { backend: string; harness: () => Harness }

const memoryHarness = (): Harness => {
  const stores: Store[] = []
  return {
    async make(caps) {
      const s = new MemoryStore(caps)
      stores.push(s)
      return s
    },
    async replica() {
      return stores[0]
    },
    async cleanup() {
      await Promise.all(stores.map((s) => s.close()))
    },
  }
}


const testPrefix = () => `kafka-why-test:${randomUUID()}:`

const redisHarness = (): Harness => {
  const prefix = testPrefix()
  const stores: Store[] = []
  return {
    async make(caps) {
      // Each store of one test gets its own sub-prefix, all under the test's prefix.
      const s = new RedisStore({ url: REDIS_URL, prefix: `${prefix}${stores.length}:`, ...caps })
      stores.push(s)
      return s
    },
    async replica() {
      const s = new RedisStore({ url: REDIS_URL, prefix: `${prefix}0:` })
      stores.push(s)
      return s
    },
    async cleanup() {
      await Promise.all(stores.map((s) => s.close()))
      const admin = new Redis(REDIS_URL)
      try {
        await deletePrefix(admin, prefix)
      } finally {
        admin.disconnect()
      }
    },
  }
}

let labCluster: Promise<LabRedisCluster> | undefined
const clusterNodes = async () => (await (labCluster ??= startLabRedisCluster())).nodesEnv
/** A Cluster client of the test's own, for looking at and deleting what a store wrote. */
const clusterAdmin = async () => new Cluster((await clusterNodes()).split(',').map((n) => ({ host: '127.0.0.1', port: Number(n.split(':')[1]) })))
afterAll(async () => {
  if (labCluster) await (await labCluster).stop()
})

const clusterHarness = (): Harness => {
  const prefix = testPrefix()
  const stores: Store[] = []
  return {
    async make(caps) {
      const s = new RedisStore({ clusterNodes: await clusterNodes(), prefix: `${prefix}${stores.length}:`, ...caps })
      stores.push(s)
      return s
    },
    async replica() {
      const s = new RedisStore({ clusterNodes: await clusterNodes(), prefix: `${prefix}0:` })
      stores.push(s)
      return s
    },
    async cleanup() {
      await Promise.all(stores.map((s) => s.close()))
      if (!labCluster) return
      const admin = await clusterAdmin()
      try {
        await deleteKeysWithPrefix(admin, prefix)
      } finally {
        admin.disconnect()
      }
    },
  }
}

const backends: Backend[] = [
  { backend: 'MemoryStore', harness: memoryHarness },
  { backend: 'RedisStore', harness: redisHarness },
  { backend: 'RedisStore on a Redis Cluster', harness: clusterHarness },
]

const sig = (over: Partial<Signal> & Pick<Signal, 'name' | 'at'>): Signal => ({
  cluster: 'prod',
  broker: '1',
  source: `test:${over.name}:${over.at}`,
  ...over,
})

const alert = (over: Partial<AlertRecord> & Pick<AlertRecord, 'state'>): AlertRecord => ({
  fingerprint: 'fp-1',
  ruleId: 'stw_pause_session_expiry',
  cluster: 'prod',
  broker: '1',
  labels: {},
  activeAt: 1000,
  lastSeenAt: 1000,
  ...over,
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('engine/store', () => {
  describe.each(backends)('$backend', ({ harness }) => {
    let h: Harness
    let store: Store
    beforeEach(async () => {
      h = harness()
      store = await h.make()
    })
    afterEach(async () => {
      await h.cleanup()
    })

    it('returns events of several names merged in time order, whatever the append order', async () => {
      await store.append([
        sig({ name: 'zk.session_timeout', at: 5000, value: 7768 }),
        sig({ name: 'safepoint.sync', at: 3000, value: 3301 }),
        sig({ name: 'isr.shrink', at: 4000 }),
        sig({ name: 'safepoint.sync', at: 1000, value: 12 }),
      ])
      const got = await store.query({ cluster: 'prod', broker: '1', from: 0, to: 10_000 })
      expect(got.map((s) => [s.name, s.at])).toEqual([
        ['safepoint.sync', 1000],
        ['safepoint.sync', 3000],
        ['isr.shrink', 4000],
        ['zk.session_timeout', 5000],
      ])
    })

    it('stores a large append spanning several write batches, shuffled, in full and in order', async () => {
      const n = 12_345
      const all = Array.from({ length: n }, (_, i) => sig({ name: i % 3 === 0 ? 'gc.pause' : 'isr.shrink', at: 1000 + (i % 5000), value: i % 3 === 0 ? i : undefined, source: `log:server.log:${i}` }))
      const shuffled = all.map((s, i) => [(i * 7919) % n, s] as const).sort((a, b) => a[0] - b[0]).map(([, s]) => s)
      expect(await store.append(shuffled)).toEqual({ accepted: n, rejected: {} })
      const got = await store.query({ cluster: 'prod', broker: '1', from: 0, to: 10_000 })
      expect(got).toHaveLength(n)
      for (let i = 1; i < got.length; i++) {
        const [a, b] = [got[i - 1], got[i]]
        expect(a.at < b.at || (a.at === b.at && a.name <= b.name)).toBe(true)
      }
      expect(new Set(got.map((s) => s.source)).size).toBe(n)
    })

    it.each([
      { from: 2000, to: 4000, ats: [2000, 3000, 4000] },
      { from: 2001, to: 3999, ats: [3000] },
      { from: 4000, to: 4000, ats: [4000] },
      { from: 5001, to: 9000, ats: [] },
      { from: 4000, to: 2000, ats: [] },
    ])('treats from=$from to=$to as inclusive bounds', async ({ from, to, ats }) => {
      await store.append([1000, 2000, 3000, 4000, 5000].map((at) => sig({ name: 'isr.shrink', at })))
      const got = await store.query({ cluster: 'prod', broker: '1', from, to })
      expect(got.map((s) => s.at)).toEqual(ats)
    })

    it('filters by names and keeps brokers and cluster-wide signals apart', async () => {
      await store.append([
        sig({ name: 'isr.shrink', at: 1 }),
        sig({ name: 'leader.change', at: 2 }),
        sig({ name: 'isr.shrink', at: 3, broker: '2' }),
        sig({ name: 'controller.change', at: 4, broker: undefined }),
        sig({ name: 'isr.shrink', at: 5, cluster: 'staging' }),
      ])
      const names = (q: Parameters<Store['query']>[0]) => store.query(q).then((r) => r.map((s) => `${s.cluster}/${s.broker ?? '-'}/${s.name}@${s.at}`))
      expect(await names({ cluster: 'prod', broker: '1', names: ['isr.shrink'], from: 0, to: 10 })).toEqual(['prod/1/isr.shrink@1'])
      expect(await names({ cluster: 'prod', broker: '1', from: 0, to: 10 })).toEqual(['prod/1/isr.shrink@1', 'prod/1/leader.change@2'])
      expect(await names({ cluster: 'prod', broker: '2', from: 0, to: 10 })).toEqual(['prod/2/isr.shrink@3'])
      expect(await names({ cluster: 'prod', from: 0, to: 10 })).toEqual(['prod/-/controller.change@4'])
      expect(await names({ cluster: 'staging', broker: '1', from: 0, to: 10 })).toEqual(['staging/1/isr.shrink@5'])
      expect(await names({ cluster: 'prod', broker: '9', from: 0, to: 10 })).toEqual([])
    })

    it.each([
      { name: 'all names', names: undefined, from: 0, to: 10_000 },
      { name: 'some names, one absent', names: ['gc.pause', 'leader.change', 'isr.shrink'], from: 0, to: 10_000 },
      { name: 'a narrow range', names: undefined, from: 2500, to: 3500 },
      { name: 'an empty range', names: undefined, from: 4000, to: 2000 },
    ])('answers querySeries with the same signals as query, one time-sorted list per name ($name)', async ({ names, from, to }) => {
      const all = Array.from({ length: 300 }, (_, i) =>
        sig({ name: ['gc.pause', 'isr.shrink', 'safepoint.sync'][i % 3], at: 1000 + ((i * 37) % 4000), value: i % 3 === 1 ? undefined : i, source: `log:server.log:${i}` }),
      )
      await store.append(all)
      const q = { cluster: 'prod', broker: '1', names, from, to }
      const flat = await store.query(q)
      const series = await store.querySeries(q)
      expect([...series.keys()]).toEqual([...new Set(flat.map((s) => s.name))].sort())
      for (const [name, list] of series) {
        expect(list.length).toBeGreaterThan(0)
        expect(list).toEqual(flat.filter((s) => s.name === name))
      }
      expect([...series.values()].flat()).toHaveLength(flat.length)
    })

    it('round-trips value, labels, source and raw text exactly', async () => {
      const s: Signal = {
        name: 'gc.pause',
        at: 1534212531112.5,
        cluster: 'prod: eu {west}',
        broker: '1001',
        value: 3301.123456789,
        labels: { kind: 'Full GC', cause: 'Allocation Failure', collector: 'G1 "Old"' },
        source: 'gc:broker-1/gc.log:88',
        text: '2018-08-13T22:08:51.112-0400: [Full GC (Allocation Failure)  3.3011234 secs] ünïcode',
      }
      const result = await store.append([s])
      expect(result).toEqual({ accepted: 1, rejected: {} })
      expect(await store.query({ cluster: s.cluster, broker: s.broker, from: s.at, to: s.at })).toEqual([s])
    })

    it('stores a replayed source once but never collapses distinct observations', async () => {
      const batch = [
        sig({ name: 'isr.shrink', at: 100, source: 'log:server.log:10', labels: { topic: 'a', partition: '0' } }),
        sig({ name: 'isr.shrink', at: 100, source: 'log:server.log:10', labels: { topic: 'a', partition: '1' } }),
        sig({ name: 'isr.shrink', at: 100, source: 'log:server.log:11', labels: { topic: 'a', partition: '0' } }),
        sig({ name: 'heap.used', at: 100, source: 'jmx:b1', value: 1 }),
        sig({ name: 'heap.used', at: 100, source: 'jmx:b1', value: 2 }),
      ]
      await store.append(batch)
      await store.append(batch.map((s) => ({ ...s, labels: s.labels && Object.fromEntries(Object.entries(s.labels).reverse()) })))
      const got = await store.query({ cluster: 'prod', broker: '1', from: 0, to: 1000 })
      expect(got).toHaveLength(5)
    })

    it('keeps the latest fact per name and labels, whatever the arrival order', async () => {
      await store.append([
        sig({ name: 'config.segment_ms', at: 200, value: 100, labels: { topic: 'orders' } }),
        sig({ name: 'config.segment_ms', at: 100, value: 604_800_000, labels: { topic: 'orders' } }),
        sig({ name: 'config.segment_ms', at: 50, value: 3_600_000, labels: { topic: 'audit' } }),
        sig({ name: 'broker.version', at: 10, value: 2_001_000 }),
        sig({ name: 'broker.version', at: 20, value: 2_002_001 }),
        sig({ name: 'broker.version', at: 30, value: 3_007_000, broker: '2' }),
      ])
      const facts = await store.facts('prod', '1')
      const byKey = Object.fromEntries(facts.map((f) => [`${f.name}${JSON.stringify(f.labels ?? {})}`, [f.value, f.at]]))
      expect(byKey).toEqual({
        'config.segment_ms{"topic":"orders"}': [100, 200],
        'config.segment_ms{"topic":"audit"}': [3_600_000, 50],
        'broker.version{}': [2_002_001, 20],
      })
      expect(await store.query({ cluster: 'prod', broker: '1', from: 0, to: 1000 })).toEqual([])
      expect(await store.facts('prod')).toEqual([])
    })

    it('lists every broker with a stored signal, including fact-only ones', async () => {
      await store.append([
        sig({ name: 'isr.shrink', at: 1, broker: '10' }),
        sig({ name: 'isr.shrink', at: 1, broker: '2' }),
        sig({ name: 'broker.version', at: 1, broker: '3', value: 3_007_000 }),
        sig({ name: 'isr.shrink', at: 1, broker: '1', cluster: 'a-cluster' }),
        sig({ name: 'controller.change', at: 1, broker: undefined }),
      ])
      expect(await store.brokers()).toEqual([
        { cluster: 'a-cluster', broker: '1' },
        { cluster: 'prod', broker: '2' },
        { cluster: 'prod', broker: '3' },
        { cluster: 'prod', broker: '10' },
      ])
    })

    it('trims events, samples and facts older than the cut, keeps the cut itself', async () => {
      await store.append([
        ...[100, 200, 300].map((at) => sig({ name: 'isr.shrink', at })),
        ...[150, 250].map((at) => sig({ name: 'controller.change', at, broker: undefined })),
        sig({ name: 'heap.used', at: 50, value: 1, broker: '2' }),
        sig({ name: 'broker.version', at: 1, value: 3_007_000 }),
      ])
      expect(await store.trim(200)).toBe(3)
      expect((await store.query({ cluster: 'prod', broker: '1', from: 0, to: 1000 })).map((s) => s.at)).toEqual([200, 300])
      expect((await store.query({ cluster: 'prod', from: 0, to: 1000 })).map((s) => s.at)).toEqual([250])
      expect(await store.query({ cluster: 'prod', broker: '2', from: 0, to: 1000 })).toEqual([])
      expect(await store.facts('prod', '1')).toEqual([])
      expect(await store.trim(200)).toBe(0)
      await store.append([sig({ name: 'isr.shrink', at: 100 })])
      expect((await store.query({ cluster: 'prod', broker: '1', from: 0, to: 1000 })).map((s) => s.at)).toEqual([100, 200, 300])
    })

    it('lets exactly one of two concurrent transitions from the same state win', async () => {
      const other = await h.replica()
      const [a, b] = await Promise.all([
        store.transitionAlert(undefined, alert({ state: 'pending', summary: 'from engine A' })),
        other.transitionAlert(undefined, alert({ state: 'pending', summary: 'from engine B' })),
      ])
      expect([a, b].filter(Boolean)).toHaveLength(1)
      expect((await store.getAlert('fp-1'))?.summary).toBe(a ? 'from engine A' : 'from engine B')

      const fired = await Promise.all(
        [store, other, store].map((s, i) => s.transitionAlert('pending', alert({ state: 'firing', firedAt: 2000, summary: `engine ${i}` }))),
      )
      expect(fired.filter(Boolean)).toHaveLength(1)
      expect((await store.getAlert('fp-1'))?.state).toBe('firing')
      expect(await store.transitionAlert('pending', alert({ state: 'resolved' }))).toBe(false)
      expect(await store.transitionAlert(undefined, alert({ state: 'pending' }))).toBe(false)
      expect(await store.transitionAlert('firing', alert({ state: 'resolved', resolvedAt: 3000 }))).toBe(true)
    })

    it('round-trips alert records and patches bookkeeping without touching state', async () => {
      const full = alert({
        state: 'firing',
        fingerprint: 'fp-2',
        labels: { group: 'payments' },
        firedAt: 1500,
        summary: 'JVM pause',
        evidenceCount: 4,
      })
      await store.transitionAlert(undefined, full)
      await store.transitionAlert(undefined, alert({ state: 'pending', fingerprint: 'fp-0' }))
      await store.updateAlert('fp-2', { message: { channel: 'C1', ts: '1712.0001' }, notifiedAt: 1600 })
      await store.updateAlert('fp-missing', { notifiedAt: 1 })
      expect(await store.getAlert('fp-2')).toEqual({ ...full, message: { channel: 'C1', ts: '1712.0001' }, notifiedAt: 1600 })
      expect(await store.getAlert('fp-missing')).toBeUndefined()
      expect((await store.listAlerts()).map((a) => [a.fingerprint, a.state])).toEqual([
        ['fp-0', 'pending'],
        ['fp-2', 'firing'],
      ])
    })

    it('expires silences at their expiry time', async () => {
      const base = { matcher: 'stw_pause_session_expiry', createdBy: 'U1', createdAt: 0 }
      await store.addSilence({ ...base, id: 's1', expiresAt: 100, comment: 'maintenance' })
      await store.addSilence({ ...base, id: 's2', expiresAt: 200 })
      expect((await store.listSilences(50)).map((s) => s.id)).toEqual(['s1', 's2'])
      expect((await store.listSilences(50))[0]).toEqual({ ...base, id: 's1', expiresAt: 100, comment: 'maintenance' })
      expect((await store.listSilences(100)).map((s) => s.id)).toEqual(['s2'])
      await store.addSilence({ ...base, id: 's1', expiresAt: 300 })
      expect((await store.listSilences(150)).map((s) => s.id)).toEqual(['s2', 's1'])
      expect(await store.listSilences(300)).toEqual([])
    })

    it('lifts a silence before its expiry; lifting an unknown one says so', async () => {
      const base = { matcher: 'stw_pause_session_expiry', createdBy: 'U1', createdAt: 0 }
      await store.addSilence({ ...base, id: 's1', expiresAt: 100 })
      await store.addSilence({ ...base, id: 's2', expiresAt: 200 })
      expect(await store.removeSilence('s1')).toBe(true)
      expect(await store.removeSilence('s1')).toBe(false)
      expect((await store.listSilences(50)).map((s) => s.id)).toEqual(['s2'])
    })

    it('stores audit records and diagnoses redacted', async () => {
      registerSecret('conformance-secret-8841')
      await store.appendAudit({ at: 1, user: 'U1', channel: 'C1', action: 'silence', target: 'conformance-secret-8841', outcome: 'denied' })
      expect((await store.listAudit(1))[0].target).toBe('[redacted]')
    })

    it('caps the diagnoses history, dropping the oldest first', async () => {
      const capped = await h.make({ diagnosesCap: 10 })
      const n = 300
      for (let i = 0; i < n; i++) {
        await capped.recordDiagnosis({ at: i, cluster: 'prod', broker: '1', ruleId: `r${i}`, severity: 'warning', cause: `cause ${i}` })
      }
      const all = await capped.recentDiagnoses(0)
      expect(all.length).toBeGreaterThanOrEqual(10)
      expect(all.length).toBeLessThan(n)
      expect(all.slice(-10).map((d) => d.at)).toEqual([290, 291, 292, 293, 294, 295, 296, 297, 298, 299])
      expect(all.map((d) => d.at)).not.toContain(0)
      expect((await capped.recentDiagnoses(295)).map((d) => d.ruleId)).toEqual(['r295', 'r296', 'r297', 'r298', 'r299'])
    })

    it('lists the audit trail newest first', async () => {
      const rec = (i: number) => ({ at: i, user: 'U1', channel: 'C1', action: 'config set', target: `topic t${i}`, outcome: 'applied' as const })
      for (let i = 1; i <= 5; i++) await store.appendAudit(rec(i))
      await store.appendAudit({ ...rec(6), before: 'segment.ms=100', after: 'segment.ms=604800000', outcome: 'failed', detail: 'denied' })
      const got = await store.listAudit(3)
      expect(got.map((r) => r.at)).toEqual([6, 5, 4])
      expect(got[0]).toEqual({ ...rec(6), before: 'segment.ms=100', after: 'segment.ms=604800000', outcome: 'failed', detail: 'denied' })
      expect(await store.listAudit(0)).toEqual([])
    })

    it('grants a lock to one owner at a time and frees it on release', async () => {
      expect(await store.acquireLock('digest', 'replica-a', 10_000)).toBe(true)
      expect(await store.acquireLock('digest', 'replica-b', 10_000)).toBe(false)
      expect(await store.acquireLock('digest', 'replica-a', 10_000)).toBe(true)
      await store.releaseLock('digest', 'replica-b')
      expect(await store.acquireLock('digest', 'replica-b', 10_000)).toBe(false)
      await store.releaseLock('digest', 'replica-a')
      expect(await store.acquireLock('digest', 'replica-b', 10_000)).toBe(true)
      const other = await h.replica()
      const both = await Promise.all([store.acquireLock('other', 'x', 10_000), other.acquireLock('other', 'y', 10_000)])
      expect(both.filter(Boolean)).toHaveLength(1)
    })

    it('moves a pending change by compare-and-set: one of two racing clicks wins, a used change stays used', async () => {
      const p: PendingChange = { id: 'chg-1', cluster: 'prod', topic: 'orders', op: 'set', key: 'retention.ms', value: '1', before: '2', requestedBy: 'U1', channel: 'C1', risky: true, state: 'requested', createdAt: 1000, expiresAt: 901_000 }
      expect(await store.getPendingChange('chg-1')).toBeUndefined()
      expect(await store.transitionPendingChange(undefined, p, 10_000)).toBe(true)
      expect(await store.transitionPendingChange(undefined, { ...p, requestedBy: 'U2' }, 10_000)).toBe(false)
      expect(await store.getPendingChange('chg-1')).toEqual(p)
      const other = await h.replica()
      const confirmed = { ...p, state: 'confirmed' as const, confirmedBy: 'U1' }
      const cancelled = { ...p, state: 'cancelled' as const, decidedBy: 'U3' }
      const race = await Promise.all([store.transitionPendingChange('requested', confirmed, 10_000), other.transitionPendingChange('requested', cancelled, 10_000)])
      expect(race.filter(Boolean)).toHaveLength(1)
      const stored = await store.getPendingChange('chg-1')
      expect(stored).toEqual(race[0] ? confirmed : cancelled)
      expect(await store.transitionPendingChange('requested', confirmed, 10_000)).toBe(false)
    })

    it('forgets a pending change after its time to live', async () => {
      const p: PendingChange = { id: 'chg:{2}', cluster: 'prod', topic: 'orders', op: 'reset', key: 'segment.ms', before: '100', requestedBy: 'U1', channel: 'C1', risky: false, state: 'requested', createdAt: 1000, expiresAt: 2000 }
      expect(await store.transitionPendingChange(undefined, p, 150)).toBe(true)
      expect((await store.getPendingChange('chg:{2}'))?.key).toBe('segment.ms')
      await sleep(300)
      expect(await store.getPendingChange('chg:{2}')).toBeUndefined()
    })

    it('claims a token once across replicas until its time to live ends', async () => {
      const other = await h.replica()
      const first = await Promise.all([store.claimOnce('v0=abc', 200), other.claimOnce('v0=abc', 200)])
      expect(first.filter(Boolean)).toHaveLength(1)
      expect(await store.claimOnce('v0=abc', 200)).toBe(false)
      expect(await store.claimOnce('v0=abd', 200)).toBe(true)
      await sleep(350)
      expect(await store.claimOnce('v0=abc', 200)).toBe(true)
    })

    it('lets a lock lapse when its holder stops renewing', async () => {
      expect(await store.acquireLock('digest', 'replica-a', 150)).toBe(true)
      expect(await store.acquireLock('digest', 'replica-b', 150)).toBe(false)
      await sleep(300)
      expect(await store.acquireLock('digest', 'replica-b', 150)).toBe(true)
    })

    it.each([
      { reason: 'missing name', bad: { name: '' } },
      { reason: 'unknown signal', bad: { name: 'safepoint.synch' } },
      { reason: 'invalid at', bad: { at: Number.NaN } },
      { reason: 'invalid at', bad: { at: '2018-08-13 22:08:51' } },
      { reason: 'missing cluster', bad: { cluster: '' } },
      { reason: 'invalid broker', bad: { broker: '' } },
      { reason: 'invalid value', bad: { value: Number.POSITIVE_INFINITY } },
      { reason: 'missing value', bad: { name: 'heap.used' } },
      { reason: 'invalid labels', bad: { labels: { partition: 0 } } },
      { reason: 'missing source', bad: { source: '' } },
    ])('rejects a signal with $reason, counts it and stores nothing of it', async ({ reason, bad }) => {
      const good = sig({ name: 'isr.shrink', at: 10 })
      const badSignal = { ...sig({ name: 'isr.shrink', at: 20, broker: '7' }), ...bad } as unknown as Signal
      const result = await store.append([good, badSignal, { ...good, at: 30 }])
      expect(result).toEqual({ accepted: 2, rejected: { [reason]: 1 } })
      expect((await store.query({ cluster: 'prod', broker: '1', from: 0, to: 100 })).map((s) => s.at)).toEqual([10, 30])
      expect(await store.brokers()).toEqual([{ cluster: 'prod', broker: '1' }])
    })

    it('trims each signal by its own cut; facts age out too, and a broker quiet for the whole retention loses its listing', async () => {
      await store.append([
        ...[100, 300].map((at) => sig({ name: 'isr.shrink', at })),
        ...[100, 300].map((at) => sig({ name: 'heap.used', at, value: at })),
        sig({ name: 'broker.version', at: 50, value: 3_007_000 }),
        sig({ name: 'isr.shrink', at: 100, broker: '2' }),
        sig({ name: 'broker.version', at: 50, value: 3_007_000, broker: '2' }),
        sig({ name: 'isr.shrink', at: 100, broker: '3' }),
        sig({ name: 'broker.version', at: 250, value: 3_007_000, broker: '3' }),
      ])
      expect(await store.trim(200, { 'heap.used': 400 })).toBe(5)
      expect((await store.query({ cluster: 'prod', broker: '1', from: 0, to: 1000 })).map((s) => `${s.name}@${s.at}`)).toEqual(['isr.shrink@300'])
      // Broker 1 is active, but its fact is older than the cut: it goes like an event would.
      expect(await store.facts('prod', '1')).toEqual([])
      // Broker 2: nothing newer than the cut, so its old fact goes and it is no longer listed.
      expect(await store.facts('prod', '2')).toEqual([])
      // Broker 3 still reported a fact after the cut: kept.
      expect(await store.facts('prod', '3')).toHaveLength(1)
      expect((await store.brokers()).map((b) => b.broker)).toEqual(['1', '3'])
    })

    it('caps the brokers of a cluster; a broker trimmed away frees its place', async () => {
      const capped = await h.make({ brokersPerCluster: 2 })
      const first = await capped.append([sig({ name: 'isr.shrink', at: 1, broker: '1' }), sig({ name: 'isr.shrink', at: 1, broker: '2' })])
      expect(first).toEqual({ accepted: 2, rejected: {} })
      const more = await capped.append([
        sig({ name: 'isr.shrink', at: 2, broker: '3' }),
        sig({ name: 'isr.shrink', at: 2, broker: '3', source: 'other line' }),
        sig({ name: 'isr.shrink', at: 2, broker: '1' }),
        sig({ name: 'isr.shrink', at: 2, broker: '9', cluster: 'other' }),
        sig({ name: 'controller.change', at: 2, broker: undefined }),
      ])
      expect(more).toEqual({ accepted: 3, rejected: { 'too many brokers': 2 } })
      expect((await capped.brokers()).map((b) => `${b.cluster}/${b.broker}`)).toEqual(['other/9', 'prod/1', 'prod/2'])
      await capped.append([sig({ name: 'isr.shrink', at: 100, broker: '1' })])
      await capped.trim(50)
      expect(await capped.append([sig({ name: 'isr.shrink', at: 101, broker: '3' })])).toEqual({ accepted: 1, rejected: {} })
      expect((await capped.brokers()).map((b) => `${b.cluster}/${b.broker}`)).toEqual(['prod/1', 'prod/3'])
    })

    it.each([
      { broker: 'x'.repeat(65), why: 'longer than 64 characters' },
      { broker: 'broker 1', why: 'a space' },
      { broker: '-1', why: 'a leading dash' },
      { broker: '<!channel>', why: 'markup' },
      { broker: 'b1:9092', why: 'a colon' },
    ])('refuses broker id $broker ($why)', async ({ broker }) => {
      const result = await store.append([sig({ name: 'isr.shrink', at: 1, broker }), sig({ name: 'isr.shrink', at: 1, broker: 'kafka-3.prod_a' })])
      expect(result).toEqual({ accepted: 1, rejected: { 'invalid broker': 1 } })
      expect((await store.brokers()).map((b) => b.broker)).toEqual(['kafka-3.prod_a'])
    })

    it('prunes alerts resolved before the cut and lists only open ones for the alert loop', async () => {
      await store.transitionAlert(undefined, alert({ fingerprint: 'old', state: 'resolved', resolvedAt: 1000 }))
      await store.transitionAlert(undefined, alert({ fingerprint: 'recent', state: 'resolved', resolvedAt: 5000 }))
      await store.transitionAlert(undefined, alert({ fingerprint: 'firing', state: 'firing', firedAt: 500 }))
      await store.transitionAlert(undefined, alert({ fingerprint: 'pending', state: 'pending' }))
      expect((await store.listAlerts({ open: true })).map((a) => a.fingerprint)).toEqual(['firing', 'pending'])
      expect(await store.pruneAlerts(2000)).toBe(1)
      expect((await store.listAlerts()).map((a) => a.fingerprint)).toEqual(['firing', 'pending', 'recent'])
      // Resolved, then open again: listed as open, and pruning leaves it alone.
      await store.transitionAlert('resolved', alert({ fingerprint: 'recent', state: 'pending', activeAt: 6000 }))
      expect((await store.listAlerts({ open: true })).map((a) => a.fingerprint)).toEqual(['firing', 'pending', 'recent'])
      expect(await store.pruneAlerts(10_000)).toBe(0)
      await store.transitionAlert('firing', alert({ fingerprint: 'firing', state: 'resolved', resolvedAt: 7000 }))
      expect((await store.listAlerts({ open: true })).map((a) => a.fingerprint)).toEqual(['pending', 'recent'])
      expect(await store.pruneAlerts(10_000)).toBe(1)
      expect((await store.listAlerts()).map((a) => a.fingerprint)).toEqual(['pending', 'recent'])
    })

    it('counts several rejects by reason in one batch', async () => {
      const result = await store.append([
        { name: 'nope', at: 1, cluster: 'c', source: 's' },
        { name: 'nope.either', at: 1, cluster: 'c', source: 's' },
        { name: 'isr.shrink', at: 1, cluster: '', source: 's' },
        null as unknown as Signal,
      ])
      expect(result).toEqual({ accepted: 0, rejected: { 'unknown signal': 2, 'missing cluster': 1, 'not an object': 1 } })
      expect(await store.brokers()).toEqual([])
    })
  })
})

describe('engine/store MemoryStore, RedisStore and RedisStore on a Redis Cluster', () => {
  it('give identical answers for the same appends, ties included', async () => {
    const memory = memoryHarness()
    const redis = redisHarness()
    const cluster = clusterHarness()
    try {
      const stores = [await memory.make(), await redis.make(), await cluster.make()]
      const batch: Signal[] = []
      for (let i = 0; i < 2000; i++) {
        batch.push(
          sig({
            name: ['isr.shrink', 'leader.change', 'heap.used', 'broker.version'][i % 4],
            at: 1000 + (i % 37) * 10,
            broker: String(1 + (i % 3)),
            value: i % 4 >= 2 ? (i * 31) % 97 : undefined,
            labels: i % 5 === 0 ? { topic: `t${i % 7}`, partition: String(i % 3) } : undefined,
            source: `log:server.log:${i % 900}`,
          }),
        )
      }
      const answers = await Promise.all(
        stores.map(async (s) => {
          await s.append(batch)
          await s.append(batch.slice(0, 500))
          return {
            brokers: await s.brokers(),
            query: await s.query({ cluster: 'prod', broker: '2', from: 1050, to: 1300 }),
            names: await s.query({ cluster: 'prod', broker: '1', names: ['heap.used', 'isr.shrink'], from: 0, to: 5000 }),
            facts: await s.facts('prod', '3'),
            trimmed: await s.trim(1100),
            after: await s.query({ cluster: 'prod', broker: '3', from: 0, to: 5000 }),
          }
        }),
      )
      expect(answers[0].query.length).toBeGreaterThan(100)
      expect(answers[1]).toEqual(answers[0])
      expect(answers[2]).toEqual(answers[0])
    } finally {
      await memory.cleanup()
      await redis.cleanup()
      await cluster.cleanup()
    }
  })
})

/** Starts a throwaway redis-server on a free loopback port; resolves once it accepts commands. */
async function startRedisServer(extraArgs: string[]): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-why-redis-'))
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir, ...extraArgs], { stdio: 'ignore' })
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 })
  probe.on('error', () => undefined)
  for (let i = 0; i < 50; i++) {
    try {
      await probe.connect()
      break
    } catch {
      await sleep(100)
    }
  }
  probe.disconnect()
  return {
    port,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

describe('engine/store/keys', () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>
  let cluster: Redis
  beforeAll(async () => {
    server = await startRedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'])
    cluster = new Redis({ port: server.port, host: '127.0.0.1' })
  })
  afterAll(async () => {
    cluster?.disconnect()
    await server?.stop()
  })

  it('puts every key a store writes for one broker on one Redis Cluster slot', async () => {
    const store = new RedisStore({ url: REDIS_URL, prefix: testPrefix() })
    const admin = new Redis(REDIS_URL)
    try {
      await store.append([
        sig({ name: 'isr.shrink', at: 1 }),
        sig({ name: 'safepoint.sync', at: 2, value: 3301 }),
        sig({ name: 'broker.version', at: 3, value: 3_007_000 }),
        sig({ name: 'isr.shrink', at: 1, broker: '2' }),
        sig({ name: 'broker.version', at: 3, value: 3_007_000, broker: '2' }),
        sig({ name: 'controller.change', at: 4, broker: undefined }),
        sig({ name: 'partitions.offline', at: 4, broker: undefined, value: 3 }),
      ])
      const written: string[] = []
      let cursor = '0'
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${store.prefix}*`, 'COUNT', 1000)
        cursor = next
        written.push(...keys)
      } while (cursor !== '0')
      const slotsByTag = new Map<string, Set<number>>()
      for (const key of written) {
        const tag = /\{[^}]*\}/.exec(key)?.[0]
        if (!tag) continue
        const slot = (await cluster.cluster('KEYSLOT', key)) as number
        slotsByTag.set(tag, (slotsByTag.get(tag) ?? new Set()).add(slot))
      }
      expect([...slotsByTag.keys()].sort()).toEqual(['{prod:1}', '{prod:2}', '{prod:_}'])
      for (const slots of slotsByTag.values()) expect(slots.size).toBe(1)
      const perBroker = written.filter((k) => k.includes('{prod:1}')).map((k) => k.slice(store.prefix.length)).sort()
      expect(perBroker).toEqual(['facts:{prod:1}', 'names:{prod:1}', 'sig:{prod:1}:isr.shrink', 'sig:{prod:1}:safepoint.sync'])
    } finally {
      await store.close()
      await deletePrefix(admin, store.prefix)
      admin.disconnect()
    }
  })

  it('escapes names that would break a hash tag', async () => {
    const keys = createKeys('kw:')
    const tricky = keys.signal('eu{1}:west', '_', 'isr.shrink')
    expect(/\{[^}]*\}/.exec(tricky)?.[0]).toBe('{eu%7B1%7D%3Awest:%5F}')
    expect(keys.signal('eu', undefined, 'isr.shrink')).toBe('kw:sig:{eu:_}:isr.shrink')
    const slots = await Promise.all(
      [keys.signal('eu{1}:west', '_', 'a'), keys.names('eu{1}:west', '_'), keys.facts('eu{1}:west', '_')].map((k) => cluster.cluster('KEYSLOT', k)),
    )
    expect(new Set(slots).size).toBe(1)
    expect(() => createKeys('bad{prefix}:')).toThrow(/must not contain/)
  })
})

describe('engine/store/open-store', () => {
  it.each([
    { env: {}, kind: MemoryStore },
    { env: { REDIS_URL: '  ' }, kind: MemoryStore },
    { env: { REDIS_URL: REDIS_URL }, kind: RedisStore },
  ])('picks the store from REDIS_URL=$env.REDIS_URL', async ({ env, kind }) => {
    const store = openStore(env)
    try {
      expect(store).toBeInstanceOf(kind)
    } finally {
      await store.close()
    }
  })

  it('uses the prefix from the environment', async () => {
    const prefix = testPrefix()
    const store = openStore({ REDIS_URL, KAFKA_WHY_REDIS_PREFIX: prefix })
    const admin = new Redis(REDIS_URL)
    try {
      await store.append([sig({ name: 'isr.shrink', at: 1 })])
      expect(await admin.exists(`${prefix}sig:{prod:1}:isr.shrink`)).toBe(1)
    } finally {
      await store.close()
      await deletePrefix(admin, prefix)
      admin.disconnect()
    }
  })
})

describe('engine/store on a Redis Cluster', () => {
  it('computes the slot of a key as Redis Cluster does', async () => {
    const probe = new Redis({ port: Number((await clusterNodes()).split(',')[0].split(':')[1]), host: '127.0.0.1' })
    try {
      const k = createKeys('kw:')
      const keys = ['plain', '{}', '{}x{a}', 'a{b}c', 'x{', 'é{ü}', k.signal('prod', '1', 'isr.shrink'), k.alert('fp'), k.once('tok'), k.brokers()]
      for (let i = 0; i < 200; i++) keys.push(k.names(`c${i}`, String(i)))
      for (const key of keys) expect([key, keySlot(key)]).toEqual([key, await probe.cluster('KEYSLOT', key)])
    } finally {
      probe.disconnect()
    }
  })

  it('spreads brokers over every master and reads and trims them through one pipeline per node', async () => {
    const h = clusterHarness()
    const store = (await h.make()) as RedisStore
    const admin = await clusterAdmin()
    try {
      const brokers = Array.from({ length: 30 }, (_, i) => String(i + 1))
      await store.append(brokers.flatMap((b) => [sig({ name: 'isr.shrink', at: 10, broker: b }), sig({ name: 'isr.shrink', at: 1000, broker: b }), sig({ name: 'broker.version', at: 5, value: 3_007_000, broker: b })]))
      await admin.cluster('INFO')
      const perMaster = await Promise.all(admin.nodes('master').map(async (node) => (await node.keys(`${store.prefix}*`)).length))
      expect(perMaster).toHaveLength(3)
      for (const n of perMaster) expect(n).toBeGreaterThan(0)
      expect((await store.brokers()).map((b) => b.broker).sort()).toEqual([...brokers].sort())
      expect(await store.trim(100)).toBe(30)
      for (const b of ['1', '17', '30']) expect((await store.query({ cluster: 'prod', broker: b, from: 0, to: 2000 })).map((s) => s.at)).toEqual([1000])
      const left = await Promise.all(admin.nodes('master').map(async (node) => (await node.keys(`${store.prefix}*`)).length))
      expect(await deleteKeysWithPrefix(admin, store.prefix)).toBe(left.reduce((a, b) => a + b, 0))
      expect(await store.brokers()).toEqual([])
    } finally {
      admin.disconnect()
      await h.cleanup()
    }
  })

  it('is chosen by REDIS_CLUSTER_NODES; with REDIS_URL too, or a bad node list, every call says why in one line', async () => {
    expect(sharedStoreSource({ REDIS_CLUSTER_NODES: await clusterNodes() })).toBe('REDIS_CLUSTER_NODES')
    expect(sharedStoreSource({ REDIS_URL })).toBe('REDIS_URL')
    expect(sharedStoreSource({ REDIS_URL: ' ', REDIS_CLUSTER_NODES: '' })).toBeUndefined()
    const prefix = testPrefix()
    const good = openStore({ REDIS_CLUSTER_NODES: ` ${await clusterNodes()} `, KAFKA_WHY_REDIS_PREFIX: prefix })
    try {
      expect(good).toBeInstanceOf(RedisStore)
      await good.append([sig({ name: 'isr.shrink', at: 1 })])
      expect((await good.query({ cluster: 'prod', broker: '1', from: 0, to: 10 })).length).toBe(1)
    } finally {
      await good.close()
      const admin = await clusterAdmin()
      await deleteKeysWithPrefix(admin, prefix).finally(() => admin.disconnect())
    }
    const cases: [Record<string, string>, RegExp][] = [
      [{ REDIS_URL, REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, /^REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a Redis Cluster, not both$/],
      [{ REDIS_CLUSTER_NODES: '127.0.0.1' }, /^cannot use REDIS_CLUSTER_NODES '127.0.0.1': '127.0.0.1' has no port; expected host:port$/],
      [{ REDIS_CLUSTER_NODES: 'http://h:1' }, /unsupported scheme 'http:'/],
      [{ REDIS_CLUSTER_NODES: 'redis://h:1/2' }, /a cluster has no databases/],
      [{ REDIS_CLUSTER_NODES: 'redis://:one@h:1,redis://:two@h:2' }, /^cannot use REDIS_CLUSTER_NODES 'redis:\/\/:\*\*\*@h:1,redis:\/\/:\*\*\*@h:2': the nodes give different credentials/],
      [{ REDIS_CLUSTER_NODES: 'redis://:s3cret@127.0.0.1:1' }, /^cannot reach Redis Cluster at redis:\/\/:\*\*\*@127.0.0.1:1: /],
    ]
    for (const [env, message] of cases) {
      const store = openStore(env, { connectTimeoutMs: 300 })
      try {
        const err = await store.brokers().then(
          () => undefined,
          (e: unknown) => e as Error & { code?: string },
        )
        expect(err?.code).toBe('STORE_UNAVAILABLE')
        expect(err?.message).toMatch(message)
        expect(err?.message).not.toContain('s3cret')
        expect(err?.message).not.toContain('\n')
      } finally {
        await store.close()
      }
    }
  })

  it('logs in with the password the node URLs carry', async () => {
    const nodes = await clusterNodes()
    const ports = nodes.split(',').map((n) => Number(n.split(':')[1]))
    await setClusterPassword(ports, undefined, 'pw-for-test')
    const prefix = testPrefix()
    const withLogin = new RedisStore({ clusterNodes: ports.map((p) => `redis://:pw-for-test@127.0.0.1:${p}`).join(','), prefix })
    const without = new RedisStore({ clusterNodes: nodes, prefix, connectTimeoutMs: 500 })
    try {
      await withLogin.append([sig({ name: 'isr.shrink', at: 1 })])
      expect(await withLogin.brokers()).toEqual([{ cluster: 'prod', broker: '1' }])
      await expect(without.brokers()).rejects.toThrow(/^cannot reach Redis Cluster at 127\.0\.0\.1:\d+,.*: (authentication failed|no cluster node answered)$/)
      await withLogin.trim(Number.MAX_SAFE_INTEGER)
    } finally {
      await withLogin.close()
      await without.close()
      await setClusterPassword(ports, 'pw-for-test', '')
    }
  })
})

/** Sets (or with '' clears) the password of every node, and the one replicas use for their master. */
async function setClusterPassword(ports: number[], current: string | undefined, next: string): Promise<void> {
  for (const port of ports) {
    const r = new Redis({ port, host: '127.0.0.1', password: current })
    try {
      await r.config('SET', 'masterauth', next)
      await r.config('SET', 'requirepass', next)
    } finally {
      r.disconnect()
    }
  }
}
