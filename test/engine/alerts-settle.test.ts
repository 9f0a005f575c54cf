import { describe, expect, it } from 'vitest'
import { AlertEngine } from '../../engine/alerts.js'
import { lateDataCanUndo } from '../../engine/late-data.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const S = 1000
const ABSENCE = rules(`
rule no_pause
  when zk.session_timeout and not safepoint.total >= 1s
  then cause "session lost on {broker} with no pause"
`)
const PAIR = rules(`
rule stw
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "JVM pause ({safepoint.sync}) on broker {broker}"
`)
const DIR = rules(`
rule disk
  when disk.full or disk.quota_exceeded
  then cause "Log dir {dir} on broker {broker} is full"
`)

/** The live defaults: evaluation at real time, 2 s of settling for rules a late line can undo. */
const live = (store: MemoryStore, r = ABSENCE) => new AlertEngine({ store, rules: r, lagMs: 0, settleMs: 2 * S, keepFiringMs: 60 * S, renotifyMs: 0, minUpdateIntervalMs: 0 })

describe('engine/alerts with a settle time', () => {
  it.each([
    ['zk.session_timeout and not safepoint.total >= 1s', true],
    ['zk.session_timeout within 5s of safepoint.sync > 2s', false],
    ['count(group.rebalance) by group over 10m > 2', false],
    ['count(group.rebalance) over 10m < 2', true],
    ['avg(request_handler.idle) over 5m < 20%', true],
    ['request_handler.idle < 20% for 5m', true],
    ['max(gc.pause) over 5m > 1s', false],
  ])('%s: a late line can undo it → %s', (when, undoable) => {
    expect(lateDataCanUndo(rules(`rule t when ${when} then cause "t"`)[0])).toBe(undoable)
  })

  it('fires a rule that only gains from late lines on the first tick that sees its evidence', async () => {
    const store = new MemoryStore()
    const engine = live(store, PAIR)
    await store.append([sig('safepoint.sync', 100, 3301), sig('zk.session_timeout', 103, 7768)])
    const fired = await engine.tick(103.4 * S)
    expect(fired.map((e) => e.type)).toEqual(['firing'])
    expect(fired[0].alert).toMatchObject({ firstEvidenceAt: 100 * S, evidenceAt: 103 * S, firedAt: 103.4 * S })
  })

  it('holds a rule with `not` for the settle time from its evidence, then fires it with the evidence time beside the decision', async () => {
    const store = new MemoryStore()
    const engine = live(store)
    await store.append([sig('zk.session_timeout', 100, 4000)])
    expect(await engine.tick(100.5 * S)).toEqual([])
    expect((await store.listAlerts())[0]).toMatchObject({ state: 'pending', firstEvidenceAt: 100 * S })
    expect(engine.nextSettleAt()).toBe(102 * S)
    expect(await engine.tick(101.5 * S)).toEqual([])
    const fired = await engine.tick(102 * S)
    expect(engine.nextSettleAt()).toBeUndefined()
    expect(fired.map((e) => [e.type, e.cause.cause])).toEqual([['firing', 'session lost on 1 with no pause']])
    expect(fired[0].alert).toMatchObject({ firstEvidenceAt: 100 * S, evidenceAt: 100 * S, firedAt: 102 * S })
  })

  it('fires such a rule at once when its evidence arrives later than the settle time', async () => {
    const store = new MemoryStore()
    const engine = live(store)
    await store.append([sig('zk.session_timeout', 100, 4000)])
    expect((await engine.tick(103 * S)).map((e) => e.type)).toEqual(['firing'])
  })

  it('drops a held match unannounced when a late line inside the settle time undoes it', async () => {
    const store = new MemoryStore()
    const engine = live(store)
    await store.append([sig('zk.session_timeout', 100, 4000)])
    expect(await engine.tick(100.5 * S)).toEqual([])
    // The GC log's line for a pause before the timeout arrives a second late.
    await store.append([sig('safepoint.total', 99, 3900)])
    expect(await engine.tick(101.5 * S)).toEqual([])
    expect(await engine.tick(103 * S)).toEqual([])
    expect(await engine.tick(110 * S)).toEqual([])
    expect((await store.listAlerts()).map((a) => a.state)).toEqual(['resolved'])
  })

  it('fills a placeholder the latest match lacks from an earlier match of the same alert', async () => {
    const store = new MemoryStore()
    const engine = live(store, DIR)
    await store.append([sig('disk.full', 100, undefined, { dir: '/var/lib/kafka/data' }), sig('disk.quota_exceeded', 101)])
    const fired = await engine.tick(101.5 * S)
    expect(fired.map((e) => e.cause.cause)).toEqual(['Log dir /var/lib/kafka/data on broker 1 is full'])
  })
})
