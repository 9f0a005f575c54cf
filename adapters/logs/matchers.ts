import { encodeVersion } from '../../signals/units.js'
import { configFacts } from '../admin/config-facts.js'
import { errnoLabels, errnoMatcher, JVM_OS_MATCHERS, OOM_RE, oomKind } from './jvm-os-matchers.js'
import { FAILURE_MATCHERS } from './failure-matchers.js'
import { GOTCHA_MATCHERS } from './gotcha-matchers.js'
import { LiteralScanner } from './literal-scanner.js'
import { SESSION_MATCHERS } from './session-matchers.js'
import type { Header } from './layout.js'
import type { LogFormat } from './types.js'

/**
 * The message matchers: one row per wording, each naming the Kafka / ZooKeeper / JDK versions whose
 * source writes exactly that text. A new wording is a new row here, with a test line from that
 * version's output; nothing else in the adapter knows what a message means.
 */

/** One record as the matchers see it: its first line read by the layout, and the lines after it. */
export type LogRecord = {
  header: Header
  /** Raw physical lines of the record, first line first. */
  lines: readonly string[]
}

/** A signal before the pipeline adds time, cluster, broker and evidence. */
export type Draft = {
  name: string
  value?: number
  labels?: Record<string, string>
  /** Overrides the source's broker (e.g. the broker a KRaft controller fenced). */
  broker?: string
  /** Index in `lines` of the line that matched, when it is not the first (a `Caused by:`). */
  line?: number
  /**
   * Milliseconds from the line's time to the signal's: a lasting signal (a pause) is filed at its end,
   * so a line stamped when the pause began (JDK 8 GC lines, safepoint statistics rows) moves by the
   * pause, and a safepoint sync inside a stop stamped at its end moves back to where the sync ended.
   */
  atOffsetMs?: number
}

/** Memory a matcher keeps across records of one file (deduplication, ISR before "ISR updated to"). */
export type MatchState = {
  lastZk?: { key: string; at: number }
  isr: Map<string, string>
  version?: string
  progressLines: number
  /**
   * Log dirs a 2.x broker said it would recover ("Attempting recovery for all logs in …"), held until
   * its "Loaded N logs" line says whether there was anything to recover: 2.x says it of a new, empty
   * data dir too.
   */
  pendingRecovery?: string[]
  /** When this broker's fetchers last failed to get a response from each leader (broker id → epoch ms). */
  fetchFailedAt?: Map<string, number>
}

/** Creates the per-file matcher memory. */
export function newMatchState(): MatchState {
  return { isr: new Map(), progressLines: 0 }
}

/** One row of the table: which lines it looks at, how to find them fast, and what signals they mean. */
export type Matcher = {
  /** Every line this matcher can match contains one of these (the prefilter, and a gate before `re`). */
  literals: readonly string[]
  /** Regex source of the prefilter for a matcher no literal can express (none of `literals` then). */
  pattern?: string
  /** `message`: only the record's first line; `record`: any line of it (stack traces, `Caused by:`). */
  scope: 'message' | 'record'
  formats: readonly LogFormat[]
  re: RegExp
  build: (m: RegExpExecArray, rec: LogRecord, st: MatchState, at: number | undefined) => Draft[] | Draft | undefined
}

const SIZE_FACTOR: Record<string, number> = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }

/** "65.2M", "3072.0K", "0.0B", "937K" as the JVM prints heap sizes -> bytes. */
export function jvmSize(text: string): number {
  const unit = text[text.length - 1]
  return Math.round(Number(text.slice(0, -1)) * (SIZE_FACTOR[unit] ?? 1))
}

const tp = (topic: string, partition: string) => ({ topic, partition })

/** Splits "kf.p36.r4-35" into topic and partition; topics may contain dashes, the partition is last. */
export function splitTopicPartition(text: string): { topic: string; partition: string } | undefined {
  const m = /^(.+)-(\d+)$/.exec(text)
  return m ? tp(m[1], m[2]) : undefined
}

/** `[Partition t-3 broker=1001]` (1.0+) or `Partition [t,3] on broker 1001:` (0.9/0.10) log prefixes. */
function partitionPrefix(message: string): { topic: string; partition: string } | undefined {
  const a = /\[Partition (\S+) broker=\d+\]/.exec(message)
  if (a) return splitTopicPartition(a[1])
  const b = /Partition \[([^,\]]+),(\d+)\] on broker \d+:/.exec(message)
  return b ? tp(b[1], b[2]) : undefined
}

const GC_PAUSE_KINDS: Record<string, string> = {
  Young: 'young',
  Normal: 'young',
  'Concurrent Start': 'young',
  'Prepare Mixed': 'young',
  Mixed: 'mixed',
  Full: 'full',
  Remark: 'remark',
  Cleanup: 'cleanup',
  'Initial Mark': 'initial-mark',
}

const dirOf = (message: string) => /\bin (?:log )?dir (\S+?)(?:\s|$)/.exec(message)?.[1]
const topicOfDirError = (message: string) => /\b(?:to|for) (\S+?) in (?:log )?dir /.exec(message)?.[1]

const KAFKA: readonly LogFormat[] = ['kafka']
const ANY: readonly LogFormat[] = ['kafka', 'gc', 'client']
const GC: readonly LogFormat[] = ['gc']
const CLIENT: readonly LogFormat[] = ['client']
const KAFKA_CLIENT: readonly LogFormat[] = ['kafka', 'client']

/** Deduplicates the WARN + INFO pair ZooKeeper writes for one timeout (seed 000 shows both). */
function once(st: MatchState, key: string, at: number | undefined): boolean {
  if (at !== undefined && st.lastZk && st.lastZk.key === key && Math.abs(at - st.lastZk.at) <= 1000) return false
  if (at !== undefined) st.lastZk = { key, at }
  return true
}

/** The table, numbered; rows are tried in order and every matching row contributes its signals. */
export const MATCHERS: readonly Matcher[] = [
  // 1. ZooKeeper 3.4.x-3.5.x ClientCnxn "Client session timed out, have not heard from server in 7768ms
  //    for sessionid 0x…" (seed 000, zookeeper-3.4.10.jar); 3.6+ writes "for session id 0x…".
  {
    literals: ['Client session timed out'],
    scope: 'message',
    formats: ANY,
    re: /Client session timed out, have not heard from server in (\d+)ms for session ?id 0x([0-9a-f]+)/,
    build: (m, _r, st, at) =>
      once(st, `t${m[2]}`, at) ? { name: 'zk.session_timeout', value: Number(m[1]), labels: { session: `0x${m[2]}` } } : undefined,
  },
  // 2. ZooKeeper 3.4-3.9 ClientCnxn "Unable to reconnect to ZooKeeper service, session 0x… has expired".
  {
    literals: ['Unable to reconnect to ZooKeeper service'],
    scope: 'message',
    formats: ANY,
    re: /Unable to reconnect to ZooKeeper service, session 0x([0-9a-f]+) has expired/,
    build: (m, _r, st, at) => (once(st, `e${m[1]}`, at) ? { name: 'zk.session_expired', labels: { session: `0x${m[1]}` } } : undefined),
  },
  // 3. Kafka 1.1+ ZooKeeperClient "Session expired." (scheduleReinitialize); Kafka 0.9-1.0 with zkclient
  //    "zookeeper state changed (Expired)".
  {
    literals: ['Session expired', 'zookeeper state changed (Expired)'],
    scope: 'message',
    formats: KAFKA,
    re: /^(?:\[ZooKeeperClient[^\]]*\] )?Session expired\.?$|zookeeper state changed \(Expired\)/,
    build: (_m, _r, st, at) => (once(st, 'e', at) ? { name: 'zk.session_expired' } : undefined),
  },
  // 4. Kafka 0.9-1.0 zkclient "zookeeper state changed (Disconnected)"; ZooKeeper 3.4 ClientCnxn
  //    "Unable to read additional data from server sessionid 0x…, likely server has closed socket" (3.6+
  //    moved that text into the exception under the next line); 3.5 "Session 0x… for server …, unexpected
  //    error, closing socket connection and attempting reconnect"; 3.6-3.9 "Session 0x… for server …,
  //    Closing socket connection. Attempting reconnect except it is a SessionExpiredException." (the lab's
  //    ZooKeeper killed under Kafka 3.9: one on every retry, so one per session and second).
  {
    literals: ['zookeeper state changed (Disconnected)', 'Unable to read additional data from server', 'closing socket connection and attempting reconnect', 'Closing socket connection. Attempting reconnect'],
    scope: 'message',
    formats: KAFKA,
    re: /zookeeper state changed \(Disconnected\)|Unable to read additional data from server|^Session 0x([0-9a-f]+) for (?:server|sever) .*?(?:, unexpected error, closing socket connection and attempting reconnect|, Closing socket connection\. Attempting reconnect except it is a SessionExpiredException\.)/,
    build: (m, _r, st, at) => (m[1] === undefined || once(st, `d${m[1]}`, at) ? { name: 'zk.disconnected' } : undefined),
  },
  // 5. Kafka 3.0-3.9 ReplicationControlManager (KRaft controller) "Fencing broker N because its session
  //    has timed out."; 4.1 "Fencing broker N at epoch E because its session has timed out."; the
  //    signal belongs to the fenced broker.
  {
    literals: ['Fencing broker'],
    scope: 'message',
    formats: KAFKA,
    re: /Fencing broker (\d+) (?:at epoch \d+ )?because its session has timed out/,
    build: (m) => ({ name: 'kraft.broker_fenced', broker: m[1], labels: { fenced_broker: m[1] } }),
  },
  // 6. Kafka 3.0-4.x BrokerLifecycleManager "Unable to send a heartbeat because the RPC got timed out
  //    before it could be sent.", "Unable to send broker heartbeat for N …", "Broker N sent a heartbeat
  //    request but received error E."
  {
    literals: ['Unable to send a heartbeat', 'Unable to send broker heartbeat', 'sent a heartbeat request'],
    scope: 'message',
    formats: KAFKA,
    re: /Unable to send (?:a heartbeat because|broker heartbeat for)|Broker \d+ sent a heartbeat request but received error/,
    build: () => ({ name: 'kraft.heartbeat_failed' }),
  },
  // 7. Kafka 0.9.0-0.10.2 Partition "Partition [t,p] on broker N: Shrinking ISR for partition [t,p] from
  //    1,2 to 1"; 1.0-2.1 "[Partition t-p broker=N] Shrinking ISR from 1001,1002 to 1001" (seed 002);
  //    2.2+ appends ". Leader: (highWatermark: …". Remembered so 2.7+'s "ISR updated to" is not an expand.
  {
    literals: ['Shrinking ISR'],
    scope: 'message',
    formats: KAFKA,
    re: /Shrinking ISR (?:for partition \[([^,\]]+),(\d+)\] )?from ([\d,]+) to ([\d,]*)/,
    build: (m, r, st) => {
      const p = m[1] ? tp(m[1], m[2]) : partitionPrefix(r.header.message)
      if (!p) return undefined
      st.isr.set(`${p.topic}-${p.partition}`, m[4])
      return { name: 'isr.shrink', labels: { ...p, from: m[3], to: m[4] } }
    },
  },
  // 8. Kafka 0.9 "Expanding ISR for partition [t,p] from 1 to 1,2"; 0.10 "Expanding ISR for partition t-p
  //    from … to …"; 1.0-2.6 "[Partition t-p broker=N] Expanding ISR from 1 to 1,2".
  {
    literals: ['Expanding ISR'],
    scope: 'message',
    formats: KAFKA,
    re: /Expanding ISR (?:for partition (?:\[([^,\]]+),(\d+)\]|(\S+)) )?from ([\d,]+) to ([\d,]+)/,
    build: (m, r, st) => {
      const p = m[1] ? tp(m[1], m[2]) : m[3] ? splitTopicPartition(m[3]) : partitionPrefix(r.header.message)
      if (!p) return undefined
      st.isr.set(`${p.topic}-${p.partition}`, m[5])
      return { name: 'isr.expand', labels: { ...p, from: m[4], to: m[5] } }
    },
  },
  // 9. Kafka 2.7-2.8 "ISR updated to 1,2 and version updated to [5]", 3.x-4.x "ISR updated to 1,2
  //    (under-min-isr) and version updated to 5": the leader's confirmation of its AlterPartition. After a
  //    logged shrink to the same set it confirms that shrink; otherwise the ISR grew (2.7+ logs no
  //    "Expanding ISR").
  {
    literals: ['ISR updated to'],
    scope: 'message',
    formats: KAFKA,
    re: /ISR updated to ([\d,]+) +(?:\(under-min-isr\) )?and (?:version|zkVersion) updated to/,
    build: (m, r, st) => {
      const p = partitionPrefix(r.header.message)
      if (!p) return undefined
      const key = `${p.topic}-${p.partition}`
      const before = st.isr.get(key)
      st.isr.set(key, m[1])
      if (before === m[1]) return undefined
      if (before !== undefined && m[1].split(',').length < before.split(',').length) {
        return { name: 'isr.shrink', labels: { ...p, from: before, to: m[1] } }
      }
      return { name: 'isr.expand', labels: before === undefined ? { ...p, to: m[1] } : { ...p, from: before, to: m[1] } }
    },
  },
  // 10. Kafka 1.1-3.x ZooKeeper-mode controller state-change log "Changed partition t-p from
  //     OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=2, …)"; 1.x wrote the state as
  //     {"leader":2,…} and 2.x as LeaderAndIsr(leader=2, leaderEpoch=…).
  {
    literals: ['Changed partition'],
    scope: 'message',
    formats: KAFKA,
    re: /Changed partition (\S+) from \w+ to OnlinePartition with (?:state (?:LeaderAndIsr\(leader=|\{"leader":)|leader )(\d+)/,
    build: (m) => {
      const p = splitTopicPartition(m[1])
      return p ? { name: 'leader.change', labels: { ...p, to: m[2] } } : undefined
    },
  },
  // 11. Kafka 2.4-4.x state-change log on the new leader "Leader t-p [with topic id …] starts at leader
  //     epoch E from offset …"; 1.0-2.3 Partition "t-p starts at Leader Epoch E from offset …".
  {
    literals: ['starts at leader epoch', 'starts at Leader Epoch'],
    scope: 'message',
    formats: KAFKA,
    re: /(?:^|\] |Leader )(\S+?) (?:with topic id \S+ )?starts at [Ll]eader [Ee]poch (\d+)/,
    build: (m, r) => {
      if (/Follower \S+ starts/.test(r.header.message)) return undefined
      const p = splitTopicPartition(m[1])
      return p ? { name: 'leader.change', labels: p } : undefined
    },
  },
  // 12. Kafka 2.2-4.x Log/LocalLog "[LocalLog partition=t-p, dir=/d] Rolled new log segment at offset N in
  //     M ms."; 0.9-2.1 "Rolled new log segment for 't-p' in M ms.".
  {
    literals: ['Rolled new log segment'],
    scope: 'message',
    formats: KAFKA,
    re: /Rolled new log segment (?:for '([^']+)'|at offset \d+)/,
    build: (m, r) => {
      const p = m[1] ? splitTopicPartition(m[1]) : splitTopicPartition(/partition=([^,\]]+)/.exec(r.header.message)?.[1] ?? '')
      return p ? { name: 'log.segment_roll', labels: p } : { name: 'log.segment_roll' }
    },
  },
  // 13. Kafka 1.0-4.x LogDirFailureChannel logs the failing operation "Error while appending records to
  //     t-p in dir /d" (seed 001, 3.6 UnifiedLog/LocalLog), "Error while rolling log segment for t-p in
  //     dir /d", … at ERROR before the dir goes offline.
  {
    literals: ['LogDirFailureChannel'],
    scope: 'message',
    formats: KAFKA,
    re: /^Error while .* in (?:log )?dir \S+/,
    build: (_m, r) => {
      if (!r.header.logger?.endsWith('LogDirFailureChannel')) return undefined
      const dir = dirOf(r.header.message)
      const topic = topicOfDirError(r.header.message)
      const labels: Record<string, string> = {}
      if (dir) labels.dir = dir
      if (topic) labels.topic = splitTopicPartition(topic)?.topic ?? topic
      return { name: 'log.dir_failure', labels }
    },
  },
  // 14. Kafka 1.0-4.x ReplicaManager "Halting broker because dir /d is offline"; LogManager "Shutdown broker
  //     because all log dirs in /d1, /d2 have failed".
  {
    literals: ['Halting broker because dir', 'Shutdown broker because all log dirs'],
    scope: 'message',
    formats: KAFKA,
    re: /Halting broker because dir (\S+) is offline|Shutdown broker because all log dirs in (.+) have failed/,
    build: (m) => ({ name: 'log.dir_failure', labels: { dir: m[1] ?? m[2] } }),
  },
  // 15. JDK 8-21 FileChannelImpl.map "java.io.IOException: Map failed" inside the stack of a Kafka index
  //     mmap (seed 001, Kafka 3.6 on JDK 11).
  {
    literals: ['IOException: Map failed'],
    scope: 'record',
    formats: KAFKA,
    re: /java\.io\.IOException: Map failed/,
    build: (_m, r) => {
      const labels: Record<string, string> = {}
      const dir = dirOf(r.header.message)
      const topic = topicOfDirError(r.header.message)
      if (dir) labels.dir = dir
      if (topic) labels.topic = splitTopicPartition(topic)?.topic ?? topic
      return { name: 'log.map_failed', labels }
    },
  },
  // 16. JDK 8-21 "java.lang.OutOfMemoryError: Java heap space" (seed 002, Kafka 1.0.1 on JDK 8), "…: Map
  //     failed" (seed 001 `Caused by:`), and every other JDK kind (OOM_RE and oomKind in jvm-os-matchers.ts).
  {
    literals: ['OutOfMemoryError'],
    scope: 'record',
    formats: ANY,
    re: OOM_RE,
    build: (m) => ({ name: 'jvm.oom', labels: { kind: oomKind(m[1]) } }),
  },
  // 17. EMFILE as the JDK words it from the C library's strerror(): "Too many open files" (seed 001) and
  //     its translations in every locale of the errno table (zh_CN "打开的文件过多", …); ENFILE "Too many
  //     open files in system" is the system-wide table filling up.
  errnoMatcher(['EMFILE', 'ENFILE'], ANY, (errno, m, r) => ({ name: 'fd.exhausted', labels: errno === 'ENFILE' ? { ...errnoLabels(m, r), limit: 'system' } : errnoLabels(m, r) })),
  // 18. ENOSPC as the JDK words it: "java.io.IOException: No space left on device", in every locale of
  //     the errno table; java.nio's "FileSystemException: /path: …" names the file.
  errnoMatcher(['ENOSPC'], KAFKA, (_e, m, r) => ({ name: 'disk.full', labels: errnoLabels(m, r) })),
  // 19. Kafka 1.0-4.x KafkaApis error through FileRecords/AbstractRecords.downConvert (seed 002, Kafka 1.0.1,
  //     KAFKA-6709): the request names the topic as `topic=t`.
  {
    literals: ['.downConvert('],
    scope: 'record',
    formats: KAFKA,
    re: /\.downConvert\(/,
    build: (_m, r) => {
      const topic = /\btopic=([^,}\s]+)/.exec(r.header.message)?.[1]
      return topic ? { name: 'fetch.down_conversion_error', labels: { topic } } : { name: 'fetch.down_conversion_error' }
    },
  },
  // 20. Kafka 0.9-0.10 GroupCoordinator "Preparing to restabilize group g with old generation N"; 1.0-1.1
  //     "Preparing to rebalance group g with old generation N (__consumer_offsets-P)"; 2.0-3.x adds "in state
  //     S"; 2.4+ appends "(reason: …)"; 3.7-4.x GroupMetadataManager.java (classic groups) keeps the wording.
  {
    literals: ['Preparing to rebalance group', 'Preparing to restabilize group'],
    scope: 'message',
    formats: KAFKA,
    re: /Preparing to re(?:balance|stabilize) group (\S+) (?:in state \w+ )?with old generation (\d+)/,
    build: (m) => ({ name: 'group.rebalance', labels: { group: m[1], generation: m[2] } }),
  },
  // 21. Kafka 0.9-0.10 GroupCoordinator (TRACE) "Member m in group g has failed"; 1.0-3.x (INFO) "…has failed,
  //     removing it from the group"; 3.7-4.x GroupMetadataManager.java the same with a final ".".
  {
    literals: [' has failed'],
    scope: 'message',
    formats: KAFKA,
    re: /Member (\S+) in group (\S+) has failed/,
    build: (m) => ({ name: 'group.member_failed', labels: { group: m[2], member: m[1] } }),
  },
  // 22. Kafka 0.9-3.x GroupCoordinator "Stabilized group g generation N" (1.0+ adds "(__consumer_offsets-P)");
  //     3.7-4.x GroupMetadataManager.java "Stabilized group g generation N with K members.".
  {
    literals: ['Stabilized group'],
    scope: 'message',
    formats: KAFKA,
    re: /Stabilized group (\S+) generation (\d+)/,
    build: (m) => ({ name: 'group.stable', labels: { group: m[1], generation: m[2] } }),
  },
  // 23. Kafka 0.10.x KafkaServer "[Kafka Server N], started"; 1.0-3.x "[KafkaServer id=N] started";
  //     KafkaRaftServer 2.8-4.x "Kafka Server started".
  {
    literals: ['[KafkaServer id=', '[Kafka Server ', 'Kafka Server started'],
    scope: 'message',
    formats: KAFKA,
    re: /^(?:\[Kafka Server \d+\], |\[KafkaServer id=\d+\] )started$|^Kafka Server started$/,
    build: () => ({ name: 'broker.start' }),
  },
  // 24. Kafka 0.10.x "[Kafka Server N], shutting down"; 1.0-3.x "[KafkaServer id=N] shutting down";
  //     2.8-4.x "[BrokerServer id=N] shutting down".
  {
    literals: ['[KafkaServer id=', '[Kafka Server ', '[BrokerServer id='],
    scope: 'message',
    formats: KAFKA,
    re: /^(?:\[Kafka Server \d+\], |\[(?:KafkaServer|BrokerServer) id=\d+\] )shutting down$/,
    build: () => ({ name: 'broker.shutdown' }),
  },
  // 25. Kafka 0.10-2.0 AppInfoParser "Kafka version : 0.10.2.1"; 2.1+ "Kafka version: 3.7.0". Logged once
  //     per client instance inside the broker too, so only a change is a signal.
  {
    literals: ['Kafka version'],
    scope: 'message',
    formats: KAFKA,
    re: /^Kafka version ?: ?(\d+\.\d+[\w.-]*)/,
    build: (m, _r, st) => {
      const v = encodeVersion(m[1])
      if (v === undefined || st.version === m[1]) return undefined
      st.version = m[1]
      return { name: 'broker.version', value: v, labels: { version: m[1] } }
    },
  },
  // 26. Producer side: 0.10-2.5 "NotLeaderForPartitionException: This server is not the leader for that
  //     topic-partition." (seed 000) and Sender "… on topic-partition t-p, retrying (N attempts left).
  //     Error: NOT_LEADER_FOR_PARTITION"; 2.6+ NOT_LEADER_OR_FOLLOWER / NotLeaderOrFollowerException and
  //     "Received invalid metadata error in produce request on partition t-p due to …".
  {
    literals: ['NotLeaderForPartition', 'NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'NotLeaderOrFollower'],
    scope: 'message',
    formats: CLIENT,
    re: /NotLeaderForPartition|NOT_LEADER_FOR_PARTITION|NOT_LEADER_OR_FOLLOWER|NotLeaderOrFollower/,
    build: (_m, r) => {
      const p = /on (?:topic-)?partition (\S+?)(?:,| due| |$)/.exec(r.header.message)
      const labels = p ? splitTopicPartition(p[1]) : undefined
      return labels ? { name: 'client.not_leader', labels } : { name: 'client.not_leader' }
    },
  },
  // 27. kafka-producer-perf-test (ProducerPerformance) 0.10-4.x progress line every 5 s: "599506 records
  //     sent, 119901.2 records/sec (117.09 MB/sec), 4.8 ms avg latency, 147.0 max latency." (0.10-2.x, seed
  //     000) / "… 147.0 ms max latency." (3.x).
  {
    literals: ['records sent, '],
    scope: 'message',
    formats: CLIENT,
    re: /^\d+ records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), [\d.]+ ms avg latency, ([\d.]+) (?:ms )?max latency/,
    build: (m) => [
      { name: 'producer.throughput', value: Number(m[1]) },
      { name: 'producer.max_latency', value: Number(m[2]) },
    ],
  },
  // 28. Kafka 0.10-1.x KafkaController "1001 successfully elected as the controller"; 2.x-3.x adds ". Epoch
  //     incremented to E …"; KRaft 3.x-4.x QuorumController "Becoming the active controller at epoch E, next
  //     write offset O.".
  {
    literals: ['successfully elected as the controller', 'Becoming the active controller'],
    scope: 'message',
    formats: KAFKA,
    // (?<!\d): a run of digits is tried once from its start, not again from each of its digits.
    re: /(?<!\d)(\d+) successfully elected as the controller|Becoming the active controller at epoch \d+/,
    build: (m, r) => {
      const id = m[1] ?? /QuorumController id=(\d+)/.exec(r.header.message)?.[1]
      return id ? { name: 'controller.change', labels: { controller: id } } : { name: 'controller.change' }
    },
  },
  // 29. Kafka 1.x-4.x ReplicaManager "Error processing append operation on partition t-p" with the stack's
  //     "NotEnoughReplicasException: The size of the current ISR Set(1) is insufficient to satisfy the min.isr
  //     requirement of 2 for partition t-p" (Partition.scala 2.8 prints the ISR as Set(…), 3.x as a list).
  {
    literals: ['NotEnoughReplicasException', 'NotEnoughReplicasAfterAppendException'],
    scope: 'record',
    // A client's log carries the same exception when its produce was refused (client-matchers.ts C5c skips it).
    formats: KAFKA_CLIENT,
    re: /NotEnoughReplicas(?:AfterAppend)?Exception\b.*?(?:for partition (\S+?)\.?$|$)/,
    build: (m, r) => {
      const name = m[1] ?? /on partition (\S+)/.exec(r.header.message)?.[1]
      const p = name ? splitTopicPartition(name) : undefined
      return p ? { name: 'produce.not_enough_replicas', labels: p } : { name: 'produce.not_enough_replicas' }
    },
  },
  // 30. Kafka 1.0-1.x AbstractFetcherThread "Error for partition t-p to broker N:…"; 2.x-4.x "Error for
  //     partition t-p at offset O", under the "[ReplicaFetcher replicaId=R, leaderId=L, fetcherId=F]" prefix.
  {
    literals: ['Error for partition '],
    scope: 'message',
    formats: KAFKA,
    re: /Error for partition (\S+) (?:at offset \d+|to broker (\d+))/,
    build: (m, r) => {
      const p = splitTopicPartition(m[1])
      const leader = m[2] ?? /leaderId=(\d+)/.exec(r.header.message)?.[1]
      if (!p) return undefined
      return { name: 'replica.fetch_error', labels: leader ? { ...p, leader } : p }
    },
  },
  // 31. JDK 8 -XX:+PrintGCApplicationStoppedTime and JDK 9-12 -Xlog:safepoint (runtimeService.cpp)
  //     "Total time for which application threads were stopped: 3.3021375 seconds, Stopping threads took:
  //     3.3018193 seconds" (seed 000, OpenJDK 1.8.0_181).
  {
    literals: ['Total time for which application threads were stopped'],
    scope: 'message',
    formats: GC,
    re: /Total time for which application threads were stopped: ([\d.,]+) seconds(?:, Stopping threads took: ([\d.,]+) seconds)?/,
    build: (m) => {
      const total = secs(m[1])
      const out: Draft[] = [{ name: 'safepoint.total', value: total }]
      // Printed when the threads resume: the sync was the stop's first part.
      if (m[2]) out.push({ name: 'safepoint.sync', value: secs(m[2]), atOffsetMs: -Math.max(0, total - secs(m[2])) })
      return out
    },
  },
  // 32. JDK 13-16 -Xlog:safepoint (safepoint.cpp SafepointTracing::end) "Safepoint "op", Time since last: N
  //     ns, Reaching safepoint: N ns, At safepoint: N ns, Total: N ns"; JDK 17-20 add "Cleanup: N ns", JDK 21
  //     "Leaving safepoint: N ns", JDK 25 drops Cleanup and appends ", Threads: …".
  {
    literals: ['Reaching safepoint: '],
    scope: 'message',
    formats: GC,
    re: /Safepoint "([^"]*)", Time since last: \d+ ns, Reaching safepoint: (\d+) ns,(?: Cleanup: \d+ ns,)? At safepoint: \d+ ns,(?: Leaving safepoint: \d+ ns,)? Total: (\d+) ns/,
    build: (m) => [
      // Logged when the safepoint ends; reaching it was the stop's first part.
      { name: 'safepoint.sync', value: Number(m[2]) / 1e6, labels: { operation: m[1] }, atOffsetMs: -Math.max(0, (Number(m[3]) - Number(m[2])) / 1e6) },
      { name: 'safepoint.total', value: Number(m[3]) / 1e6, labels: { operation: m[1] } },
    ],
  },
  // 33. JDK 8 -XX:+PrintSafepointStatistics row "488.188: no vm operation [ 73 1 1 ] [ 1 0 3301 0 0 ] 1"
  //     (seed 000): columns spin, block, sync, cleanup, vmop in ms.
  {
    literals: [],
    pattern: '\\[\\s*\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s*\\]',
    scope: 'message',
    formats: GC,
    // The columns are found first and the operation is what precedes them: a lazy `^(.+?)` in front
    // retried the whole tail at every position (1.3 s on one 64 KiB line).
    re: /\s\[\s*\d+\s+\d+\s+\d+\s*\]\s+\[\s*\d+\s+\d+\s+(\d+)\s+\d+\s+\d+\s*\]/,
    // The row's time stamp is when the safepoint began (seed 000: 488.188 + 3.301 s sync = the 491.491
    // of its "Total time" line), so the sync is filed at its end.
    build: (m) => {
      const operation = m.input.slice(0, m.index).trim()
      return operation ? { name: 'safepoint.sync', value: Number(m[1]), labels: { operation }, atOffsetMs: Number(m[1]) } : undefined
    },
  },
  // 34. JDK 9+ unified -Xlog:gc "GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.456ms"
  //     (JDK 10+ G1 subtypes Normal / Concurrent Start / Prepare Mixed / Mixed; JDK 9 "Pause Young (G1
  //     Evacuation Pause)", "Pause Initial Mark", "Pause Remark", "Pause Cleanup", "Pause Full (System.gc())";
  //     Parallel and Serial "Pause Young (Allocation Failure)").
  {
    literals: [') Pause '],
    scope: 'message',
    formats: GC,
    re: /GC\(\d+\) Pause (Young|Full|Remark|Cleanup|Initial Mark|Mixed)((?: \((?:[^()]|\(\))*\))*) (\d+(?:\.\d+)?[BKMGT])->(\d+(?:\.\d+)?[BKMGT])\((\d+(?:\.\d+)?[BKMGT])\) ([\d.]+)ms/,
    build: (m) => {
      const groups = [...m[2].matchAll(/\(((?:[^()]|\(\))*)\)/g)].map((g) => g[1])
      const subtype = groups.find((g) => g in GC_PAUSE_KINDS)
      const cause = groups.filter((g) => !(g in GC_PAUSE_KINDS)).pop()
      const kind = GC_PAUSE_KINDS[subtype ?? m[1]] ?? 'young'
      const labels: Record<string, string> = { kind }
      if (cause) labels.cause = cause
      const collector = /G1/.test(m[2]) ? 'G1' : undefined
      if (collector) labels.collector = collector
      return [
        { name: 'gc.pause', value: Number(m[6]), labels },
        { name: 'heap.after_gc', value: jvmSize(m[4]), labels: { kind } },
        { name: 'heap.max', value: jvmSize(m[5]) },
      ]
    },
  },
  // 34b. JDK 9+ unified -Xlog:gc+cpu after each collection, "GC(26) User=0.00s Sys=0.00s Real=0.10s"
  //     (gcTraceTime.cpp, 10 ms resolution): a pause of 100 ms or more whose threads got at most a tenth of
  //     its wall time in CPU waited for a CPU the rest of it (a cgroup CPU quota, a starved host). Filed as
  //     gc.off_cpu = Real - (User + Sys); shorter or CPU-busy pauses say nothing about that and are skipped.
  {
    literals: [' User='],
    scope: 'message',
    formats: GC,
    re: /GC\(\d+\) User=(\d+(?:\.\d+)?)s Sys=(\d+(?:\.\d+)?)s Real=(\d+(?:\.\d+)?)s/,
    build: (m) => {
      const cpuMs = (Number(m[1]) + Number(m[2])) * 1000
      const realMs = Number(m[3]) * 1000
      if (realMs < 100 || cpuMs > realMs / 10) return undefined
      return { name: 'gc.off_cpu', value: Math.round(realMs - cpuMs) }
    },
  },
  // 35. JDK 7-8 -XX:+PrintGC(Details) pause records: G1 "[GC pause (G1 Evacuation Pause) (young), 0.0116306
  //     secs]" with the heap on a later "[Eden: … Heap: 204.0M(4096.0M)->65.2M(4096.0M)]" line, "(mixed)",
  //     "[GC remark …", "[GC cleanup …"; Parallel "[GC (Allocation Failure) [PSYoungGen: …] 5350K->1047K(…),
  //     0.0007776 secs]" and "[Full GC (Ergonomics) [PSYoungGen: …] [ParOldGen: …] …"; CMS "[GC (Allocation
  //     Failure) … [ParNew: …] …", "[GC (CMS Initial Mark) …", "[GC (CMS Final Remark) …"; G1 "[Full GC
  //     (Allocation Failure)  18M->18M(20M), 0.0719656 secs]".
  {
    literals: ['[GC ', '[GC(', '[Full GC'],
    scope: 'message',
    formats: GC,
    // The cause is text with at most one "()" inside, written so that only one split of it can match.
    re: /^\[(Full GC|GC)(?: pause)? ?(?:\(([^()]*(?:\(\)[^()]*)?)\))?(?: \((young|mixed)\))?(?: \(initial-mark\))?/,
    build: (m, r) => jdk8Pause(m, r),
  },
  // 36. Kafka 3.x ZkConfigManager "Processing override for entityPath: topics/LoadTestingTopic with config:
  //     HashMap(segment.ms -> 100)" (lab-roll-storm on 3.9.1 and 3.6.2): a topic's config overrides as the
  //     broker applies them, as facts (config-facts.ts), so a config change that is about to break the
  //     broker is known the moment the broker takes it, not at the admin poller's next config read.
  {
    literals: ['Processing override for entityPath: topics/'],
    scope: 'message',
    formats: KAFKA,
    re: /^Processing override for entityPath: topics\/(\S+) with config: \w*Map\((.*)\)$/,
    // "k -> v, k2 -> v2": Scala's Map.toString.
    build: (m) => topicConfigFacts(m[1], m[2], ', '),
  },
  // 37. Kafka 3.x "Updating topic orders with new configuration : min.insync.replicas -> 2": KRaft's
  //     DynamicConfigPublisher on every broker (lab-kraft-quorum-loss) and ZooKeeper mode's ZkAdminManager
  //     on the broker that took the change (lab-roll-storm): the topic's overrides after it, as facts, so
  //     a KRaft cluster's config change is known live too.
  {
    literals: ['Updating topic '],
    scope: 'message',
    formats: KAFKA,
    re: /^(?:\[[^\]]*\]:? )?Updating topic (\S+) with new configuration : (.*)$/,
    // "k -> v,k2 -> v2": mkString(",").
    build: (m) => topicConfigFacts(m[1], m[2], ','),
  },
  // J1-J10. JVM banners on stdout and the C library's errno texts (jvm-os-matchers.ts).
  ...JVM_OS_MATCHERS,
  // F1-F21. Dead threads, unclean restarts, follower truncation, cluster-id, listener, TLS/SASL, KRaft
  //     quorum, oversized-batch and known-bug lines (failure-matchers.ts).
  ...FAILURE_MATCHERS,
  // G1-G19. Well-known setup mistakes: wrong protocol on a listener, bind and id conflicts, unformatted KRaft
  //     storage, TLS names and trust, size and session limits, ACL denials (gotcha-matchers.ts).
  ...GOTCHA_MATCHERS,
  // S1-S4. Session timeouts: ZooKeeper client connect and grant lines, the KafkaConfig dump (session-matchers.ts).
  ...SESSION_MATCHERS,
]

/**
 * A topic's config facts from "k -> v<sep>k2 -> v2". A value may hold the separator itself (throttled
 * replica lists "0:1,1:2"), a key never does, so a split needs a key and " -> " after it.
 */
function topicConfigFacts(topic: string, pairs: string, separator: ', ' | ','): Draft[] {
  const configs: Record<string, { value: string }> = {}
  for (const pair of pairs.split(new RegExp(`${separator}(?=[a-z][a-z0-9._-]* -> )`))) {
    const at = pair.indexOf(' -> ')
    if (at > 0) configs[pair.slice(0, at)] = { value: pair.slice(at + 4) }
  }
  return [...configFacts(configs)].map(([name, f]) => ({ name, value: f.value, labels: { topic } }))
}

const secs = (t: string) => Math.round(Number(t.replace(',', '.')) * 1e9) / 1e6

// Every regex of the JDK 8 pause reader runs in time linear in the line (a hostile 64 KiB GC line took
// 27–47 s when the bracket, heap and duration regexes could restart inside one long run): the collector
// brackets are found by their opening words and closed by one bracket-matching pass, a heap transition
// may start only where a number starts, and a duration is read backwards from each " secs]".
const NAMED_BRACKET_START = /\[(?:PSYoungGen|ParOldGen|PSOldGen|PSPermGen|Metaspace|ParNew|DefNew|Tenured|CMS|Perm|Times|YG occupancy|Rescan|weak refs processing|class unloading|scrub symbol table|scrub string table|1 CMS-initial-mark|1 CMS-remark|GC ref-proc)/g
const HEAP_RE = /(?<![\d.])(\d+(?:\.\d+)?[BKMGT])(?:\([\d.]+[BKMGT]\))?->(\d+(?:\.\d+)?[BKMGT])\((\d+(?:\.\d+)?[BKMGT])\)/
const G1_HEAP_RE = /Heap: [\d.]+[BKMGT]\([\d.]+[BKMGT]\)->([\d.]+[BKMGT])\(([\d.]+[BKMGT])\)/

function jdk8Pause(m: RegExpExecArray, r: LogRecord): Draft[] | undefined {
  const msg = r.header.message
  const full = m[1] === 'Full GC'
  const g1 = /^\[GC pause/.test(msg) || /^\[GC (?:remark|cleanup)/.test(msg)
  const cause = m[2]
  let kind = full ? 'full' : m[3] === 'mixed' ? 'mixed' : 'young'
  if (/^\[GC remark/.test(msg) || cause === 'CMS Final Remark') kind = 'remark'
  else if (/^\[GC cleanup/.test(msg)) kind = 'cleanup'
  else if (cause === 'CMS Initial Mark') kind = 'initial-mark'
  const stripped = stripNamedBrackets(msg)
  const last = lastDuration(stripped)
  let pauseMs = last !== undefined ? secs(last) : undefined
  const heap = HEAP_RE.exec(stripped)
  let afterGc: number | undefined
  let max: number | undefined
  if (heap) {
    afterGc = jvmSize(heap[2])
    max = jvmSize(heap[3])
  }
  for (let i = 1; i < r.lines.length && (afterGc === undefined || pauseMs === undefined); i++) {
    const g = G1_HEAP_RE.exec(r.lines[i])
    if (g && afterGc === undefined) {
      afterGc = jvmSize(g[1])
      max = jvmSize(g[2])
    }
    if (pauseMs === undefined) {
      const d = firstCommaDuration(r.lines[i])
      if (d !== undefined) pauseMs = secs(d)
    }
  }
  if (pauseMs === undefined) return undefined
  const labels: Record<string, string> = { kind }
  if (cause) labels.cause = cause
  const collector = g1 ? 'G1' : /PSYoungGen|ParOldGen/.test(msg) ? 'Parallel' : /ParNew|CMS/.test(msg) || kind === 'initial-mark' ? 'CMS' : undefined
  if (collector) labels.collector = collector
  // JDK 8 prints a collection's time stamp when it begins: the pause is filed at its end.
  const out: Draft[] = [{ name: 'gc.pause', value: pauseMs, labels, atOffsetMs: pauseMs }]
  if (afterGc !== undefined) out.push({ name: 'heap.after_gc', value: afterGc, labels: { kind } })
  if (max !== undefined) out.push({ name: 'heap.max', value: max })
  return out
}

/** The message without its collector brackets ("[PSYoungGen: …]", "[Times: …]"), nested brackets included. */
function stripNamedBrackets(msg: string): string {
  const close = closingBrackets(msg)
  let out = ''
  let from = 0
  NAMED_BRACKET_START.lastIndex = 0
  for (let m = NAMED_BRACKET_START.exec(msg); m; m = NAMED_BRACKET_START.exec(msg)) {
    const end = close.get(m.index)
    if (end === undefined) continue
    out += msg.slice(from, m.index)
    from = end + 1
    NAMED_BRACKET_START.lastIndex = from
  }
  return out + msg.slice(from)
}

/** Where each `[` of a text is closed, by one pass with a stack; unclosed ones are absent. */
function closingBrackets(s: string): Map<number, number> {
  const close = new Map<number, number>()
  const open: number[] = []
  for (let i = s.indexOf('['), j = s.indexOf(']'); i >= 0 || j >= 0; ) {
    if (i >= 0 && (j < 0 || i < j)) {
      open.push(i)
      i = s.indexOf('[', i + 1)
    } else {
      const o = open.pop()
      if (o !== undefined) close.set(o, j)
      j = s.indexOf(']', j + 1)
    }
  }
  return close
}

const isDurationChar = (c: number) => (c >= 48 && c <= 57) || c === 46 || c === 44

/** Start of the run of digits, dots and commas that ends just before `end` (end itself when none). */
function durationStart(s: string, end: number): number {
  let k = end
  while (k > 0 && isDurationChar(s.charCodeAt(k - 1))) k--
  return k
}

/** The number before the last " secs]" that has one (as /([\d.,]+) secs\]/g's last match reads it). */
function lastDuration(s: string): string | undefined {
  for (let at = s.lastIndexOf(' secs]'); at >= 0; at = at > 0 ? s.lastIndexOf(' secs]', at - 1) : -1) {
    const k = durationStart(s, at)
    if (k < at) return s.slice(k, at)
  }
  return undefined
}

/** The first ", N secs]" duration of a line (as /, ([\d.,]+) secs\]/ reads it). */
function firstCommaDuration(s: string): string | undefined {
  for (let at = s.indexOf(' secs]'); at >= 0; at = s.indexOf(' secs]', at + 1)) {
    const k = durationStart(s, at)
    if (k < at && k >= 2 && s.charCodeAt(k - 2) === 44 && s.charCodeAt(k - 1) === 32) return s.slice(k, at)
  }
  return undefined
}

/** The broker a line names itself (`[KafkaApi-1001]`, `broker=1001`, `on broker 1001:`, `[KafkaServer id=1]`). */
export function brokerNamedIn(message: string): string | undefined {
  const m =
    /\[KafkaApi-(\d+)\]|\[GroupCoordinator (\d+)\]|\[Kafka Server (\d+)\]|\bbroker=(\d+)|\[(?:KafkaServer|BrokerServer|Broker|Controller|KafkaRaftServer|BrokerLifecycleManager|QuorumController|GroupCoordinator) (?:id|nodeId)=(\d+)|on broker (\d+):|\[ReplicaFetcher replicaId=(\d+)/.exec(
      message,
    )
  if (!m) return undefined
  for (let i = 1; i < m.length; i++) if (m[i] !== undefined) return m[i]
  return undefined
}

/** Matchers that apply to a format, and the prefilters built from their literals. */
export type MatcherSet = {
  message: readonly Matcher[]
  record: readonly Matcher[]
  /** Matches any line that may yield a signal (as a regex: `grep -E` runs the same). */
  trigger: RegExp
  /** The same prefilter as a literal scanner, when every trigger is a literal long enough to skip well. */
  scanner?: LiteralScanner
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const triggerOf = (m: Matcher) => m.pattern ?? m.literals.map(escapeRe).join('|')

/** Shortest literal for which the literal scanner beats the regex prefilter. */
const MIN_SCAN_LITERAL = 8

/** Builds the matcher set for one file format; done once per file. */
export function matchersFor(format: LogFormat): MatcherSet {
  const rows = MATCHERS.filter((m) => m.formats.includes(format))
  const message = rows.filter((m) => m.scope === 'message')
  const record = rows.filter((m) => m.scope === 'record')
  const literals = rows.flatMap((m) => m.literals)
  const scannable = rows.every((m) => m.pattern === undefined) && literals.every((l) => l.length >= MIN_SCAN_LITERAL)
  return {
    message,
    record,
    trigger: new RegExp(rows.map(triggerOf).join('|'), 'g'),
    scanner: scannable ? new LiteralScanner(literals) : undefined,
  }
}

/** True when the record's first line (or, for record scope, line `i`) can match: cheaper than running `re`. */
export function mayMatch(m: Matcher, line: string): boolean {
  if (m.literals.length === 0) return true
  for (const l of m.literals) if (line.includes(l)) return true
  return false
}
