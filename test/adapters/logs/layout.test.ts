import { describe, expect, it } from 'vitest'
import { LogParser } from '../../../adapters/logs/parser.js'
import { brief, parse } from './helpers.js'

// The seed 000 ZooKeeper line as each deployment writes it. The message is verbatim; the layouts are
// the ones the named distributions configure: Apache Kafka's config/log4j.properties
// "[%d] %p %m (%c)%n", Strimzi's "%d{ISO8601} %p %m (%c) [%t]%n", Cloudera's "%d{ISO8601} %p %c: %m%n".
const MSG = 'Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062'
const APACHE = `[2018-08-06 01:28:02,562] WARN ${MSG} (org.apache.zookeeper.ClientCnxn)`
const AT = Date.parse('2018-08-06T01:28:02.562Z')

const rows: [label: string, text: string, layout: string, wrapper: string | undefined][] = [
  ['Apache Kafka log4j', APACHE, 'apache', undefined],
  ['Strimzi', `2018-08-06 01:28:02,562 WARN ${MSG} (org.apache.zookeeper.ClientCnxn) [main-SendThread(zk-0:2181)]`, 'strimzi', undefined],
  ['Cloudera', `2018-08-06 01:28:02,562 WARN org.apache.zookeeper.ClientCnxn: ${MSG}`, 'cloudera', undefined],
  ['docker-compose prefix', `kafka_1      | ${APACHE}`, 'apache', 'docker-compose'],
  ['Kubernetes CRI prefix', `2018-08-06T01:28:02.600123456Z stdout F ${APACHE}`, 'apache', 'kubernetes'],
  ['Docker json-file driver', JSON.stringify({ log: `${APACHE}\n`, stream: 'stdout', time: '2018-08-06T01:28:02.600123456Z' }), 'apache', 'docker-json'],
]

describe('adapters/logs/layout', () => {
  it.each(rows)('%s', (_label, text, layout, wrapper) => {
    const p = new LogParser({ path: 'server.log', cluster: 'c1', broker: '1' })
    const signals = [...p.push(`${text}\n`), ...p.end()]
    expect(p.layout).toBe(layout)
    expect(p.wrapper).toBe(wrapper)
    expect(p.format).toBe('kafka')
    expect(signals.map(brief)).toEqual([{ name: 'zk.session_timeout', value: 7768, broker: '1', labels: { session: '0x164f8ea86020062' } }])
    expect(signals[0].at).toBe(AT)
    expect(signals[0].source).toBe('log:server.log:1')
  })

  it('learns a harness prefix on every line and keeps the prefixed stack trace with its record (corpus zk-timeout-injected-network-latency)', () => {
    // Verbatim from confluentinc/ksql#9613: a fault-injection harness writes its own columns before each line.
    const text = [
      '[  398550] [    66.954086] [service_kafka-3] [I] [2022-09-23 15:25:24,780] WARN Client session timed out, have not heard from server in 12001ms for session id 0x100000045930005 (org.apache.zookeeper.ClientCnxn) ',
      '[  398550] [    66.954601] [service_kafka-3] [I] [2022-09-23 15:25:24,780] WARN Session 0x100000045930005 for sever zookeeper/10.20.20.10:2181, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn) ',
      '[  398550] [    66.954601] [service_kafka-3] [I] org.apache.zookeeper.ClientCnxn$SessionTimeoutException: Client session timed out, have not heard from server in 12001ms for session id 0x100000045930005 ',
      '[  398550] [    66.954601] [service_kafka-3] [I] \tat org.apache.zookeeper.ClientCnxn$SendThread.run(ClientCnxn.java:1258) ',
      '[  398581] [    68.329913] [service_kafka-3] [I] [2022-09-23 15:25:26,156] INFO Opening socket connection to server zookeeper/10.20.20.10:2181. (org.apache.zookeeper.ClientCnxn) ',
    ].join('\n')
    const p = new LogParser({ path: 'server.log', cluster: 'c1', broker: '3' })
    const signals = [...p.push(`${text}\n`), ...p.end()]
    expect(p.wrapper).toBe('line-prefix')
    expect(p.layout).toBe('apache')
    // The prefixed exception lines joined the WARN record above them: the disconnect, a WARN with a stack trace.
    expect(signals.map((s) => s.name)).toEqual(['zk.session_timeout', 'zk.disconnected', 'log.warn_exception'])
    expect(signals[0].at).toBe(Date.parse('2022-09-23T15:25:24.780Z'))
    expect(p.stats.unparsed).toEqual(expect.objectContaining({ 'unknown-format': 0 }))
  })

  it("reads ZooKeeper's own pattern: the server id before the level, the thread and class before the message", () => {
    // Verbatim from apache/zookeeper#83 (3.4, election rounds timing out) and 31z4/zookeeper-docker#14 (3.4 under
    // docker-compose): "%d{ISO8601} [myid:%X{myid}] - %-5p [%t:%C{1}@%L] - %m%n".
    const text = [
      '2016-09-17 14:46:30,529 [myid:3] - INFO  [QuorumPeer[myid=3]/172.18.32.90:2181:FastLeaderElection@852] - Notification time out: 1600',
      'zoo3_1  | 2017-05-28 13:22:13,044 [myid:3] - WARN  [WorkerSender[myid=3]:QuorumCnxManager@588] - Cannot open channel to 2 at election address zoo2/172.18.0.3:3888',
    ]
    const p = new LogParser({ path: 'zookeeper.log', cluster: 'c1', broker: '3' })
    const signals = [...p.push(`${text[0]}\n`), ...p.end()]
    expect(p.layout).toBe('strimzi')
    expect(signals.map(brief)).toEqual([{ name: 'zk.server_election_timeout', value: 1600, broker: '3' }])
    expect(signals[0].at).toBe(Date.parse('2016-09-17T14:46:30.529Z'))
    const q = new LogParser({ path: 'zookeeper.log', cluster: 'c1', broker: '3' })
    q.push(`${text[1]}\n`)
    q.end()
    expect(q.wrapper).toBe('docker-compose')
    expect(q.layout).toBe('strimzi')
    expect(q.stats.unparsed).toEqual(expect.objectContaining({ 'unknown-format': 0 }))
  })

  it('does not take a message that quotes a log line for a prefix', () => {
    const quoted = `${APACHE.replace(MSG, 'Found "[2018-08-06 01:28:02,562] WARN x" in the reply')}`
    const p = new LogParser({ path: 'server.log', cluster: 'c1', broker: '1' })
    p.push(`${quoted}\n${APACHE}\n`)
    p.end()
    expect(p.wrapper).toBeUndefined()
    expect(p.layout).toBe('apache')
  })

  it('joins a line the json-file driver split into 16 KiB pieces', () => {
    const head = APACHE.slice(0, 40)
    const rest = APACHE.slice(40)
    const text = [
      JSON.stringify({ log: head, stream: 'stdout', time: '2018-08-06T01:28:02.600Z' }),
      JSON.stringify({ log: `${rest}\n`, stream: 'stdout', time: '2018-08-06T01:28:02.600Z' }),
    ].join('\n')
    const r = parse(text)
    expect(r.signals.map((s) => s.name)).toEqual(['zk.session_timeout'])
    expect(r.signals[0].text).toBe(APACHE)
  })

  it('reads JDK 8 GC lines with only an uptime stamp once a date+uptime line anchors the JVM start', () => {
    // seed 000: the statistics row (uptime only) precedes the stopped-time line that carries both stamps.
    const text =
      '              vmop                    [threads: total initially_running wait_to_block]    [time: spin block sync cleanup vmop] page_trap_count\n' +
      '        488.188: no vm operation      [      73          1              1    ]      [     1     0  3301     0     0    ]  1\n' +
      '2018-08-13T22:16:09.744-0400: 491.491: Total time for which application threads were stopped: 3.3021375 seconds, Stopping threads took: 3.3018193 seconds\n'
    const r = parse(text)
    expect(r.format).toBe('gc')
    const sync = r.signals.filter((s) => s.name === 'safepoint.sync')
    expect(sync.map((s) => s.value)).toEqual([3301, 3301.8193])
    // The row is stamped when the safepoint began; its sync is filed where the sync ended (a pause is an interval).
    expect(sync[0].at).toBe(Date.parse('2018-08-13T22:16:09.744-04:00') - 491_491 + 488_188 + 3301)
  })
})
