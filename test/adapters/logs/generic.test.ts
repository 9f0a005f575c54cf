import { findTemplate } from '../../../adapters/logs/wording/lookup.js'
import { describe, expect, it } from 'vitest'
import { GENERIC_SIGNALS } from '../../../adapters/logs/generic.js'
import { parse } from './helpers.js'

// Every line below is real output: the lab's Kafka 3.9 recordings (test/incidents/lab-*), seed 001
// (Kafka 3.6), and the public incident reports kept in test/corpus/<case>/ (named per test).
const generic = <T extends { name: string }>(signals: T[]): T[] => signals.filter((s) => (GENERIC_SIGNALS as readonly string[]).includes(s.name))

const LAB_SNAPSHOT_ERROR = [
  '[2026-11-29 20:11:25,846] ERROR Error while deleting producer state snapshot /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-5/00000000000000003797.snapshot for LoadTestingTopic-5 in dir /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data (org.apache.kafka.storage.internals.log.LogDirFailureChannel)',
  'java.nio.file.FileSystemException: /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-5/00000000000000003797.snapshot: Too many open files',
  '\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:100)',
  '\tat java.base/sun.nio.fs.UnixException.rethrowAsIOException(UnixException.java:106)',
  '[2026-11-29 20:11:25,847] ERROR Uncaught exception in scheduled task \'flush-log\' (org.apache.kafka.server.util.KafkaScheduler)',
  'org.apache.kafka.common.errors.KafkaStorageException: Error while deleting producer state snapshot /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-5/00000000000000003797.snapshot for LoadTestingTopic-5 in dir /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data',
  'Caused by: java.nio.file.FileSystemException: /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-5/00000000000000003797.snapshot: Too many open files',
  '\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:100)',
].join('\n')

// test/corpus/disk-full-startup-checkpoint-strimzi (Strimzi layout, Kafka 3.x).
const STRIMZI_STARTUP = [
  '2022-10-14 22:52:00,579 INFO [LogLoader partition=vcdr-logs-3, dir=/var/lib/kafka/data-0/kafka-log2] Producer state recovery took 0ms for snapshot load and 0ms for segment recovery from offset 0 (kafka.log.UnifiedLog$) [log-recovery-/var/lib/kafka/data-0/kafka-log2]',
  '2022-10-14 22:52:00,580 ERROR [KafkaServer id=2] Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer) [main]',
  'org.apache.kafka.common.errors.KafkaStorageException: Error while writing to checkpoint file /var/lib/kafka/data-0/kafka-log2/__consumer_offsets-20/leader-epoch-checkpoint',
  'Caused by: java.io.IOException: No space left on device',
  '        at java.base/java.io.FileOutputStream.writeBytes(Native Method)',
  '        at java.base/java.io.FileOutputStream.write(FileOutputStream.java:354)',
].join('\n')

// test/corpus/fetcher-truncation-not-allowed-crashloop (Kafka 1.0).
const FATAL_TRUNCATION =
  "[2017-11-10 13:17:57,590] FATAL [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Exiting because log truncation is not allowed for partition test-produce-consume-0, current leader's latest offset 2051 is less than replica's latest offset 2391 (kafka.server.ReplicaFetcherThread)"

// test/corpus/log-dir-failed-permissions-cp-kafka (Kafka 2.x): WARN lines without an exception.
const WARN_PLAIN = [
  '[2021-12-22 13:03:15,573] WARN [ReplicaManager broker=1] Stopping serving replicas in dir /var/lib/kafka/data (kafka.server.ReplicaManager)',
  '[2021-12-22 13:03:15,588] WARN Stopping serving logs in dir /var/lib/kafka/data (kafka.log.LogManager)',
].join('\n')

// Kafka 3.9 with ZooKeeper 3.8 (lab recording): a WARN record carrying an exception.
const WARN_EXCEPTION = [
  '[2026-11-29 20:07:44,539] WARN Session 0x100001597490001 for server /127.0.0.1:45005, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)',
  'org.apache.zookeeper.ClientCnxn$SessionTimeoutException: Client session timed out, have not heard from server in 9539ms for session id 0x100001597490001',
  '\tat org.apache.zookeeper.ClientCnxn$SendThread.run(ClientCnxn.java:1257)',
].join('\n')

// test/corpus/jvm-commit-memory-failed-docker-compose: HotSpot's banner on stdout, under docker-compose.
const JVM_BANNER = [
  "kafka_1      | OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00000000c0000000, 1073741824, 0) failed; error='Out of memory' (errno=12)",
  'kafka_1      | #',
  'kafka_1      | # There is insufficient memory for the Java Runtime Environment to continue.',
  'kafka_1      | # Native memory allocation (mmap) failed to map 1073741824 bytes for committing reserved memory.',
  'kafka_1      | # An error report file with more information is saved as:',
  'kafka_1      | # /tmp/hs_err_pid1.log',
].join('\n')

// seed 001 (Kafka 3.6 on JDK 11), as the report pasted it: no timestamps, frames without a tab.
const SEED_001_UNDATED = [
  'java.io.IOException: Map failed ',
  'at java.base/sun.nio.ch.FileChannelImpl.map(FileChannelImpl.java:1016) ',
  'at kafka.log.LogSegment.append(LogSegment.scala:157) ',
  'Caused by: java.lang.OutOfMemoryError: Map failed ',
  'at java.base/sun.nio.ch.FileChannelImpl.map0(Native Method) ',
].join('\n')

describe('adapters/logs/generic', () => {
  it('makes every ERROR record a log.error with its exception, root cause and what the line names', () => {
    const r = parse(LAB_SNAPSHOT_ERROR, { broker: '1' })
    const g = generic(r.signals)
    expect(g.map((s) => s.name)).toEqual(['log.error', 'log.error'])
    expect(g[0].labels).toMatchObject({
      logger: 'org.apache.kafka.storage.internals.log.LogDirFailureChannel',
      exception: 'java.nio.file.FileSystemException',
      topic: 'LoadTestingTopic',
      partition: '5',
      path: '/tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data',
    })
    expect(g[0].labels?.root_cause).toBeUndefined()
    expect(g[1].labels).toMatchObject({
      logger: 'org.apache.kafka.server.util.KafkaScheduler',
      exception: 'org.apache.kafka.common.errors.KafkaStorageException',
      root_cause: 'java.nio.file.FileSystemException: /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-5/00000000000000003797.snapshot: Too many open files',
    })
    // Evidence: the header line and the telling Caused by, from the record's own stack.
    expect(g[1].text?.split('\n')).toEqual([LAB_SNAPSHOT_ERROR.split('\n')[4], LAB_SNAPSHOT_ERROR.split('\n')[6]])
    expect(g.map((s) => s.source)).toEqual(['log:test.log:1', 'log:test.log:5'])
    // Both records also yield specific signals, named on the generic one so rules can account for it.
    expect(g[0].labels?.signals?.split(',')).toContain('fd.exhausted')
  })

  it('labels a mined template when the wording catalogue has none, and the same wording gets the same id', () => {
    const r = parse(LAB_SNAPSHOT_ERROR, { broker: '1' })
    const [first] = generic(r.signals)
    expect(first.labels?.template).toMatch(/^(m-[0-9a-f]{8}|.+)$/)
    if (first.labels?.template?.startsWith('m-')) expect(first.labels.pattern).toBe('Error while deleting producer state snapshot <path> for LoadTestingTopic-<num> in dir <path>')
    const again = generic(parse(LAB_SNAPSHOT_ERROR.replace('LoadTestingTopic-5 in dir', 'LoadTestingTopic-2 in dir'), { broker: '1' }).signals)[0]
    expect(again.labels?.template).toBe(first.labels?.template)
  })

  it('tells apart two wordings of a logger whose own statement is only "{}" (LogDirFailureChannel logs the messages the log layer hands it)', () => {
    const seed001 = '[2024-01-10 09:00:00,000] ERROR Error while appending records to LoadTestingTopic in dir /broder/log (org.apache.kafka.storage.internals.log.LogDirFailureChannel)'
    const [a] = generic(parse(LAB_SNAPSHOT_ERROR.split('\n').slice(0, 2).join('\n'), { broker: '1' }).signals)
    const [b] = generic(parse(seed001, { broker: '1' }).signals)
    expect(b.labels?.template).toBe(findTemplate('Error while appending records to LoadTestingTopic in dir /broder/log', 'org.apache.kafka.storage.internals.log.LogDirFailureChannel')?.id)
    expect(a.labels?.template).not.toBe(b.labels?.template)
  })

  it('reads the Strimzi layout and keeps the root cause of the stack', () => {
    const g = generic(parse(STRIMZI_STARTUP).signals)
    expect(g).toHaveLength(1)
    expect(g[0]).toMatchObject({ name: 'log.error', broker: '2', at: Date.parse('2022-10-14T22:52:00.580Z') })
    expect(g[0].labels).toMatchObject({ logger: 'kafka.server.KafkaServer', exception: 'org.apache.kafka.common.errors.KafkaStorageException', root_cause: 'java.io.IOException: No space left on device' })
    expect(g[0].text).toBe(`${STRIMZI_STARTUP.split('\n')[1]}\nCaused by: java.io.IOException: No space left on device`)
  })

  it('makes a FATAL record a log.fatal, with the partition and the other broker it names', () => {
    const g = generic(parse(FATAL_TRUNCATION, { broker: '2' }).signals)
    expect(g.map((s) => [s.name, s.labels?.topic, s.labels?.partition, s.labels?.node])).toEqual([['log.fatal', 'test-produce-consume', '0', '1']])
  })

  it('yields log.warn_exception for a WARN with a stack, and nothing generic for WARN or INFO without one', () => {
    const w = generic(parse(WARN_EXCEPTION).signals)
    expect(w.map((s) => [s.name, s.labels?.exception])).toEqual([['log.warn_exception', 'org.apache.zookeeper.ClientCnxn$SessionTimeoutException']])
    expect(generic(parse(WARN_PLAIN).signals)).toEqual([])
    expect(generic(parse(STRIMZI_STARTUP.split('\n')[0]).signals)).toEqual([])
  })

  // confluentinc/cp-helm-charts#487 (turn 2, verbatim): a ZooKeeper server that is not serving closes each new
  // session at WARN, with no exception; its statement reports the failure in words. A routine WARN (an old
  // client connecting, newrelic/nri-kafka#99, verbatim) stays out.
  it('makes a WARN a failure-reporting statement wrote a log.warn_failure, and leaves routine WARNs alone', () => {
    const zk =
      '[2021-04-02 01:34:59,601] WARN Exception causing close of session 0x0: ZooKeeperServer not running (org.apache.zookeeper.server.NIOServerCnxn)\n' +
      '[2021-04-02 01:35:06,918] WARN Exception causing close of session 0x0: ZooKeeperServer not running (org.apache.zookeeper.server.NIOServerCnxn)\n'
    const got = generic(parse(zk).signals)
    expect(got.map((s) => s.name)).toEqual(['log.warn_failure', 'log.warn_failure'])
    expect(got[0].labels?.template).toBe(findTemplate('Exception causing close of session 0x0: ZooKeeperServer not running', 'org.apache.zookeeper.server.NIOServerCnxn')?.id)
    const routine = '[2020-11-25 09:36:17,539] WARN Connection request from old client /127.0.0.1:54934; will be dropped if server is in r-o mode (org.apache.zookeeper.server.ZooKeeperServer)\n'
    expect(generic(parse(routine).signals)).toEqual([])
  })

  it('makes a JVM fatal-error banner on stdout a log.fatal, placed at the stand-in time and marked time_unknown', () => {
    const undatedAt = Date.parse('2018-07-17T03:52:00Z')
    const r = parse(JVM_BANNER, { undatedAt })
    const g = generic(r.signals)
    expect(g.map((s) => s.name)).toEqual(['log.fatal'])
    // Placed in file order, 1 ms per undated record from the stand-in (the VM warning above is one).
    expect(g[0].source).toBe('log:test.log:3')
    expect(g[0].at - undatedAt).toBeGreaterThanOrEqual(0)
    expect(g[0].at - undatedAt).toBeLessThan(3)
    expect(g[0].labels?.time_unknown).toBe('true')
    expect(g[0].text).toContain('There is insufficient memory for the Java Runtime Environment to continue.')
    // Without a stand-in time the record is counted, never silently invented.
    const bare = parse(JVM_BANNER)
    expect(generic(bare.signals)).toEqual([])
    expect(bare.stats.unparsed['no-timestamp']).toBeGreaterThanOrEqual(1)
  })

  it('reads an undated pasted stack (seed 001) as one record: one log.error with its root cause, in file order', () => {
    const undatedAt = Date.parse('2024-01-16T10:00:00Z')
    const r = parse(`${SEED_001_UNDATED}\n${SEED_001_UNDATED}`, { undatedAt })
    const g = generic(r.signals)
    expect(g.map((s) => [s.name, s.labels?.exception, s.labels?.root_cause, s.at])).toEqual([
      ['log.error', 'java.io.IOException', 'java.lang.OutOfMemoryError: Map failed', undatedAt],
      ['log.error', 'java.io.IOException', 'java.lang.OutOfMemoryError: Map failed', undatedAt + 1],
    ])
    expect(r.signals.every((s) => s.labels?.time_unknown === 'true')).toBe(true)
    expect(r.signals.map((s) => s.name)).toContain('jvm.oom')
  })

  it('gives a record with an empty [] time the time of the line before it, and one before any time the next', () => {
    const dated = LAB_SNAPSHOT_ERROR.split('\n')
    const text = [
      // Undated records before the first timestamp take the next one's.
      ...SEED_001_UNDATED.split('\n'),
      ...dated,
      // A log4j pattern whose date printed nothing (Kafka 3.9 lab line with its date removed).
      "[] ERROR Uncaught exception in scheduled task 'flush-log' (org.apache.kafka.server.util.KafkaScheduler)",
    ].join('\n')
    const r = parse(text, { broker: '1', undatedAt: 0 })
    const g = generic(r.signals)
    const first = Date.parse('2026-11-29T20:11:25.846Z')
    const second = Date.parse('2026-11-29T20:11:25.847Z')
    expect(g.map((s) => [s.source, s.at])).toEqual([
      ['log:test.log:1', first],
      ['log:test.log:6', first],
      ['log:test.log:10', second],
      ['log:test.log:14', second],
    ])
    expect(r.signals.some((s) => s.labels?.time_unknown)).toBe(false)
    // Output stays in file order.
    expect(r.signals.map((s) => s.at)).toEqual([...r.signals.map((s) => s.at)].sort((a, b) => a - b))
  })

  it('finds an error record among a hundred thousand noise lines, in a Kubernetes CRI wrapper too', () => {
    const noise = '[2026-11-29 20:11:20,001] INFO [GroupMetadataManager brokerId=1] Removed 0 expired offsets in 0 milliseconds. (kafka.coordinator.group.GroupMetadataManager)'
    const lines: string[] = []
    for (let i = 0; i < 100_000; i++) lines.push(noise)
    lines.splice(50_000, 0, FATAL_TRUNCATION)
    const plain = generic(parse(lines.join('\n'), { broker: '2' }).signals)
    expect(plain.map((s) => s.source)).toEqual(['log:test.log:50001'])
    const cri = lines.slice(49_990, 50_010).map((l) => `2026-11-29T20:11:20.001000000Z stdout F ${l}`)
    expect(generic(parse(cri.join('\n'), { broker: '2' }).signals).map((s) => s.name)).toEqual(['log.fatal'])
  })
})
