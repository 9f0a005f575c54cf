import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { brief, parse } from './helpers.js'

// A pause is filed at its end and covers [at - value, at] (catalogue `lasting`); lines stamped when
// the pause began are moved by the pause. Lines are JDK output from seed 000 and the matcher tables.
const incidents = join(import.meta.dirname, '../../incidents')

describe('adapters/logs/pause-intervals', () => {
  it('files a JDK 8 collection, stamped when it began, at its end', () => {
    const line = '2021-01-15T15:17:20.000+0800: 3.200: [Full GC (Allocation Failure)  18M->18M(20M), 0.0719656 secs]'
    const stamp = Date.parse('2021-01-15T15:17:20.000+08:00')
    const pause = parse(line, { format: 'gc' }).signals.find((s) => s.name === 'gc.pause')!
    expect(pause.at).toBe(stamp + 72)
    expect(pause.at - pause.value!).toBeCloseTo(stamp, 0)
  })

  it('leaves a unified-logging pause where it is: JDK 9+ logs it when it ends', () => {
    const line = '[2022-01-01T00:00:00.044+0000][info][gc] GC(8) Pause Full (System.gc()) 25M->1M(16M) 1.109ms'
    const pause = parse(line, { format: 'gc' }).signals.find((s) => s.name === 'gc.pause')!
    expect(pause.at).toBe(Date.parse('2022-01-01T00:00:00.044Z'))
  })

  it('puts the sync of seed 000 at the same instant whether read from the statistics row (stamped at the start) or the stop line (stamped at the end)', () => {
    const jvmStart = Date.parse('2018-08-13T22:07:58.253-04:00')
    const row = '        488.188: no vm operation      [      73          1              1    ]      [     1     0  3301     0     0    ]  1'
    const stop = '        2018-08-13T22:16:09.744-0400: 491.491: Total time for which application threads were stopped: 3.3021375 seconds, Stopping threads took: 3.3018193 seconds'
    const fromRow = parse(row, { format: 'gc', jvmStart }).signals[0]
    const signals = parse(stop, { format: 'gc', jvmStart }).signals
    const total = signals.find((s) => s.name === 'safepoint.total')!
    const sync = signals.find((s) => s.name === 'safepoint.sync')!
    expect(total.at).toBe(Date.parse('2018-08-13T22:16:09.744-04:00'))
    // The stop began 3.302 s before its line; the sync was its first 3.3018 s.
    expect(sync.at).toBe(total.at - Math.round(3302.1375 - 3301.8193))
    expect(Math.abs(fromRow.at - sync.at)).toBeLessThanOrEqual(5)
    expect(Math.abs(fromRow.at - fromRow.value! - (total.at - total.value!))).toBeLessThanOrEqual(5)
  })
})

describe('adapters/logs/session-matchers', () => {
  const labStw = readFileSync(join(incidents, 'lab-stw/broker-3/server.log'), 'utf8')
  const networkCut = readFileSync(join(incidents, 'zk-timeout-network-cut/broker-4/server.log'), 'utf8')
  const line = (text: string, pattern: string) => text.split('\n').find((l) => l.includes(pattern))!

  it.each([
    ['ZooKeeper 3.5+ client connect: the timeout asked for', () => line(labStw, 'Initiating client connection'), [{ name: 'config.zookeeper_session_timeout_ms', value: 6000 }]],
    [
      'ZooKeeper 3.5+ session granted ("session id =")',
      () => line(labStw, 'Session establishment complete'),
      [{ name: 'zk.negotiated_session_timeout', value: 6000 }, { name: 'zk.session_established', labels: { session: '0x100001597490002' } }],
    ],
    [
      'ZooKeeper 3.4 session granted ("sessionid =")',
      () => line(networkCut, 'Session establishment complete'),
      [{ name: 'zk.negotiated_session_timeout', value: 6000 }, { name: 'zk.session_established', labels: { session: '0x1694ab0d2f80031' } }],
    ],
  ])('%s', (_label, text, expected) => {
    expect(parse(text(), { broker: '3' }).signals.filter((s) => s.name !== 'log.warn_exception').map(brief)).toEqual(expected.map((e) => ({ ...e, broker: '3' })))
  })

  it('reads both session timeouts and replica.lag.time.max.ms from the KafkaConfig dump at start-up, and nothing from other config dumps', () => {
    const lines = labStw.split('\n')
    const start = lines.findIndex((l) => l.includes('KafkaConfig values:'))
    let end = start + 1
    while (lines[end].startsWith('\t')) end++
    const dump = lines.slice(start, end).join('\n')
    const facts = parse(dump, { broker: '3' }).signals.map(brief)
    expect(facts).toEqual(
      expect.arrayContaining([
        { name: 'config.zookeeper_session_timeout_ms', value: 6000, broker: '3' },
        { name: 'config.broker_session_timeout_ms', value: 9000, broker: '3' },
        { name: 'config.replica_lag_time_max_ms', value: 30000, broker: '3' },
      ]),
    )
    const notKafka = dump.replace('KafkaConfig values:', 'AdminClientConfig values:')
    expect(parse(notKafka, { broker: '3' }).signals.filter((s) => s.name.includes('session') || s.name.includes('replica_lag'))).toEqual([])
  })
})
