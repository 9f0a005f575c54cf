import { describe, expect, it } from 'vitest'
import { parseLogText } from '../../adapters/logs/parser.js'
import { renderDiagnosis as renderSlack } from '../../bot/render/diagnosis.js'
import { renderDiagnosis } from '../../cli/render-text.js'
import { diagnose } from '../../engine/diagnose.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'
import { rules } from './parse.js'

// Real Kafka output: seed 001 (Kafka 3.6, as the report pasted it), the lab's Kafka 3.9 roll-storm
// recording (test/incidents/lab-roll-storm) and test/corpus/fetcher-truncation-not-allowed-crashloop.
const SEED_001 = [
  '[2024-01-16 10:07:01,112] ERROR Error while appending records to LoadTestingTopic in dir /broder/log (org.apache.kafka.storage.internals.log.LogDirFailureChannel)',
  'java.io.IOException: Map failed',
  '\tat java.base/sun.nio.ch.FileChannelImpl.map(FileChannelImpl.java:1016)',
  '\tat kafka.log.LogSegment.append(LogSegment.scala:157)',
  'Caused by: java.lang.OutOfMemoryError: Map failed',
  '\tat java.base/sun.nio.ch.FileChannelImpl.map0(Native Method)',
]
const SNAPSHOT = (stamp: string, partition: number, offset: number) => [
  `[${stamp}] ERROR Error while deleting producer state snapshot /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-${partition}/${String(offset).padStart(20, '0')}.snapshot for LoadTestingTopic-${partition} in dir /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data (org.apache.kafka.storage.internals.log.LogDirFailureChannel)`,
  `java.nio.file.FileSystemException: /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-${partition}/${String(offset).padStart(20, '0')}.snapshot: Too many open files`,
  '\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:100)',
]
const FATAL =
  "[2024-01-16 10:09:57,590] FATAL [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Exiting because log truncation is not allowed for partition test-produce-consume-0, current leader's latest offset 2051 is less than replica's latest offset 2391 (kafka.server.ReplicaFetcherThread)"

const DIR_RULE = `
rule dir_failed
  severity critical
  when log.dir_failure
  then cause "log dir failed"
`
const NOTHING_RULE = `
rule pause
  severity critical
  when safepoint.sync > 2s
  then cause "pause"
`

function parsed(lines: string[], extra: Partial<Parameters<typeof parseLogText>[1]> = {}): Signal[] {
  return parseLogText(lines.join('\n'), { path: 'server.log', cluster: 'c', broker: '1', ...extra }).signals
}

async function whyOf(ruleText: string, signals: Signal[], window = { from: Date.parse('2024-01-16T10:00:00Z'), to: Date.parse('2024-01-16T11:00:00Z') }) {
  const store = new MemoryStore()
  expect((await store.append(signals)).rejected).toEqual({})
  return diagnose(rules(ruleText), store, { cluster: 'c', broker: '1', ...window, now: window.to, record: false })
}

describe('engine/unexplained', () => {
  it('lists an error no rule explains, with its count, times, example line and root cause', async () => {
    const d = await whyOf(NOTHING_RULE, parsed(SEED_001))
    // No rule matched: the only cause is the class-level baseline made from the same line.
    expect(d.causes.map((c) => [c.ruleId, c.confidence])).toEqual([['baseline.memory', 'baseline']])
    expect(d.causes[0].cause).toContain('java.lang.OutOfMemoryError: Map failed')
    expect(d.unexplained).toHaveLength(1)
    expect(d.unexplained![0]).toMatchObject({
      severity: 'error',
      count: 1,
      firstAt: Date.parse('2024-01-16T10:07:01.112Z'),
      lastAt: Date.parse('2024-01-16T10:07:01.112Z'),
      source: 'log:server.log:1',
      logger: 'org.apache.kafka.storage.internals.log.LogDirFailureChannel',
      exception: 'java.io.IOException',
      rootCause: 'java.lang.OutOfMemoryError: Map failed',
      novel: true,
    })
    expect(d.unexplained![0].example.split('\n')).toEqual([SEED_001[0], SEED_001[4]])
    // Listed once: not again under "abnormal".
    expect(d.abnormal.map((a) => a.signal)).not.toContain('log.error')
  })

  it('does not list an error whose record a matched rule reads (its specific signal is the rule\'s condition)', async () => {
    const d = await whyOf(DIR_RULE, parsed(SEED_001))
    expect(d.causes.map((c) => c.ruleId)).toEqual(['dir_failed'])
    expect(d.unexplained).toEqual([])
  })

  it('does not list errors a matched rule explains by name, and lists them again when the rule does not match', async () => {
    const explainsAll = `${DIR_RULE}       explains log.error, log.fatal\n`
    const signals = parsed([...SEED_001, FATAL])
    expect((await whyOf(explainsAll, signals)).unexplained).toEqual([])
    const withoutDirFailure = signals.filter((s) => s.name !== 'log.dir_failure')
    expect((await whyOf(explainsAll, withoutDirFailure)).unexplained!.map((u) => u.severity)).toEqual(['fatal', 'error'])
  })

  it('makes 10,000 repetitions of one wording one row, and merges wordings that differ in a name', async () => {
    const lines: string[] = []
    for (let i = 0; i < 10_000; i++) {
      const ms = String(i % 1000).padStart(3, '0')
      const sec = String(Math.floor(i / 1000)).padStart(2, '0')
      lines.push(...SNAPSHOT(`2024-01-16 10:20:${sec},${ms}`, i % 36, 3797 + i))
    }
    // The same statement for two topics whose names hold no digits: one row after mining.
    lines.push(...SEED_001, SEED_001[0].replace('10:07:01,112', '10:30:00,000').replace('LoadTestingTopic', 'orders'))
    const d = await whyOf(NOTHING_RULE, parsed(lines))
    const rows = d.unexplained!
    expect(rows.map((r) => r.count)).toEqual([10_000, 2])
    expect(rows[0].firstAt).toBe(Date.parse('2024-01-16T10:20:00.000Z'))
    expect(rows[0].lastAt).toBe(Date.parse('2024-01-16T10:20:09.999Z'))
    // One row whether the wording catalogue names the statement or the miner merged the two.
    expect(rows[1].example).toContain('orders')
    if (rows[1].pattern !== undefined) expect(rows[1].pattern).toBe('Error while appending records to <*> in dir <path>')
  })

  it('merges mined templates that differ in one word, and keeps a catalogue template apart', async () => {
    const at = Date.parse('2024-01-16T10:50:00Z')
    const err = (i: number, template: string, pattern?: string): Signal => ({
      name: 'log.error',
      at: at + i * 1000,
      cluster: 'c',
      broker: '1',
      source: `log:server.log:${i + 1}`,
      labels: pattern ? { template, pattern } : { template },
      text: `line ${i}`,
    })
    const d = await whyOf(NOTHING_RULE, [
      err(0, 'm-00000001', 'Error while appending records to LoadTestingTopic in dir <path>'),
      err(1, 'm-00000002', 'Error while appending records to orders in dir <path>'),
      err(2, 'm-00000002', 'Error while appending records to orders in dir <path>'),
      err(3, 'a7b83dd76d'),
    ])
    expect(d.unexplained!.map((u) => [u.count, u.pattern, u.templates])).toEqual([
      [3, 'Error while appending records to <*> in dir <path>', ['m-00000001', 'm-00000002']],
      [1, undefined, undefined],
    ])
    expect(d.unexplained![0].template).toMatch(/^m-[0-9a-f]{8}$/)
    expect(d.unexplained![0].example).toBe('line 2')
  })

  it('ranks fatal before error, then a template new to the window before one seen the day before', async () => {
    const day = 24 * 3_600_000
    const seenYesterday = parsed([...SNAPSHOT('2024-01-15 22:00:00,000', 1, 1)])
    const window = [...SNAPSHOT('2024-01-16 10:20:00,000', 1, 2), ...SNAPSHOT('2024-01-16 10:20:01,000', 2, 3), ...SEED_001, FATAL]
    const d = await whyOf(NOTHING_RULE, [...seenYesterday, ...parsed(window)])
    expect(d.unexplained!.map((u) => [u.severity, u.count, u.novel])).toEqual([
      ['fatal', 1, true],
      ['error', 1, true],
      ['error', 2, false],
    ])
    // Older than a day does not count against novelty.
    const old = parsed(SNAPSHOT('2024-01-14 10:00:00,000', 1, 1))
    expect(old[0].at).toBeLessThan(Date.parse('2024-01-16T10:00:00Z') - day)
    const d2 = await whyOf(NOTHING_RULE, [...old, ...parsed(window)])
    expect(d2.unexplained!.every((u) => u.novel)).toBe(true)
  })

  it('says when the times are stand-ins for a log without timestamps', async () => {
    const undatedAt = Date.parse('2024-01-16T10:30:00Z')
    const d = await whyOf(NOTHING_RULE, parsed(SEED_001.slice(1), { undatedAt }))
    expect(d.timesUnknown).toEqual({ signals: 3, files: ['server.log'] })
    expect(d.unexplained!.map((u) => u.exception)).toEqual(['java.io.IOException'])
    expect(renderDiagnosis(d)).toContain('times unknown: 3 signals from server.log')
  })

  it('keeps the ten most telling templates and counts the rest', async () => {
    // Thirty templates (as the adapter labels them) of one error each, the later ones more recent.
    const signals: Signal[] = []
    for (let i = 0; i < 30; i++) signals.push({ name: 'log.error', at: Date.parse('2024-01-16T10:40:00Z') + i * 1000, cluster: 'c', broker: '1', source: `log:server.log:${i + 1}`, labels: { template: `t${i}` }, text: `line ${i}` })
    const d = await whyOf(NOTHING_RULE, signals)
    expect(d.unexplained!.map((u) => u.template)).toEqual(['t29', 't28', 't27', 't26', 't25', 't24', 't23', 't22', 't21', 't20'])
    expect(d.unexplainedOmitted).toBe(20)
    expect(renderDiagnosis(d)).toContain('… 20 more error templates not shown')
  })

  it('is shown in the terminal and in Slack, data escaped and within the section limit', async () => {
    const d = await whyOf(NOTHING_RULE, parsed([...SEED_001, FATAL]))
    const text = renderDiagnosis(d)
    expect(text).toContain('Unexplained errors (no matched rule accounts for them):')
    expect(text).toContain('root cause: java.lang.OutOfMemoryError: Map failed')
    expect(text).toContain(`e.g. ${FATAL.slice(0, 40)}`)
    // Slack: broker text is data; mentions and markup in it must not render, and the section fits.
    const hostile = { ...d.unexplained![0], example: `${'<!channel> & <@U123> '.repeat(20)}\n${'x'.repeat(4000)}`, rootCause: '<https://evil.example|click>' }
    const rows = Array.from({ length: 10 }, (_, i) => ({ ...hostile, template: `t${i}` }))
    expect(text).toContain('No rule matched; the most telling failure lines, explained by their failure class (baseline):')
    expect(text.indexOf('confidence: baseline')).toBeLessThan(text.indexOf('Unexplained errors'))
    expect(renderSlack(d, { timeZone: 'UTC' }).text).toMatch(/no rule matched in .*; 2 unexplained error templates — baseline: Replication: the log says why — "\[ReplicaFetcher .*Exiting because log truncation is not allowed/)
    // A baseline says so and offers no rule to show.
    const slack = renderSlack(d, { timeZone: 'UTC' })
    expect(slack.parts.some((p) => p.kind === 'section' && p.text.includes('confidence: _baseline_'))).toBe(true)
    expect(JSON.stringify(slack.parts)).not.toContain('kafka_show_rule')
    const msg = renderSlack({ ...d, unexplained: rows, unexplainedOmitted: 5 }, { timeZone: 'UTC' })
    expect(msg.parts[0]).toEqual({ kind: 'header', text: 'Broker 1 (c): no rule matched; 15 unexplained error templates; most telling failure: replication (baseline)' })
    const section = msg.parts.find((p) => p.kind === 'section' && p.text.startsWith('*Unexplained errors*')) as { text: string } | undefined
    expect(section).toBeDefined()
    expect(section!.text.length).toBeLessThanOrEqual(3000)
    expect(section!.text).not.toMatch(/<!channel>|<@U123>|<https:/)
    expect(section!.text).toMatch(/• … \d+ more error templates$/)
  })
})
