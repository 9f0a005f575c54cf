import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestSources } from '../../cli/commands/replay.js'
import { backtestRules } from '../../engine/backtest.js'
import type { ClusterDiagnosis } from '../../engine/diagnose-cluster.js'
import type { Diagnosis } from '../../engine/diagnosis.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { loadRules } from '../../rule-files/load-rules.js'
import { cutBrokerAt } from '../support/cut-recording.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// lab-disk-full with broker 2's data cut at 12:03:30, eleven seconds before broker 3's disk filled:
// its server.log, gc.log, controller.log and state-change.log stop there and its scrapes with them,
// while broker 1's controller.log ("Broker failure callback for 2" at 12:03:53) and the producer's
// log ("Disconnected from node 2 due to timeout" from 12:03:49) still speak of broker 2 until 12:03:55.
// Nothing broker 2's data holds is past 12:03:30: no alert, cause or absence may be claimed for it later.
//
// broker_went_quiet is an absence rule ("no safepoint for 10 s"), added beside the pack: inside a
// broker's data it fires only on a real gap; past the end of broker 2's (and broker 3's, which died at
// 12:03:42) it would hold on nothing but the silence.
const QUIET_RULE = `rule broker_went_quiet
  severity warning
  when count(safepoint.total) over 10s < 1 and count(client.connect_failed) over 1m >= 1
  then cause "Broker {broker} reached no safepoint for 10 s while clients failed to connect"
`

type EventLine = { type: string; ruleId: string; broker?: string; firedAt?: number; resolvedAt?: number; lastSeenAt: number; evidence: { at: number }[] }

let dir: string
let rulesDir: string
let cut: number
/** Broker 2's last record, and the recording's. */
let end2: number
let end3: number
let last: number

function eventTime(e: EventLine): number {
  return e.type === 'resolved' ? e.resolvedAt! : e.type === 'firing' ? e.firedAt! : e.lastSeenAt
}

function latestOf(d: Diagnosis): number {
  return Math.max(-Infinity, ...d.causes.flatMap((c) => [c.lastAt, c.matchedAt, ...c.evidence.map((e) => e.at)]))
}

describe('a broker whose data ends before its peers\' is evaluated only inside its data', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    ;({ dir, cut } = cutBrokerAt('lab-disk-full', '2', '2026-12-01T12:03:30Z'))
    rulesDir = mkdtempSync(join(tmpdir(), 'kafka-why-rules-'))
    cpSync('rules', rulesDir, { recursive: true })
    writeFileSync(join(rulesDir, 'zz-quiet.rules'), QUIET_RULE)
    const store = new MemoryStore()
    const ingest = await ingestSources(store, [dir])
    end2 = ingest.ends.of('lab', '2')!
    end3 = ingest.ends.of('lab', '3')!
    last = Math.max(...[...ingest.times.values()].map((l) => l[l.length - 1]))
    // The recording as cut: broker 2's own data ends at the cut, the peers' and the clients' go on and
    // name broker 2 after it (those records are stored in broker 2's scope).
    expect(end2).toBeLessThanOrEqual(cut)
    expect(end2).toBeGreaterThan(cut - 5_000)
    expect(last - end2).toBeGreaterThan(20_000)
    const later = await store.query({ cluster: 'lab', broker: '2', from: end2 + 1, to: last })
    expect(later.map((s) => s.name)).toEqual(expect.arrayContaining(['controller.broker_lost', 'client.request_timeout']))
    // Broker 3's data ends when it exits after its disk filled, before its peers'.
    expect(end3).toBeLessThan(last)
    await store.close()
  })

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
    rmSync(rulesDir, { recursive: true, force: true })
  })

  it('replay: nothing fires, resolves or updates for broker 2 after its last record; absence rules stay quiet past it', async () => {
    const r = await kafkaWhyInProcess(['replay', dir, '--rules', rulesDir, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as EventLine)
    const of = (b: string) => events.filter((e) => e.broker === b)
    for (const e of of('2')) expect(eventTime(e), `${e.type} ${e.ruleId}`).toBeLessThanOrEqual(end2)
    for (const e of of('3')) expect(eventTime(e), `${e.type} ${e.ruleId}`).toBeLessThanOrEqual(end3)
    // What the clients saw after broker 2's data ended is not claimed for broker 2.
    expect(of('2').map((e) => e.ruleId)).not.toContain('advertised_listener_unreachable')
    expect(of('2').map((e) => e.ruleId)).not.toContain('client_request_timeouts')
    // The absence rule: not on the brokers whose data ended, by their silence after it.
    for (const b of ['2', '3']) expect(of(b).map((e) => e.ruleId), `broker ${b}`).not.toContain('broker_went_quiet')
    // Per broker, not per cluster: broker 1's data runs on, and so does its evaluation.
    expect(of('1').some((e) => e.ruleId === 'fetcher_cannot_reach_leader' && eventTime(e) > end2)).toBe(true)
    // Broker 3's full disk is still firing when its data ends: left open, not resolved by the silence.
    expect(of('3').filter((e) => e.ruleId === 'disk_full').map((e) => e.type)).toEqual(['firing'])
  })

  // The recording itself, uncut: broker 3 exits at 12:03:42 and the producer keeps failing to connect
  // to its address (/127.0.0.1:34621) until 12:03:50. Those failures speak of a broker whose data has
  // ended; its peers did not read them as their own unreachable advertised listener.
  it('lab-disk-full: a broker that died does not make its peers\' clients "unable to reach the advertised listener"', async () => {
    const r = await kafkaWhyInProcess(['replay', 'test/incidents/lab-disk-full', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as EventLine)
    expect(events.filter((e) => e.ruleId === 'advertised_listener_unreachable')).toEqual([])
    expect(events.filter((e) => e.ruleId.startsWith('kafka_7755'))).toEqual([])
    expect(events.filter((e) => e.type === 'firing').map((e) => `${e.ruleId} ${e.broker}`).sort()).toEqual(
      expect.arrayContaining(['disk_full 3', 'fetcher_cannot_reach_leader 1', 'fetcher_cannot_reach_leader 2']),
    )
  })

  it('why 2 --at past its end: answered at its last record, from nothing later', async () => {
    const r = await kafkaWhyInProcess(['why', '2', '--replay', dir, '--rules', rulesDir, '--at', '2026-12-01T12:03:55Z', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const d = JSON.parse(r.stdout) as Diagnosis
    expect(d.to).toBe(end2)
    expect(d.at).toBe(end2)
    expect(latestOf(d)).toBeLessThanOrEqual(end2)
    const rules = d.causes.map((c) => c.ruleId)
    for (const claim of ['advertised_listener_unreachable', 'client_request_timeouts', 'client_connections_dropped', 'broker_went_quiet']) expect(rules).not.toContain(claim)
  })

  it('why --replay (the cluster): broker 2 is answered inside its data; broker 3 stays the origin', async () => {
    const r = await kafkaWhyInProcess(['why', '--replay', dir, '--rules', rulesDir, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const answer = JSON.parse(r.stdout) as ClusterDiagnosis
    const part = (b: string) => answer.brokers.find((p) => p.broker === b)!
    expect(part('2').diagnosis.to).toBe(end2)
    expect(latestOf(part('2').diagnosis)).toBeLessThanOrEqual(end2)
    expect(part('2').own).toEqual([])
    expect(part('3').diagnosis.to).toBe(end3)
    expect(part('1').diagnosis.to).toBe(answer.to)
    expect(answer.brokers[0]).toMatchObject({ broker: '3', role: 'origin' })
    expect(answer.brokers[0].own[0].ruleId).toBe('disk_full')
    // The text says where the broker was answered.
    const text = await kafkaWhyInProcess(['why', '--replay', dir, '--rules', rulesDir])
    expect(text.stdout).toMatch(/^broker 2 \(answered at its last record, 2026-12-01 12:03:29Z\): nothing a rule names/m)
    expect(text.stdout).toMatch(/^broker 1: /m)
  })

  it('backtest: over a history asked to run two hours on, no episode of broker 2 fires or resolves past its end', async () => {
    const store = new MemoryStore()
    const ingest = await ingestSources(store, [dir])
    const first = Math.min(...[...ingest.times.values()].map((l) => l[0]))
    const { rules } = await loadRules([rulesDir])
    const run = await backtestRules(store, [], rules, { from: first, to: last + 2 * 3_600_000, windowMs: 3_600_000, stepMs: 15_000 })
    const latest = (e: { firedAt: number; resolvedAt?: number }) => Math.max(e.firedAt, e.resolvedAt ?? -Infinity)
    expect(run.head.length).toBeGreaterThan(0)
    for (const e of run.head.filter((x) => x.broker === '2')) expect(latest(e), e.rule).toBeLessThanOrEqual(end2)
    for (const e of run.head.filter((x) => x.broker === '3')) expect(latest(e), e.rule).toBeLessThanOrEqual(end3)
    expect(run.head.filter((e) => e.broker !== '1').map((e) => e.rule)).not.toContain('broker_went_quiet')
    expect(run.head.filter((e) => e.broker === '2').map((e) => e.rule)).not.toContain('advertised_listener_unreachable')
    await store.close()
  })
})
