import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { AlertEngine, type AlertEngineOptions, type AlertEvent } from '../../engine/alerts.js'
import { alertFingerprint } from '../../engine/fingerprint.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import type { Store } from '../../engine/store/store.js'
import { deletePrefixes, TEST_REDIS_URL as REDIS_URL } from '../support/redis-prefix.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const prefixes: string[] = []

afterAll(() => deletePrefixes(prefixes))

const backends: { backend: string; make: () => Store }[] = [
  { backend: 'MemoryStore', make: () => new MemoryStore() },
  {
    backend: 'RedisStore',
    make: () => {
      const prefix = `test-alerts-${randomUUID()}:`
      prefixes.push(prefix)
      return new RedisStore({ url: REDIS_URL, prefix })
    },
  },
]

const STW = rules(`
rule stw
  severity critical
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "JVM pause ({safepoint.sync}) on broker {broker}"
`)
const CHURN = rules('rule churn when count(group.rebalance) by group over 10m > 2 then cause "group {group} churns"')
const S = 1000
const LAG = 15 * S
const KEEP = 60 * S

async function engineOn(store: Store, opts: Partial<AlertEngineOptions> = {}) {
  return new AlertEngine({ store, rules: STW, lagMs: LAG, keepFiringMs: KEEP, renotifyMs: 0, minUpdateIntervalMs: 0, ...opts })
}

const summary = (events: AlertEvent[]) => events.map((e) => [e.type, e.alert.ruleId, e.cause.cause])

describe.each(backends)('engine/alerts on $backend', ({ make }) => {
  it('goes firing → updated → resolved, lagging for late data', async () => {
    const store = make()
    try {
      const engine = await engineOn(store)
      await store.append([sig('safepoint.sync', 100, 3301), sig('zk.session_timeout', 103, 7768)])
      expect(await engine.tick(110 * S)).toEqual([])
      const fired = await engine.tick(118 * S)
      expect(summary(fired)).toEqual([['firing', 'stw', 'JVM pause (3.3s) on broker 1']])
      expect(fired[0].alert).toMatchObject({ state: 'firing', cluster: 'c', broker: '1', firedAt: 103 * S, activeAt: 103 * S })
      expect(fired[0].cause.evidence.map((e) => e.signal)).toEqual(['safepoint.sync', 'zk.session_timeout'])
      expect(await engine.tick(130 * S)).toEqual([])
      await store.append([sig('safepoint.sync', 140, 4000), sig('zk.session_timeout', 141, 7768)])
      expect(summary(await engine.tick(160 * S))).toEqual([['updated', 'stw', 'JVM pause (4s) on broker 1']])
      expect(await engine.tick(170 * S)).toEqual([])
      expect(await engine.tick(141 * S + LAG + KEEP)).toEqual([])
      const resolved = await engine.tick(142 * S + LAG + KEEP)
      expect(summary(resolved)).toEqual([['resolved', 'stw', 'JVM pause (4s) on broker 1']])
      expect(resolved[0].alert).toMatchObject({ state: 'resolved', resolvedAt: 142 * S + KEEP })
      const stored = await store.getAlert(alertFingerprint('stw', 'c', '1', {}))
      expect(stored?.state).toBe('resolved')
    } finally {
      await store.close()
    }
  })

  it('two engines on one store notify once per transition', async () => {
    const store = make()
    try {
      const [a, b] = [await engineOn(store, { owner: 'a' }), await engineOn(store, { owner: 'b' })]
      await store.append([sig('safepoint.sync', 100, 3301), sig('zk.session_timeout', 103, 7768)])
      const both = async (now: number) => (await Promise.all([a.tick(now), b.tick(now)])).flat()
      expect((await both(120 * S)).map((e) => e.type)).toEqual(['firing'])
      await store.append([sig('safepoint.sync', 140, 4000), sig('zk.session_timeout', 141, 7768)])
      expect((await both(160 * S)).map((e) => e.type)).toEqual(['updated'])
      expect((await both(400 * S)).map((e) => e.type)).toEqual(['resolved'])
      expect((await store.listAlerts()).map((x) => x.state)).toEqual(['resolved'])
    } finally {
      await store.close()
    }
  })

  it('carries consequences and marks an alert its firing cause explains', async () => {
    const store = make()
    try {
      const both = rules(`
rule stw severity critical when zk.session_timeout within 5s of safepoint.sync > 2s then cause "pause" explains isr.shrink
rule shrinks when count(isr.shrink) over 1m > 1 then cause "shrinks"`)
      const engine = await engineOn(store, { rules: both })
      await store.append([sig('safepoint.sync', 100, 3301), sig('zk.session_timeout', 103, 7768), sig('isr.shrink', 104, undefined, { topic: 't' }), sig('isr.shrink', 105, undefined, { topic: 'u' })])
      const events = await engine.tick(125 * S)
      // the cause first, so the bot can thread what it explains under it
      expect(events.map((e) => [e.type, e.alert.ruleId, e.cause.explainedBy ?? []])).toEqual([
        ['firing', 'stw', []],
        ['firing', 'shrinks', ['stw']],
      ])
      const stw = events.find((e) => e.alert.ruleId === 'stw')!
      expect(stw.cause.explainsRules).toEqual(['shrinks'])
      expect(stw.cause.evidence.filter((e) => e.consequence).map((e) => e.at / S)).toEqual([104, 105])
    } finally {
      await store.close()
    }
  })

  it('fingerprints by group labels: one alert per churning group', async () => {
    const store = make()
    try {
      const engine = await engineOn(store, { rules: CHURN })
      const churn = [0, 30, 60].flatMap((t) => [sig('group.rebalance', t, undefined, { group: 'a' }), sig('group.rebalance', t + 1, undefined, { group: 'b' })])
      await store.append([...churn, sig('group.rebalance', 5, undefined, { group: 'quiet' })])
      const events = await engine.tick(100 * S)
      expect(events.map((e) => [e.type, e.alert.labels.group, e.cause.cause])).toEqual([
        ['firing', 'a', 'group a churns'],
        ['firing', 'b', 'group b churns'],
      ])
      expect(new Set(events.map((e) => e.alert.fingerprint)).size).toBe(2)
      expect(events[0].alert.fingerprint).toBe(alertFingerprint('churn', 'c', '1', { group: 'a' }))
    } finally {
      await store.close()
    }
  })

  it('holds a condition pending until it lasted pendingFor', async () => {
    const store = make()
    try {
      const engine = await engineOn(store, { rules: CHURN, pendingForMs: 120 * S, keepFiringMs: 0 })
      await store.append(Array.from({ length: 20 }, (_, i) => sig('group.rebalance', i * 30, undefined, { group: 'a' })))
      // the count first exceeds 2 at 60 s (third rebalance)
      expect(await engine.tick(60 * S + LAG)).toEqual([])
      expect((await store.listAlerts()).map((x) => x.state)).toEqual(['pending'])
      expect(await engine.tick(179 * S + LAG)).toEqual([])
      expect((await engine.tick(180 * S + LAG)).map((e) => [e.type, e.alert.firedAt])).toEqual([['firing', 180 * S]])
    } finally {
      await store.close()
    }
  })

  it('a pending alert that stops holding resolves without a notification', async () => {
    const store = make()
    try {
      const engine = await engineOn(store, { pendingForMs: 120 * S })
      await store.append([sig('safepoint.sync', 100, 3301), sig('zk.session_timeout', 103, 7768)])
      expect(await engine.tick(120 * S)).toEqual([])
      expect(await engine.tick(1000 * S)).toEqual([])
      expect((await store.listAlerts()).map((x) => x.state)).toEqual(['resolved'])
    } finally {
      await store.close()
    }
  })

  it.each([
    { matcher: 'stw', silenced: true },
    { matcher: alertFingerprint('stw', 'c', '1', {}), silenced: true },
    { matcher: 'another_rule', silenced: false },
  ])('silences by rule or fingerprint until they expire ($matcher)', async ({ matcher, silenced }) => {
    const store = make()
    try {
      const engine = await engineOn(store)
      await store.addSilence({ id: 's1', matcher, createdBy: 'u', createdAt: 0, expiresAt: 150 * S })
      await store.append([sig('safepoint.sync', 100, 3301), sig('zk.session_timeout', 103, 7768)])
      expect((await engine.tick(120 * S)).map((e) => e.type)).toEqual(silenced ? [] : ['firing'])
      expect((await store.listAlerts()).map((x) => x.state)).toEqual(['firing'])
      await store.append([sig('safepoint.sync', 140, 4000), sig('zk.session_timeout', 141, 7768)])
      // the silence has expired by now: new evidence is announced again
      expect((await engine.tick(160 * S)).map((e) => e.type)).toEqual(['updated'])
    } finally {
      await store.close()
    }
  })

  it('announces new evidence at most once per update interval, none of it lost', async () => {
    const store = make()
    try {
      const counting = rules('rule churn when count(group.rebalance) by group over 10m > 2 then cause "group {group} churns ({group.rebalance} times)"')
      const engine = await engineOn(store, { rules: counting, minUpdateIntervalMs: 60 * S, keepFiringMs: 600 * S })
      const rb = (t: number) => sig('group.rebalance', t, undefined, { group: 'a' })
      await store.append([rb(0), rb(1), rb(2)])
      expect((await engine.tick(2 * S + LAG)).map((e) => e.type)).toEqual(['firing'])
      await store.append([rb(10)])
      expect(await engine.tick(10 * S + LAG)).toEqual([])
      expect(await engine.tick(30 * S + LAG)).toEqual([])
      const later = await engine.tick(63 * S + LAG)
      expect(later.map((e) => [e.type, e.cause.cause])).toEqual([['updated', 'group a churns (4 times)']])
      expect(later[0].cause.evidence.map((e) => e.at / S)).toContain(10)
      expect(await engine.tick(80 * S + LAG)).toEqual([])
    } finally {
      await store.close()
    }
  })

  it('does not announce supporting events that change nothing the cause says', async () => {
    const store = make()
    try {
      const engine = await engineOn(store, { rules: CHURN, keepFiringMs: 600 * S })
      const rb = (t: number) => sig('group.rebalance', t, undefined, { group: 'a' })
      await store.append([rb(0), rb(1), rb(2)])
      expect((await engine.tick(2 * S + LAG)).map((e) => e.type)).toEqual(['firing'])
      await store.append([rb(10), rb(20)])
      expect(await engine.tick(30 * S + LAG)).toEqual([])
    } finally {
      await store.close()
    }
  })

  it('announces a repeated event of a rule with `not` as new evidence (its match spans the window, its events do not)', async () => {
    const store = make()
    try {
      const fd = rules('rule fd when fd.exhausted and not config.segment_ms < 1m then cause "broker {broker} ran out of file descriptors"')
      const engine = await engineOn(store, { rules: fd, minUpdateIntervalMs: 60 * S, keepFiringMs: 120 * S })
      await store.append([sig('fd.exhausted', 100)])
      expect(summary(await engine.tick(100 * S + LAG))).toEqual([['firing', 'fd', 'broker 1 ran out of file descriptors']])
      // The same line again, paced to one update a minute, its time in the evidence.
      await store.append([sig('fd.exhausted', 130)])
      expect(await engine.tick(130 * S + LAG)).toEqual([])
      const later = await engine.tick(161 * S + LAG)
      expect(later.map((e) => e.type)).toEqual(['updated'])
      expect(later[0].cause.evidence.map((e) => e.at / S)).toEqual([130])
      // Nothing new: nothing said, until keepFiring after the last line resolves it.
      expect(await engine.tick(170 * S + LAG)).toEqual([])
      expect(await engine.tick(240 * S + LAG)).toEqual([])
      expect((await engine.tick(251 * S + LAG)).map((e) => e.type)).toEqual(['resolved'])
    } finally {
      await store.close()
    }
  })

  it('announces a firing alert again when its post never happened, by one engine, until it is posted', async () => {
    const store = make()
    try {
      const opts = { rules: rules('rule roll when config.segment_ms < 1m then cause "segment.ms is {config.segment_ms}"'), redeliverUnpostedMs: 120 * S }
      const [a, b] = [await engineOn(store, { ...opts, owner: 'a' }), await engineOn(store, { ...opts, owner: 'b' })]
      const both = async (now: number) => (await Promise.all([a.tick(now), b.tick(now)])).flat()
      await store.append([sig('config.segment_ms', 10, 100, { topic: 't' })])
      // The engine that fired it is gone before posting: its event is dropped here.
      expect((await a.tick(100 * S)).map((e) => e.type)).toEqual(['firing'])
      expect(await both(200 * S)).toEqual([])
      const again = await both(221 * S)
      expect(again.map((e) => [e.type, e.redelivered])).toEqual([['firing', true]])
      expect(again[0].cause.cause).toBe('segment.ms is 100ms')
      // Still no message two minutes later (that post was lost too): once more.
      expect(await both(300 * S)).toEqual([])
      expect((await both(342 * S)).map((e) => e.type)).toEqual(['firing'])
      // Posted: nothing more.
      const fp = alertFingerprint('roll', 'c', '1', { topic: 't' })
      await store.updateAlert(fp, { message: { channel: 'C1', ts: '1.2' } })
      expect(await both(600 * S)).toEqual([])
    } finally {
      await store.close()
    }
  })

  it('never redelivers when redelivery is off (no bot posts the events)', async () => {
    const store = make()
    try {
      const engine = await engineOn(store, { rules: rules('rule roll when config.segment_ms < 1m then cause "segment.ms is {config.segment_ms}"') })
      await store.append([sig('config.segment_ms', 10, 100, { topic: 't' })])
      expect((await engine.tick(100 * S)).map((e) => e.type)).toEqual(['firing'])
      expect(await engine.tick(3000 * S)).toEqual([])
    } finally {
      await store.close()
    }
  })

  it('re-notifies a still-firing alert once per interval', async () => {
    const store = make()
    try {
      const engine = await engineOn(store, { rules: rules('rule roll when config.segment_ms < 1m then cause "segment.ms is {config.segment_ms}"'), renotifyMs: 3600 * S })
      await store.append([sig('config.segment_ms', 10, 100, { topic: 't' })])
      expect(summary(await engine.tick(100 * S))).toEqual([['firing', 'roll', 'segment.ms is 100ms']])
      expect(await engine.tick(1800 * S)).toEqual([])
      expect((await engine.tick(3700 * S)).map((e) => e.type)).toEqual(['firing'])
      expect(await engine.tick(3800 * S)).toEqual([])
    } finally {
      await store.close()
    }
  })
})
