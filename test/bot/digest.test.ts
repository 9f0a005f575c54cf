import { describe, expect, it } from 'vitest'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { buildDigest, leastSquaresSlope, percentile, underReplicatedMs } from '../../bot/digest/build-digest.js'
import { DAY_END, DAY_START, digestDiagnoses, digestSignals } from './support/digest-data.js'

const GiB = 1024 ** 3

describe('bot/digest', () => {
  it('computes per-broker health, group churn, config smells and top diagnoses for the window', async () => {
    const store = new MemoryStore()
    await store.append(digestSignals())
    for (const d of digestDiagnoses()) await store.recordDiagnosis(d)
    const r = await buildDigest(store, { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
    expect(r.brokers.map((b) => b.broker)).toEqual(['1', '2'])
    const [b1, b2] = r.brokers
    expect(b1.underReplicatedMs).toBe(20 * 60_000)
    expect(b2.underReplicatedMs).toBe(0)
    expect([b1.isrShrinks, b2.isrShrinks]).toEqual([7, 0])
    expect(b1.gcPauseP99Ms).toBe(29)
    expect(b2.gcPauseP99Ms).toBe(15)
    expect([b1.longestSafepointMs, b2.longestSafepointMs]).toEqual([3302, 12])
    // 0.02 GiB per 15 minutes is 0.08 GiB per hour.
    expect(b1.heapAfterGcSlopePerHour! / GiB).toBeCloseTo(0.08, 6)
    expect(b2.heapAfterGcSlopePerHour).toBeCloseTo(0, 6)
    expect([b1.restarts, b2.restarts]).toEqual([1, 0])
    expect(r.groups).toEqual([
      { group: 'churny-connector', rebalances: 144, memberFailures: 72, brokers: ['1'] },
      { group: 'billing', rebalances: 1, memberFailures: 0, brokers: ['2'] },
    ])
    expect(r.smells.map((s) => [s.broker, s.topic, s.key, s.value])).toEqual([
      ['1', 'LoadTestingTopic', 'segment.ms', '100'],
      ['1', undefined, 'zookeeper.session.timeout.ms', '6000'],
      ['2', 'legacy', 'message.format.version', '0.10.2'],
    ])
    expect(r.topDiagnoses.map((d) => [d.ruleId, d.asked])).toEqual([
      ['stw_pause_session_expiry', 2],
      ['group_churn', 1],
    ])
    expect(r.chart.map((p) => p.series.map((s) => s.name))).toEqual([
      ['b1', 'b2'],
      ['b1', 'b2'],
      ['b1', 'b2'],
      ['b1', 'b2'],
    ])
  })

  it('reports nothing for a cluster without signals, rather than zeros that look healthy', async () => {
    const r = await buildDigest(new MemoryStore(), { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
    expect(r.brokers).toEqual([])
    expect(r.signalsSeen).toBe(0)
  })

  it.each([
    ['a sample > 0 counts until the next sample', [[0, 1], [60_000, 0]], 60_000],
    ['a missed scrape counts at most 5 minutes', [[0, 3], [3_600_000, 0]], 300_000],
    ['the last sample counts up to the window end', [[0, 1]], 120_000],
    ['zero samples count nothing', [[0, 0], [60_000, 0]], 0],
  ])('under-replicated time: %s', (_, samples, expected) => {
    const signals = samples.map(([at, value]) => ({ name: 'partitions.under_replicated', at, value, cluster: 'c', broker: '1', source: 't' }))
    expect(underReplicatedMs(signals, 120_000)).toBe(expected)
  })

  it.each([
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.99, 10],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5, 5],
    [[42], 0.99, 42],
  ])('nearest-rank percentile of %j at %f is %f', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected)
  })

  it('fits a least-squares slope, and none from a single point', () => {
    expect(leastSquaresSlope([{ at: 0, value: 1 }, { at: 10, value: 21 }, { at: 20, value: 41 }])).toBeCloseTo(2)
    expect(leastSquaresSlope([{ at: 5, value: 1 }])).toBeUndefined()
  })
})

describe('bot/digest/build-digest over a recorded incident', () => {
  it('counts the alerts that fired in its window, most severe first, whether or not anyone asked why', async () => {
    const { loadIncident, loadRuleSet, replayIncidentAlerts } = await import('../../bot/engine-bridge.js')
    const store = new MemoryStore()
    const loaded = await loadIncident(store, 'test/incidents/seed-000-stw-session-expiry')
    const { rules } = await loadRuleSet(['rules'])
    const now = loaded.lastAt! + 1000
    await replayIncidentAlerts(store, rules, loaded.times, now)
    const severity = new Map(rules.map((r) => [r.name ?? r.id, r.severity as string]))
    const r = await buildDigest(store, { cluster: 'perf-lab', from: now - 86_400_000, to: now, now, severityOf: (id) => severity.get(id) })
    expect(r.topDiagnoses[0]).toMatchObject({ ruleId: 'stw_pause_session_expiry', severity: 'critical', fired: 1, asked: 0, brokers: ['1'] })
    expect(r.topDiagnoses.every((d) => d.fired > 0)).toBe(true)
  })

  it('tells a 40-second under-replication as 40s with its peak, not "0 min"', async () => {
    const store = new MemoryStore()
    const at = DAY_START + 3_600_000
    await store.append([
      { name: 'partitions.under_replicated', at, cluster: 'prod', broker: '1', value: 3, source: 'prometheus:b1' },
      { name: 'partitions.under_replicated', at: at + 40_000, cluster: 'prod', broker: '1', value: 0, source: 'prometheus:b1' },
    ])
    const r = await buildDigest(store, { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
    expect(r.brokers[0]).toMatchObject({ underReplicatedMs: 40_000, underReplicatedMax: 3 })
  })
})
