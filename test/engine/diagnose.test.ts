import { describe, expect, it } from 'vitest'
import { diagnose } from '../../engine/diagnose.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const STW = `
rule stw
  severity critical
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "JVM pause ({safepoint.sync}) on broker {broker} of {cluster}"
       advise "raise zookeeper.session.timeout.ms"
       explains isr.shrink, client.not_leader, leader.change
       run "config broker {broker}"
`
const SHRINKS = `
rule isr_shrinking
  severity critical
  when count(isr.shrink) over 5m > 1 and count(client.not_leader) over 5m > 0
  then cause "ISR shrinking on {topic}"
`

async function diagnoseSignals(ruleText: string, signals: Signal[], window = { from: 0, to: 3600_000 }) {
  const store = new MemoryStore()
  const appended = await store.append(signals)
  expect(appended.rejected).toEqual({})
  const diagnosis = await diagnose(rules(ruleText), store, { cluster: 'c', broker: '1', ...window, now: window.to })
  return { diagnosis, store }
}

const stwIncident = (): Signal[] => [
  sig('safepoint.sync', 7, 3301),
  sig('zk.session_timeout', 10, 7768),
  sig('isr.shrink', 12, undefined, { topic: 'orders', partition: '0' }),
  sig('isr.shrink', 13, undefined, { topic: 'orders', partition: '1' }),
  sig('client.not_leader', 14, undefined, { topic: 'orders', partition: '0' }, undefined),
]

describe('engine/diagnose', () => {
  it('ranks the cause that explains another above it and marks the other explained', async () => {
    const { diagnosis } = await diagnoseSignals(STW + SHRINKS, stwIncident())
    expect(diagnosis.causes.map((c) => c.ruleId)).toEqual(['stw', 'isr_shrinking'])
    const [stw, shrinking] = diagnosis.causes
    expect(stw.explainsRules).toEqual(['isr_shrinking'])
    expect(shrinking.explainedBy).toEqual(['stw'])
    expect(stw.score).toBeGreaterThan(shrinking.score)
    expect(stw.cause).toBe('JVM pause (3.3s) on broker 1 of c')
    expect(stw.run).toEqual(['config broker 1'])
    expect(shrinking.cause).toBe('ISR shrinking on orders')
  })

  it('builds a time-sorted evidence timeline with the explained consequences marked', async () => {
    const { diagnosis } = await diagnoseSignals(STW, stwIncident())
    const [stw] = diagnosis.causes
    expect(stw.evidence.map((e) => [e.at / 1000, e.signal, e.consequence ?? false])).toEqual([
      [7, 'safepoint.sync', false],
      [10, 'zk.session_timeout', false],
      [12, 'isr.shrink', true],
      [13, 'isr.shrink', true],
      [14, 'client.not_leader', true],
    ])
    expect(stw.evidence[0].valueText).toBe('3.3s')
    // two signals in the condition, two explained signals present (the client's joins from the cluster scope)
    expect(stw.corroboration).toBe(4)
    expect(stw.matchedAt).toBe(10_000)
  })

  it('caps consequences and says how many were left out', async () => {
    const many = Array.from({ length: 40 }, (_, i) => sig('isr.shrink', 20 + i, undefined, { topic: 't', partition: String(i) }))
    const { diagnosis } = await diagnoseSignals(STW, [...stwIncident(), ...many])
    const consequences = diagnosis.causes[0].evidence.filter((e) => e.consequence)
    expect(consequences.filter((e) => e.signal === 'isr.shrink')).toHaveLength(5)
    expect(diagnosis.causes[0].consequencesOmitted).toBe(37)
  })

  // The incident at 100 s: safepoint.sync at 107 s is the earliest condition evidence.
  const later = (): Signal[] => stwIncident().map((s) => ({ ...s, at: s.at + 100_000, source: `${s.source}+100` }))
  it.each([
    { name: 'start-up elections 30 s before the cause', before: [70], kept: [] },
    { name: 'an unbroken lead-up (gaps of 4 s)', before: [95, 99, 103], kept: [95, 99, 103] },
    { name: 'a lead-up broken by a 6 s gap', before: [80, 92, 98, 103], kept: [98, 103] },
    { name: 'a lead-up longer than 60 s', before: Array.from({ length: 20 }, (_, i) => 107 - 4 * (i + 1)), kept: [47, 51, 55, 59, 63, 67, 71, 75, 79, 83, 87, 91, 95, 99, 103] },
  ])('takes no consequence before its cause: $name', async ({ before, kept }) => {
    const early = before.map((t) => sig('leader.change', t, undefined, { topic: 'orders', partition: String(t) }))
    const { diagnosis } = await diagnoseSignals(STW, [...later(), ...early])
    const leaders = diagnosis.causes[0].evidence.filter((e) => e.signal === 'leader.change')
    expect(leaders.every((e) => e.consequence)).toBe(true)
    // at most five per explained signal, the nearest to the match at 110 s
    expect(leaders.map((e) => e.at / 1000)).toEqual(kept.slice(-5))
    expect(diagnosis.causes[0].consequencesOmitted ?? 0).toBe(Math.max(0, kept.length - 5))
    const onset = Math.min(...diagnosis.causes[0].evidence.filter((e) => !e.consequence).map((e) => e.at))
    expect(onset).toBe(107_000)
    for (const e of diagnosis.causes[0].evidence) expect(e.at).toBeGreaterThanOrEqual(onset - 60_000)
  })

  it('anchors consequences at the condition evidence, not at how long a gauge condition held', async () => {
    // as in lab-stw-sigstop: elections at start-up, quiet safepoints throughout, the expiry 28 s later
    const text = `rule no_pause when zk.session_expired and safepoint.total < 1s and not safepoint.total >= 1s and not gc.pause >= 1s then cause "expired" explains zk.session_timeout, leader.change`
    const signals = [
      ...Array.from({ length: 12 }, (_, i) => sig('safepoint.total', i * 5, 2)),
      sig('leader.change', 17, undefined, { topic: 'orders', partition: '5' }),
      sig('zk.session_timeout', 42, 10_141),
      sig('zk.session_expired', 45),
      sig('leader.change', 58, undefined, { topic: 'orders', partition: '3' }),
    ]
    const { diagnosis } = await diagnoseSignals(text, signals, { from: 0, to: 60_000 })
    const consequences = diagnosis.causes[0].evidence.filter((e) => e.consequence)
    expect(consequences.map((e) => [e.at / 1000, e.signal])).toEqual([
      [42, 'zk.session_timeout'],
      [58, 'leader.change'],
    ])
  })

  it('shows each raw line once, even when it is both condition evidence and an explained signal', async () => {
    // one GC log line read as two signals: the condition's safepoint.sync and an explained safepoint.total
    const text = STW.replace('explains isr.shrink,', 'explains safepoint.sync, safepoint.total, zk.session_timeout, isr.shrink,')
    const gcLine = { source: 'log:gc.log:7', text: 'the same line' }
    const signals = stwIncident().map((s) => (s.name === 'safepoint.sync' ? { ...s, ...gcLine } : s))
    signals.push({ ...sig('safepoint.total', 7, 3400), ...gcLine })
    const { diagnosis } = await diagnoseSignals(text, signals)
    const sources = diagnosis.causes[0].evidence.map((e) => e.source)
    expect(sources).toEqual([...new Set(sources)])
    expect(sources.filter((s) => s === 'log:gc.log:7')).toHaveLength(1)
    expect(diagnosis.causes[0].evidence.find((e) => e.source === 'log:gc.log:7')!.consequence).toBeUndefined()
  })

  it('keeps scrape samples that share a source (the target) but not a time or label set', async () => {
    const text = STW.replace('explains isr.shrink,', 'explains partitions.under_replicated, isr.shrink,')
    const scrape = (sec: number, topic: string) => ({ ...sig('partitions.under_replicated', sec, 1, { topic }), source: 'prom:http://broker-1:7071/metrics' })
    const samples = [scrape(12, 'orders'), scrape(12, 'payments'), scrape(27, 'orders')]
    const { diagnosis } = await diagnoseSignals(text, [...stwIncident(), ...samples])
    const shown = diagnosis.causes[0].evidence.filter((e) => e.signal === 'partitions.under_replicated')
    expect(shown.map((e) => [e.at / 1000, e.labels?.topic])).toEqual([
      [12, 'orders'],
      [12, 'payments'],
      [27, 'orders'],
    ])
  })

  it.each([
    {
      name: 'severity first',
      text: `rule a severity warning when isr.shrink and jvm.oom and fd.exhausted then cause "a"
             rule b severity critical when broker.shutdown then cause "b"`,
      order: ['b', 'a'],
    },
    {
      name: 'then independent corroborating signals',
      text: `rule a when broker.shutdown then cause "a"
             rule b when isr.shrink and jvm.oom then cause "b"`,
      order: ['b', 'a'],
    },
    {
      name: 'then recency',
      text: `rule a when jvm.oom then cause "a"
             rule b when broker.shutdown then cause "b"`,
      order: ['a', 'b'],
    },
  ])('ranks by $name', async ({ text, order }) => {
    const signals = [sig('isr.shrink', 100), sig('broker.shutdown', 200), sig('jvm.oom', 300, undefined, { kind: 'heap' }), sig('fd.exhausted', 50)]
    const { diagnosis } = await diagnoseSignals(text, signals)
    expect(diagnosis.causes.map((c) => c.ruleId)).toEqual(order)
    const scores = diagnosis.causes.map((c) => c.score)
    expect([...scores].sort((x, y) => y - x)).toEqual(scores)
  })

  it.each([
    {
      name: 'a timeout without a long pause',
      signals: [sig('zk.session_timeout', 10, 7768), sig('safepoint.sync', 9, 1200)],
      message: 'a ZooKeeper session timeout (7.77s) at 00:00:10, but no safepoint.sync > 2s within 5s (the nearest safepoint sync was 1.2s at 00:00:09) — the JVM was not paused long enough — look at the network, disk I/O or host stalls',
    },
    {
      name: 'a long pause without a timeout',
      signals: [sig('safepoint.sync', 9, 3000)],
      message: 'a safepoint sync (3s) at 00:00:09, but no zk.session_timeout within 5s — the session survived; the pause alone did not move leadership',
    },
    {
      name: 'a timeout and no safepoint log at all: a pause cannot be ruled out',
      signals: [sig('zk.session_timeout', 10, 7768)],
      message:
        'a ZooKeeper session timeout (7.77s) at 00:00:10, but no safepoint.sync > 2s within 5s — no safepoint log was given, so a pause cannot be ruled out — add the GC/safepoint log of the same minutes',
    },
    {
      name: 'both, too far apart',
      signals: [sig('zk.session_timeout', 50, 7768), sig('safepoint.sync', 10, 3000)],
      message: 'a ZooKeeper session timeout (7.77s) at 00:00:50 and a safepoint sync (3s) at 00:00:10, but not within 5s of each other (40s apart)',
    },
  ])('explains a near miss: $name', async ({ signals, message }) => {
    const { diagnosis } = await diagnoseSignals(STW, signals)
    expect(diagnosis.causes).toEqual([])
    expect(diagnosis.nearMisses.map((n) => n.message)).toEqual([message])
    expect(diagnosis.nearMisses[0].evidence.length).toBeGreaterThan(0)
  })

  it('never says a pause was too short when a long enough one lies just outside the window: it points at the clocks', async () => {
    const signals = [sig('zk.session_timeout', 100, 7768), sig('safepoint.sync', 90, 8700)]
    const { diagnosis } = await diagnoseSignals(STW, signals, { from: 95_000, to: 3600_000 })
    expect(diagnosis.nearMisses.map((n) => n.message)).toEqual([
      "a ZooKeeper session timeout (7.77s) at 00:01:40, but no safepoint.sync > 2s within 5s (a safepoint sync of 8.7s ending at 00:01:30 was 10s away) — one was logged 10s away: check that the two logs' clocks and time zones agree before looking elsewhere",
    ])
    expect(diagnosis.nearMisses[0].evidence.map((e) => e.signal)).toEqual(['safepoint.sync', 'zk.session_timeout'])
  })

  it('states the span of data it saw per source', async () => {
    const at = (name: string, sec: number, source: string) => ({ ...sig(name, sec), source })
    const signals = [at('isr.shrink', 100, 'log:b1/server.log:12'), at('isr.shrink', 400, 'log:b1/server.log:90'), at('broker.start', 50, 'log:b1/server.log:3'), at('fd.exhausted', 200, 'agent:proc')]
    const { diagnosis } = await diagnoseSignals('rule r when jvm.oom then cause "x"', signals)
    expect(diagnosis.sources).toEqual([
      { source: 'log:b1/server.log', firstAt: 50_000, lastAt: 400_000, signals: 3 },
      { source: 'agent', firstAt: 200_000, lastAt: 200_000, signals: 1 },
    ])
  })

  it.each([
    { name: 'six rebalances in a ten-minute excerpt are a storm of 36 an hour', minutes: 10, fires: true },
    { name: 'the same six spread over an hour are not', minutes: 60, fires: false },
  ])('rates are taken over the data the excerpt covers: $name', async ({ minutes, fires }) => {
    const step = (minutes * 60) / 6
    const signals = [sig('broker.start', 0), ...Array.from({ length: 6 }, (_, i) => sig('group.rebalance', (i + 1) * step, undefined, { group: 'billing' }))]
    const rule = 'rule storm when rate(group.rebalance) by group over 1h > 30/h and count(group.rebalance) by group over 1h >= 5 then cause "storm {group}"'
    const { diagnosis } = await diagnoseSignals(rule, signals)
    expect(diagnosis.causes.map((c) => c.cause)).toEqual(fires ? ['storm billing'] : [])
  })

  it('never reads one line as a storm: a rate divides by at least a tenth of its window', async () => {
    const signals = [sig('group.rebalance', 10, undefined, { group: 'billing' }), sig('group.rebalance', 11, undefined, { group: 'billing' })]
    const { diagnosis } = await diagnoseSignals('rule storm when rate(group.rebalance) by group over 1h > 30/h then cause "storm"', signals)
    expect(diagnosis.causes).toEqual([])
  })

  it('reports an aggregate that came within reach of its threshold, naming the group', async () => {
    const churn = Array.from({ length: 20 }, (_, i) => sig('group.rebalance', i * 60, undefined, { group: 'billing' }))
    const { diagnosis } = await diagnoseSignals('rule churn when count(group.rebalance) by group over 1h > 30 then cause "churn {group}"', churn)
    expect(diagnosis.nearMisses.map((n) => n.message)).toEqual(['count(group.rebalance) over 1h peaked at 20 (group=billing) at 00:19:00, short of > 30'])
  })

  it('reports an and with one operand held', async () => {
    const { diagnosis } = await diagnoseSignals('rule r when jvm.oom{kind="heap"} and fetch.down_conversion > 0 then cause "x"', [sig('jvm.oom', 30, undefined, { kind: 'heap' })])
    expect(diagnosis.nearMisses[0].message).toBe(
      'jvm.oom{kind="heap"} held (last at 00:00:30), but no fetch.down_conversion > 0 — no down-conversion seen — look at heap sizing and request sizes (max_bytes)',
    )
  })

  it('drops a near miss whose observed part a matched cause already accounts for', async () => {
    const gc = 'rule gc severity critical when zk.session_timeout within 5s of gc.pause > 2s then cause "gc"'
    const { diagnosis } = await diagnoseSignals(STW + gc, [sig('safepoint.sync', 7, 3301), sig('zk.session_timeout', 10, 7768)])
    expect(diagnosis.causes.map((c) => c.ruleId)).toEqual(['stw'])
    expect(diagnosis.nearMisses).toEqual([])
    const alone = await diagnoseSignals(gc, [sig('safepoint.sync', 7, 3301), sig('zk.session_timeout', 10, 7768)])
    expect(alone.diagnosis.nearMisses.map((n) => [n.ruleId, n.missing])).toEqual([['gc', 'gc.pause']])
  })

  it.each([
    { name: 'without its trigger, a minority of parts is no near miss', signals: [sig('safepoint.total', 10, 20)], misses: [] },
    { name: 'the trigger alone is one', signals: [sig('zk.session_expired', 10)], misses: ['r'] },
  ])('$name', async ({ signals, misses }) => {
    const text = 'rule r when zk.session_expired and safepoint.total < 1s and not gc.pause >= 1s then cause "cut off"'
    const { diagnosis } = await diagnoseSignals(text, signals)
    expect(diagnosis.nearMisses.map((n) => n.ruleId)).toEqual(misses)
  })

  it('says nothing when no part of a rule held', async () => {
    const { diagnosis } = await diagnoseSignals(STW, [sig('broker.start', 5)])
    expect(diagnosis.nearMisses).toEqual([])
  })

  it('summarises what is abnormal when nothing matched', async () => {
    const signals = [
      sig('isr.shrink', 100, undefined, { topic: 't' }),
      sig('isr.shrink', 200, undefined, { topic: 't' }),
      sig('gc.pause', 150, 900, { kind: 'young' }),
      sig('gc.pause', 160, 1800, { kind: 'mixed' }),
      sig('group.stable', 170, undefined, { group: 'g' }),
      sig('request_handler.idle', 100, 0.5),
      sig('request_handler.idle', 115, 0.05),
      sig('fd.open', 100, 950),
      sig('fd.max', 100, 1024),
    ]
    const { diagnosis } = await diagnoseSignals(STW, signals)
    expect(diagnosis.causes).toEqual([])
    expect(diagnosis.signalsSeen).toBe(signals.length)
    // The 900 ms young pause is routine (pauses are listed from 1 s); the 1.8 s mixed one is not.
    expect(diagnosis.abnormal.map((a) => a.summary)).toEqual([
      '2 × an ISR shrink, last at 00:03:20',
      'fd.open reached 950 of fd.max 1024 (93%) at 00:01:40',
      '1 × a GC pause, last at 00:02:40; worst 1.8s at 00:02:40',
      'request_handler.idle below 20% in 1 of 2 samples; worst 5% at 00:01:55',
    ])
  })

  it('tells "no data" from "nothing wrong"', async () => {
    const { diagnosis } = await diagnoseSignals(STW, [])
    expect(diagnosis).toMatchObject({ causes: [], nearMisses: [], abnormal: [], signalsSeen: 0, rulesEvaluated: 1 })
  })

  it('joins cluster-wide signals from other brokers, but not other brokers\' own signals', async () => {
    const text = 'rule offline severity critical when partitions.offline > 0 then cause "offline"\nrule shrink when isr.shrink then cause "shrink"'
    const { diagnosis } = await diagnoseSignals(text, [sig('partitions.offline', 10, 3, undefined, '2'), sig('isr.shrink', 10, undefined, undefined, '3')])
    expect(diagnosis.causes.map((c) => c.ruleId)).toEqual(['offline'])
  })

  it('only looks at the window, but reaches back for an aggregate\'s history', async () => {
    const churn = Array.from({ length: 4 }, (_, i) => sig('group.rebalance', 1000 + i * 60, undefined, { group: 'g' }))
    const text = 'rule churn when count(group.rebalance) by group over 1h > 3 then cause "churn {group} ({group.rebalance})"'
    const inside = await diagnoseSignals(text, churn, { from: 1200_000, to: 1300_000 })
    expect(inside.diagnosis.causes.map((c) => c.cause)).toEqual(['churn g (4)'])
    const after = await diagnoseSignals(text, churn, { from: 5000_000, to: 6000_000 })
    expect(after.diagnosis.causes).toEqual([])
  })

  it('records the top causes for the digest', async () => {
    const { store } = await diagnoseSignals(STW + SHRINKS, stwIncident())
    const recorded = await store.recentDiagnoses(0)
    expect(recorded.map((d) => [d.ruleId, d.broker, d.severity, d.cause])).toEqual([['stw', '1', 'critical', 'JVM pause (3.3s) on broker 1 of c']])
  })
})
