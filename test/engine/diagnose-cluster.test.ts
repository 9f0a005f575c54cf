import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Cause, Diagnosis } from '../../engine/diagnosis.js'
import { joinDiagnoses, peersNamed } from '../../engine/diagnose-cluster.js'
import { clusterAnswerOf } from '../../lab/origin-table.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// Cluster answers over the lab's real 3-broker recordings: the broker the fault was injected on
// (lab.json's `broker`) must come first as the origin, and its peers' fetcher errors, client errors
// and NotLeader answers must not make them origins too. One recording per fault family keeps the
// suite quick; docs/cluster-answers.md has the table over every multi-broker recording
// (`npx tsx lab/origin-table.ts`).
const INCIDENTS = 'test/incidents'
const RECORDINGS = [
  'lab-broker-kill',
  'lab-cpu-starved',
  'lab-disk-full',
  'lab-kraft-quorum-loss',
  'lab-partition-dir-removed',
  'lab-stw',
  'lab-stw-kraft',
  'lab-under-min-isr',
  'lab-threads-exhausted',
]

describe('engine/diagnose-cluster over lab recordings', { timeout: 180_000 }, () => {
  it.each([...RECORDINGS, 'lab-oom-killed', 'lab-broker-partitioned', 'lab-slow-disk'])('%s: the faulted broker is named first, as the origin', async (slug) => {
    const lab = JSON.parse(readFileSync(join(INCIDENTS, slug, 'lab.json'), 'utf8'))
    const answer = await clusterAnswerOf(slug)
    expect(answer.brokers.length).toBeGreaterThanOrEqual(readdirSync(join(INCIDENTS, slug)).filter((d) => d.startsWith('broker-')).length)
    expect(answer.brokers[0]).toMatchObject({ broker: lab.broker, role: 'origin' })
    expect(answer.brokers[0].own[0].ruleId).toBe(lab.expect.topRule)
  })

  it('lab-disk-full: the peers fetching from the full broker are its consequences, not origins', async () => {
    const answer = await clusterAnswerOf('lab-disk-full')
    const fetchers = answer.links.filter((l) => l.consequence.ruleId === 'fetcher_cannot_reach_leader')
    expect(fetchers.map((l) => [l.cause.broker, l.cause.ruleId, l.consequence.broker, l.by]).sort()).toEqual([
      ['3', 'disk_full', '1', 'peer'],
      ['3', 'disk_full', '2', 'peer'],
    ])
    for (const b of answer.brokers.filter((p) => p.broker !== '3')) expect(b.own.map((c) => c.ruleId)).not.toContain('fetcher_cannot_reach_leader')
  })

  // Broker 3's log disk throttled: the leaders on 1 and 2 wait on it as their follower (remote time
  // 7-8.5 s of their produce p99) while showing 0.8-1.2 s of local time of their own, a minor share.
  it('lab-slow-disk: the leaders waiting on the slowed follower are its consequences, not origins of a slow disk', async () => {
    const answer = await clusterAnswerOf('lab-slow-disk')
    expect(answer.brokers.filter((b) => b.role === 'origin').map((b) => b.broker)).toEqual(['3'])
    for (const b of answer.brokers.filter((p) => p.broker !== '3')) expect(b.diagnosis.causes.map((c) => c.ruleId)).not.toContain('produce_latency_high.local')
    const remote = answer.links.filter((l) => l.consequence.ruleId === 'produce_latency_high.remote')
    expect(remote.map((l) => [l.cause.broker, l.cause.ruleId, l.consequence.broker]).sort()).toEqual([
      ['3', 'produce_latency_high.local', '1'],
      ['3', 'produce_latency_high.local', '2'],
    ])
  })

  // The consumer's own "consumer poll timeout has expired" line names no broker; its group's coordinator
  // (broker 3) logged the same member's timeout. A stalled poll loop is the client's, so no broker is
  // the origin. lab-under-min-isr has the same shape (broker 1's own NotEnoughReplicas lines beside the
  // producer's unattributed ones) and keeps broker 1 as its origin: those lines are about its partitions.
  it('lab-stuck-consumer: a consumer\'s stalled poll loop is the cluster\'s cause, with no origin broker; lab-under-min-isr keeps its origin', async () => {
    const answer = await clusterAnswerOf('lab-stuck-consumer')
    expect(answer.brokers.filter((b) => b.role === 'origin')).toEqual([])
    expect(answer.clusterWide.find((c) => c.cause.ruleId === 'group_member_stuck')?.brokers.sort()).toEqual(['1', '2', '3'])
    const underMinIsr = await clusterAnswerOf('lab-under-min-isr')
    expect(underMinIsr.brokers[0]).toMatchObject({ broker: '1', role: 'origin' })
    expect(underMinIsr.brokers[0].own[0].ruleId).toBe('under_min_isr_writes_failing')
  })

  // With acks=all and min.insync.replicas=2, the leaders on brokers 1 and 2 hold produce requests
  // waiting for broker 3's replica until they drop it from the ISR: the producer's request timeouts
  // toward 1 and 2 are broker 3's fault, not causes of their own.
  it.each([
    ['lab-oom-killed', 'broker_killed_unclean_restart'],
    ['lab-broker-partitioned', 'broker_cut_off_from_peers'],
  ])('%s: client request timeouts toward the peers are explained by broker 3\'s %s', async (slug, rule) => {
    const answer = await clusterAnswerOf(slug)
    expect(answer.brokers.filter((b) => b.role === 'origin').map((b) => b.broker)).toEqual(['3'])
    const timeouts = answer.links.filter((l) => l.consequence.ruleId === 'client_request_timeouts')
    expect(timeouts.map((l) => [l.cause.broker, l.cause.ruleId, l.consequence.broker, l.by]).sort()).toEqual([
      ['3', rule, '1', 'explains'],
      ['3', rule, '2', 'explains'],
    ])
  })
})

describe('engine/diagnose-cluster: joining answers', () => {
  const cause = (ruleId: string, severity: Cause['severity'], broker: string, labels: Record<string, string>, at: number): Cause => ({
    ruleId,
    severity,
    cause: ruleId,
    run: [],
    labels,
    firstAt: at,
    lastAt: at,
    matchedAt: at,
    evidence: [{ at, signal: 's', broker, source: 'test' }],
    corroboration: 1,
    score: 0,
    explainsRules: [],
  })
  const diagnosis = (broker: string, causes: Cause[]): Diagnosis => ({ cluster: 'c', broker, from: 0, to: 100, at: 100, causes, nearMisses: [], abnormal: [], signalsSeen: 1 })

  it('names a broker whose peers blame it but whose own logs were not given', () => {
    const answer = joinDiagnoses([], [diagnosis('1', [cause('fetcher_cannot_reach_leader', 'warning', '1', { leader: '3' }, 50)])], { cluster: 'c', from: 0, to: 100, now: 100 })
    expect(answer.brokers.map((b) => [b.broker, b.role])).toEqual([
      ['3', 'named'],
      ['1', 'affected'],
    ])
    expect(answer.brokers[0].namedBy).toEqual([{ broker: '1', ruleId: 'fetcher_cannot_reach_leader' }])
  })

  it('does not take a symptom for a consequence of a cause that began after it ended', () => {
    const answer = joinDiagnoses(
      [],
      [diagnosis('3', [cause('disk_full', 'critical', '3', {}, 90_000)]), diagnosis('1', [cause('fetcher_cannot_reach_leader', 'warning', '1', { leader: '3' }, 10_000)])],
      { cluster: 'c', from: 0, to: 100_000, now: 100_000 },
    )
    expect(answer.links).toEqual([])
    expect(answer.brokers.filter((b) => b.role === 'origin').map((b) => b.broker)).toEqual(['3', '1'])
  })

  it('tells a cause resting only on cluster-wide evidence once, and never as an origin', () => {
    const clientOnly = (broker: string) => ({ ...cause('client_records_expired', 'warning', broker, {}, 50), evidence: [{ at: 50, signal: 'client.produce_failed', source: 'log:clients/producer.log:3' }] })
    const answer = joinDiagnoses([], [diagnosis('1', [clientOnly('1')]), diagnosis('2', [clientOnly('2')])], { cluster: 'c', from: 0, to: 100, now: 100 })
    expect(answer.brokers.every((b) => b.role !== 'origin')).toBe(true)
    expect(answer.clusterWide.map((w) => [w.cause.ruleId, w.brokers])).toEqual([['client_records_expired', ['1', '2']]])
  })

  it.each([
    [{ leader: '3' }, ['3']],
    [{ node: '2', address: 'b2:9092' }, ['2']],
    [{ leaders: '1,3' }, ['1', '3']],
    [{ node: '-1' }, []],
    [{ topic: 'orders' }, []],
  ])('peersNamed(%j) = %j', (labels, peers) => {
    expect(peersNamed({ labels })).toEqual(peers)
  })
})

describe('cli why --replay over several brokers', { timeout: 180_000 }, () => {
  it('answers for the cluster with the origin first instead of asking for a broker', async () => {
    const r = await kafkaWhy(['why', '--replay', join(INCIDENTS, 'lab-disk-full')])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toMatch(/^cluster lab · 3 brokers · /)
    expect(lines[1]).toMatch(/^origin: broker 3 \(CRITICAL disk_full\)/)
    expect(r.stdout).toMatch(/── origin: broker 3 \(explains broker 1's fetcher_cannot_reach_leader, broker 2's fetcher_cannot_reach_leader\) ──/)
    expect(r.stdout).not.toContain('name one')
  })
})
