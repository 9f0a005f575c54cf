import { CLIENT_MATCHERS } from './client-matchers.js'
import { RUNTIME_MATCHERS } from './runtime-matchers.js'
import type { Draft, Matcher } from './matchers.js'
import type { LogFormat } from './types.js'

/**
 * Matcher rows for failure modes the first table did not cover: threads that die, unclean restarts and
 * long log recovery, follower truncation, cluster-id and listener mistakes, TLS/SASL failures, KRaft
 * quorum moves, and the distinctive lines of known Kafka bugs. Each row names the Kafka versions and
 * source class whose wording it matches (checked against the sources jars on Maven Central); they are
 * spliced into MATCHERS after the Kafka rows.
 */

const KAFKA: readonly LogFormat[] = ['kafka']

/** Fetch failures toward different leaders this close together are one broker failing to reach its peers. */
export const FETCH_FAILED_SPREAD_MS = 60_000
const KAFKA_CLIENT: readonly LogFormat[] = ['kafka', 'client']

/** "orders-3" → topic and partition (topics may contain dashes; the partition is last). */
function topicPartition(text: string | undefined): { topic: string; partition: string } | undefined {
  const m = text ? /^(.+)-(\d+)$/.exec(text) : null
  return m ? { topic: m[1], partition: m[2] } : undefined
}

/** A signal labelled with the topic and partition it names, when the text names one. */
function withPartition(name: string, text: string | undefined, extra: Record<string, string> = {}, value?: number): Draft {
  const p = topicPartition(text)
  const labels = { ...(p ?? {}), ...extra }
  return { name, ...(value !== undefined ? { value } : {}), ...(Object.keys(labels).length ? { labels } : {}) }
}

/**
 * The job of a Kafka thread from its name, so a rule can tell a dead log cleaner (compaction stops, disks
 * fill) from a dead replica fetcher (a follower stops replicating) without knowing every numbering scheme.
 */
export function threadKind(name: string): string {
  if (/log-cleaner/.test(name)) return 'log-cleaner'
  if (/^ReplicaFetcher/.test(name)) return 'replica-fetcher'
  if (/^ReplicaAlterLogDirs/.test(name)) return 'alter-log-dirs'
  if (/ExpirationReaper|Reaper/.test(name)) return 'purgatory-reaper'
  if (/request-handler/.test(name)) return 'request-handler'
  if (/network-thread|Processor/.test(name)) return 'network'
  if (/controller-event-thread|Controller/.test(name)) return 'controller'
  if (/kafka-scheduler/.test(name)) return 'scheduler'
  return 'other'
}

/**
 * Who logged a NetworkClient line, from its prefix: an application's consumer, producer or admin client, or
 * the broker's own inter-broker clients (controller channel, fetchers, forwarding), which say nothing about
 * the addresses applications are given.
 */
export function clientKind(message: string): string {
  const m = /\[(Consumer|Producer|AdminClient|Admin) clientId=/.exec(message)
  return m ? (m[1] === 'Consumer' ? 'consumer' : m[1] === 'Producer' ? 'producer' : 'admin') : 'broker'
}

/** Known-bug wording: an id a rule filters on (`log.signature{id="…"}`), the literal and the pattern. */
type Signature = { id: string; literal: string; re: RegExp }

/**
 * Lines that name one bug each. Kept as data so the known-issue rules and their docs read the same ids.
 * Sources: LogCleaner/LogSegment/OffsetIndex/Log/Replica in kafka_2.11 0.10.2.2, kafka_2.12 1.1.1,
 * kafka_2.13 2.8.2 and 3.9.1, and the JIRA issues the rules cite.
 */
export const SIGNATURES: readonly Signature[] = [
  // Kafka 0.9-0.10.0 LogCleaner (KAFKA-3894): "N messages in segment t-p/000.log but offset map can fit
  // only M. You can increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads".
  { id: 'cleaner-offset-map-full', literal: 'but offset map can fit only', re: /messages in segment \S+ but offset map can fit only \d+/ },
  // Kafka 0.10.0.x LogCleaner (KAFKA-3894): "requirement failed: Unable to build the offset map for segment
  // t-p/000.log. You can increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads".
  { id: 'cleaner-offset-map-unbuildable', literal: 'Unable to build the offset map for segment', re: /Unable to build the offset map for segment \S+\. You can increase log\.cleaner\.dedupe\.buffer\.size/ },
  // Kafka 0.10-1.x LogSegment.append (KAFKA-5413 when the cleaner hits it): "largest offset in message set
  // can not be safely converted to relative offset."
  { id: 'relative-offset-overflow', literal: 'can not be safely converted to relative offset', re: /largest offset in message set can not be safely converted to relative offset/ },
  // Kafka 0.10-3.x OffsetIndex/TimeIndex (KAFKA-4497 in the cleaner): "Attempt to append an offset (N) to
  // position|slot N no larger than the last offset appended (N) to /path".
  { id: 'index-append-not-larger', literal: 'no larger than the last offset appended', re: /Attempt to append an offset \(\d+\) to (?:position|slot) \d+ no larger than the last offset appended/ },
  // Kafka 1.0-3.x Replica/Log maybeIncrementLogStartOffset (KAFKA-7104 on followers): "Cannot increment the
  // log start offset to N of partition t-p since it is larger than the high watermark M".
  { id: 'log-start-beyond-hw', literal: 'since it is larger than the high watermark', re: /Cannot increment the log start offset to \d+ of partition \S+ since it is larger than the high watermark/ },
  // Kafka 1.0-1.1 Log.roll (KAFKA-6388): "Trying to roll a new log segment for topic partition t-p with
  // start offset N while it already exists."
  { id: 'roll-existing-segment', literal: 'Trying to roll a new log segment', re: /Trying to roll a new log segment for topic partition \S+ with start offset \d+ while it already exists/ },
  // Kafka 3.6.0 clients ChunkedBytesStream (KAFKA-15653): a NullPointerException whose stack runs through
  // org.apache.kafka.common.utils.ChunkedBytesStream while the broker decompresses a produce batch.
  { id: 'chunked-bytes-stream-npe', literal: 'ChunkedBytesStream', re: /at org\.apache\.kafka\.common\.utils\.ChunkedBytesStream\./ },
]

/** The rows; numbered F1… so comments and tests can name them. */
export const FAILURE_MATCHERS: readonly Matcher[] = [
  // F1. Kafka 0.9-3.x ShutdownableThread: 0.9-1.0 logIdent "[name], " ("[kafka-log-cleaner-thread-0], Error
  //     due to "), 1.1-3.x "[name]: " ("[kafka-log-cleaner-thread-0]: Error due to"), 1.1-3.x fetchers
  //     "[ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Error due to";
  //     clients 0.10-4.x KafkaThread "Uncaught exception in thread 'name':". The thread is gone after it.
  {
    literals: ['Error due to', 'Uncaught exception in thread'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /^\[([^\]]+?)\][:,]? Error due to\s*$|Uncaught exception in thread '([^']+)':/,
    build: (m) => {
      const thread = m[1] ?? m[2]
      return { name: 'thread.died', labels: { thread, kind: threadKind(thread) } }
    },
  },
  // F2. Kafka 3.0-4.x LogManager "Recovering N logs from /d since no clean shutdown file was found": the
  //     previous process ended without its shutdown (SIGKILL, the OOM killer, a probe, power loss).
  //     2.0-2.8 "Attempting recovery for all logs in /d since no clean shutdown file was found" is also
  //     what a first start on an empty data dir says (the lab's 2.8.2 recordings), so that dir waits for
  //     F3's "Loaded N logs": an unclean shutdown only when N > 0.
  {
    literals: ['no clean shutdown file was found'],
    scope: 'message',
    formats: KAFKA,
    re: /(Attempting recovery for all logs in|Recovering \d+ logs from) (\S+) since no clean shutdown file was found/,
    build: (m, _r, st) => {
      if (m[1] === 'Recovering') return { name: 'log.unclean_shutdown', labels: { dir: m[2] } }
      st.pendingRecovery = [...(st.pendingRecovery ?? []), m[2]]
      return undefined
    },
  },
  // F3. Kafka 0.10-1.1 LogManager "Logs loading complete in N ms."; 2.0-4.x "Loaded N logs in Mms." (3.x may
  //     append " (unclean log dirs = …)"): how long loading (and recovering) the logs took at start.
  {
    literals: ['Logs loading complete in', 'logs in '],
    scope: 'message',
    formats: KAFKA,
    re: /^Logs loading complete in (\d+) ms\.|^Loaded (\d+) logs in (\d+)ms/,
    build: (m, _r, st) => {
      const drafts: Draft[] = []
      if (m[2] !== undefined && Number(m[2]) > 0) for (const dir of st.pendingRecovery ?? []) drafts.push({ name: 'log.unclean_shutdown', labels: { dir } })
      st.pendingRecovery = undefined
      drafts.push({ name: 'log.load_time', value: Number(m[1] ?? m[3]) })
      return drafts
    },
  },
  // F4. Kafka 0.10-3.x Log/LogLoader "Found a corrupted index file corresponding to log file
  //     /d/t-p/000.log due to Corrupt index found, …}, recovering segment and rebuilding index files…".
  {
    literals: ['Found a corrupted index file'],
    scope: 'message',
    formats: KAFKA,
    re: /Found a corrupted index file(?: corresponding to log file ?\S*\/([^/\s]+)\/\d+\.log)?/,
    build: (m) => withPartition('log.index_corrupt', m[1]),
  },
  // F5. Kafka 2.1-4.x LogCleaner "Unexpected exception thrown when cleaning log Log(…). Marking its
  //     partition (t-p) as uncleanable": compaction of that partition stops until the broker restarts.
  {
    literals: ['as uncleanable'],
    scope: 'message',
    formats: KAFKA,
    re: /Marking its partition \((\S+)\) as uncleanable/,
    build: (m) => withPartition('log.uncleanable', m[1]),
  },
  // F6. Kafka 0.10-3.x ReplicaFetcherThread/AbstractFetcherThread "Reset fetch offset for partition t-p from
  //     X to current leader's latest offset Y": the follower had records the new leader does not, and cut
  //     them off (after an unclean election, or a leader that lost its tail). Value = records dropped.
  {
    literals: ["to current leader's latest offset"],
    scope: 'message',
    formats: KAFKA,
    re: /Reset fetch offset for partition (\S+) from (\d+) to current leader's latest offset (\d+)/,
    build: (m) => withPartition('replica.truncated', m[1], {}, Math.max(0, Number(m[2]) - Number(m[3]))),
  },
  // F7. Kafka 0.10-1.x "Reset fetch offset for partition t-p from X to current leader's start offset Y";
  //     2.0-3.x "Truncate fully and reset fetch offset for partition t-p from X to the current leader's
  //     start offset Y …": the follower fell behind the leader's retention.
  {
    literals: ["current leader's start offset"],
    scope: 'message',
    formats: KAFKA,
    re: /(?:Truncate fully and reset|Reset) fetch offset for partition (\S+) from \d+ to (?:the )?current leader's start offset/,
    build: (m) => withPartition('replica.behind_log_start', m[1]),
  },
  // F8. Kafka 0.10-2.x ReplicaFetcherThread FATAL "Exiting because log truncation is not allowed for
  //     partition t-p, current leader's latest offset X is less than replica's latest offset Y" (0.8-0.9
  //     "Halting because log truncation is not allowed for topic …").
  {
    literals: ['log truncation is not allowed'],
    scope: 'message',
    formats: KAFKA,
    re: /(?:Exiting|Halting) because log truncation is not allowed for (?:partition|topic) (\S+?),/,
    build: (m) => withPartition('replica.truncation_refused', m[1]),
  },
  // F9. Kafka 1.1-4.x AbstractFetcherThread "Current offset X for partition t-p is out of range, which
  //     typically implies a leader change. Reset fetch offset to Y".
  {
    literals: ['is out of range, which typically implies a leader change'],
    scope: 'message',
    formats: KAFKA,
    re: /Current offset \d+ for partition (\S+) is out of range, which typically implies a leader change/,
    build: (m) => withPartition('replica.out_of_range', m[1]),
  },
  // F10. Kafka 2.4-3.x KafkaServer InconsistentClusterIdException "The Cluster ID X doesn't match stored
  //      clusterId Some(Y) in meta.properties. The broker is trying to join the wrong cluster."; 3.7-4.x
  //      MetaPropertiesEnsemble "Invalid cluster.id in: /d/meta.properties. Expected X, but read Y".
  {
    literals: ["doesn't match stored clusterId", 'Invalid cluster.id in: '],
    scope: 'record',
    formats: KAFKA,
    re: /The Cluster ID (\S+) doesn't match stored clusterId (?:Some\()?([^)\s]+)\)?|Invalid cluster\.id in: \S+\. Expected (\S+), but read (\S+)/,
    build: (m) => ({ name: 'broker.cluster_id_mismatch', labels: { expected: (m[1] ?? m[4]).replace(/,$/, ''), stored: (m[2] ?? m[3]).replace(/,$/, '') } }),
  },
  // F11. Kafka 1.1-3.x KafkaZkClient$CheckedEphemeral "Error while creating ephemeral at /brokers/ids/1, node
  //      already exists and owner 'X' does not match current session 'Y'": after a session expiry the old
  //      session's registration is still there (or another broker has the same broker.id).
  {
    literals: ['Error while creating ephemeral at'],
    scope: 'message',
    formats: KAFKA,
    re: /Error while creating ephemeral at (\S+?), node already exists and owner/,
    build: (m) => ({ name: 'zk.ephemeral_conflict', labels: { path: m[1] } }),
  },
  // F12. Kafka 2.7-2.8 AlterIsrManager, 3.0-3.x AlterPartitionManager "Broker had a stale broker epoch (N),
  //      retrying.": the controller holds a newer registration of this broker than its own requests carry.
  {
    literals: ['stale broker epoch'],
    scope: 'message',
    formats: KAFKA,
    re: /Broker had a stale broker epoch \((-?\d+)\)/,
    build: () => ({ name: 'broker.stale_epoch' }),
  },
  // F13. Kafka 2.8-4.x raft QuorumState "Completed transition to CandidateState(localId=1, …) from …"
  //      (Leader(…), FollowerState(…), Unattached(…), Voted(…), ResignedState(…)): a KRaft voter changed role.
  //      CandidateState's retries=N (2.8-3.9) counts the rounds in a row it has campaigned: a round that ends
  //      without a leader starts the next with N+1, so a high N is a quorum that cannot elect anyone.
  {
    literals: ['Completed transition to '],
    scope: 'message',
    formats: KAFKA,
    re: /Completed transition to (Candidate|Leader|Follower|Unattached|Voted|Resigned|Prospective)\w*\((?:[^)]*?\bretries=(\d+))?/,
    build: (m) => ({ name: 'kraft.quorum_transition', labels: { state: m[1].toLowerCase(), ...(m[2] !== undefined ? { retries: m[2] } : {}) } }),
  },
  // F14. Kafka 2.0-4.x Selector "Failed authentication with /10.0.0.5 (SSL handshake failed)" or "(Authentication
  //      failed: Invalid username or password)" and "Failed re-authentication with …" (2.2+).
  {
    literals: ['authentication with '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Failed (?:re-)?authentication with (\S+) \((.*)\)$/,
    build: (m) => ({ name: 'auth.failed', labels: { from: m[1].replace(/^\//, ''), kind: /\bSSL\b|\bTLS\b/.test(m[2]) ? 'tls' : 'sasl' } }),
  },
  // F15. The JDK's certificate expiry: sun.security.x509 "java.security.cert.CertificateExpiredException:
  //      NotAfter: <date>" inside an SSLHandshakeException stack, and the TLS alert the peer sends,
  //      "Received fatal alert: certificate_expired" (JDK 8-21 SSLEngine), and the path validator's "PKIX path
  //      validation failed: java.security.cert.CertPathValidatorException: validity check failed".
  {
    literals: ['CertificateExpiredException', 'certificate_expired', 'validity check failed'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /CertificateExpiredException|Received fatal alert: certificate_expired|PKIX path validation failed: java\.security\.cert\.CertPathValidatorException: validity check failed/,
    build: () => ({ name: 'tls.cert_expired' }),
  },
  // F16. Clients 1.0-2.x NetworkClient "Connection to node N could not be established. Broker may not be
  //      available." (2.1+ names the address: "Connection to node 1 (kafka-1/10.0.0.7:9092) …"); 3.x-4.x
  //      "… Node may not be available.". Node ids below 0 are bootstrap addresses, others advertised ones;
  //      `from` tells an application's client from the broker's own channels.
  {
    literals: ['could not be established'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Connection to node (-?\d+)(?: \(([^)]*)\))? could not be established/,
    build: (m, r) => ({
      name: 'client.connect_failed',
      labels: { node: m[1], ...(m[2] ? { address: m[2] } : {}), via: Number(m[1]) < 0 ? 'bootstrap' : 'advertised', from: clientKind(r.header.message) },
    }),
  },
  // F17. Clients and brokers 2.1-4.x (KIP-320): errors FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH and their
  //      exceptions FencedLeaderEpochException / UnknownLeaderEpochException, by name as Errors and the
  //      consumer's Fetcher / OffsetFetcher log them ("… for partition t-p …").
  {
    literals: ['LEADER_EPOCH', 'LeaderEpochException'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /(FENCED|UNKNOWN)_LEADER_EPOCH|(Fenced|Unknown)LeaderEpochException/,
    build: (m, r) => withPartition('client.leader_epoch_error', /partition (\S+?)[,.:]?(?:\s|$)/.exec(r.header.message)?.[1], { kind: (m[1] ?? m[2]).toLowerCase() }),
  },
  // F18. Clients 2.1-4.x FetchSessionHandler "Node N was unable to process the fetch request with
  //      (sessionId=X, epoch=Y): INVALID_FETCH_SESSION_EPOCH." (or FETCH_SESSION_ID_NOT_FOUND).
  {
    literals: ['was unable to process the fetch request with'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Node (\d+) was unable to process the fetch request with \(sessionId=\d+, epoch=-?\d+\): (\w+)/,
    build: (m) => ({ name: 'fetch.session_error', labels: { node: m[1], error: m[2] } }),
  },
  // F20. Kafka 0.8.2-1.1 (and 2.x before the AlterIsr path of 2.7) Partition "Partition [t,p] on broker N:
  //      Cached zkVersion [V] not equal to that in
  //      zookeeper, skip updating ISR" (1.0-2.x "[Partition t-p broker=N] Cached zkVersion V not equal …"):
  //      the leader's ISR change lost to a newer controller write, usually after a session expiry.
  {
    literals: ['not equal to that in zookeeper'],
    scope: 'message',
    formats: KAFKA,
    re: /Cached zkVersion \[?\d+\]? not equal to that in zookeeper/,
    build: (_m, r) => {
      const a = /\[Partition (\S+) broker=\d+\]/.exec(r.header.message)?.[1]
      const b = /Partition \[([^,\]]+),(\d+)\] on broker/.exec(r.header.message)
      return withPartition('isr.stale_zk_version', a ?? (b ? `${b[1]}-${b[2]}` : undefined))
    },
  },
  // F21. Kafka 0.8.2-3.x ReplicaFetcherThread "Replication is failing due to a message that is greater than
  //      replica.fetch.max.bytes for partition t-p. This generally occurs when the max.message.bytes has been
  //      overridden …": the follower cannot fetch past one oversized batch (before KIP-74 fetches, 0.10.1).
  {
    literals: ['Replication is failing due to a message that is greater than'],
    scope: 'message',
    formats: KAFKA,
    re: /Replication is failing due to a message that is greater than replica\.fetch\.max\.bytes for partition (?:\[([^,\]]+),(\d+)\]|(\S+?))\./,
    build: (m) => withPartition('replica.message_too_large', m[3] ?? `${m[1]}-${m[2]}`),
  },
  // F22. Kafka 0.10-2.x CoreUtils "requirement failed: Each listener must have a different name|port, listeners:
  //      …" and 0.10-3.x EndPoint "No security protocol defined for listener SSL": the broker refuses its
  //      listeners / advertised.listeners at start-up.
  {
    literals: ['Each listener must have a different', 'No security protocol defined for listener'],
    scope: 'record',
    formats: KAFKA,
    re: /Each listener must have a different (name|port), listeners: (\S+)|No security protocol defined for listener (\S+)/,
    build: (m): Draft => ({ name: 'broker.listener_invalid', labels: m[1] ? { reason: `duplicate ${m[1]}`, listeners: m[2] } : { reason: 'no security protocol', listener: m[3] } }),
  },
  // F23. clients 0.10 JaasUtils / 1.0-3.x JaasContext "Could not find a 'KafkaServer' or
  //      'sasl_plaintext.KafkaServer' entry in the JAAS configuration. System property
  //      'java.security.auth.login.config' is not set" (1.1+ "… entry in this JAAS configuration.").
  {
    literals: ['JAAS configuration'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Could not find a '([^']+)'(?: or '[^']+')? entry in (?:the|this) JAAS configuration/,
    build: (m) => ({ name: 'sasl.jaas_missing', labels: { context: m[1] } }),
  },
  // F24. Kafka 0.11-1.x KafkaApis "Number of alive brokers 'N' does not meet the required replication factor
  //      'M' for the offsets topic (configured via 'offsets.topic.replication.factor')"; 0.10-2.x AdminUtils
  //      "replication factor: M larger than available brokers: N" (auto-creating the topic a request needs).
  {
    literals: ['does not meet the required replication factor', 'larger than available brokers'],
    scope: 'record',
    formats: KAFKA,
    re: /Number of alive brokers '(\d+)' does not meet the required replication factor '(\d+)' for the (offsets|transactions state) topic|[Rr]eplication factor: (\d+) larger than available brokers: (\d+)/,
    build: (m): Draft =>
      m[1] !== undefined
        ? { name: 'topic.replication_unsatisfiable', labels: { required: m[2], alive: m[1], topic: m[3] === 'offsets' ? '__consumer_offsets' : '__transaction_state' } }
        : { name: 'topic.replication_unsatisfiable', labels: { required: m[4], alive: m[5] } },
  },
  // F25. Kafka 1.1-2.x controller state-change log "Controller N epoch E failed to change state for partition
  //      t-p from OfflinePartition to OnlinePartition": no live replica could be elected leader.
  {
    literals: ['from OfflinePartition to OnlinePartition'],
    scope: 'message',
    formats: KAFKA,
    re: /failed to change state for partition (\S+) from OfflinePartition to OnlinePartition/,
    build: (m) => withPartition('partitions.offline_election_failed', m[1]),
  },
  // F26. Kafka 0.10-1.0 controller "Controller N epoch E encountered error while electing leader for partition
  //      [t,p] due to: No other replicas in ISR 0,2 for [t,p] besides shutting down brokers 0.": a controlled
  //      shutdown cannot move that partition's leadership.
  {
    literals: ['besides shutting down brokers'],
    scope: 'message',
    formats: KAFKA,
    re: /No other replicas in ISR [\d,]+ for \[([^,\]]+),(\d+)\] besides shutting down brokers/,
    build: (m) => withPartition('controller.shutdown_move_failed', `${m[1]}-${m[2]}`),
  },
  // F27. Kafka 0.9-0.10 AbstractFetcherThread "[ReplicaFetcherThread-0-1], Error in fetch …"; 1.0-3.x "Error in
  //      response for fetch request …": the follower could not get a response from its leader. When the same
  //      log has such failures toward two or more leaders within FETCH_FAILED_SPREAD_MS, also
  //      replica.fetch_failed_leaders (value: how many leaders, label leaders "1, 2"). Also peer.fetch_failed,
  //      filed on the leader, with the follower (replicaId) that logged it.
  {
    literals: ['Error in fetch', 'Error in response for fetch request'],
    scope: 'message',
    formats: KAFKA,
    re: /^\[(?:ReplicaFetcherThread-\d+-(\d+)|ReplicaFetcher replicaId=(\d+), leaderId=(\d+)[^\]]*)\][:,]? Error in (?:fetch|response for fetch request)\b/,
    build: (m, _r, st, at) => {
      const leader = m[1] ?? m[3]
      const failed: Draft = { name: 'replica.fetch_failed', labels: { leader } }
      // The same failure seen from the leader's side: its follower got nothing back from it.
      const peer: Draft = { name: 'peer.fetch_failed', broker: leader, labels: m[2] === undefined ? {} : { follower: m[2] } }
      if (at === undefined) return [failed, peer]
      // One broker's fetchers failing toward several leaders within a minute: one event naming them all.
      const seen = (st.fetchFailedAt ??= new Map<string, number>())
      seen.set(leader, at)
      for (const [id, t] of seen) if (t < at - FETCH_FAILED_SPREAD_MS) seen.delete(id)
      if (seen.size < 2) return [failed, peer]
      const leaders = [...seen.keys()].sort((a, b) => Number(a) - Number(b))
      return [failed, peer, { name: 'replica.fetch_failed_leaders', value: leaders.length, labels: { leaders: leaders.join(', ') } }]
    },
  },
  // F28. Kafka 0.9-0.11 ReplicaManager FATAL "[Replica Manager on Broker N]: Halting due to unrecoverable I/O
  //      error while handling produce request: " (before log dirs could fail one by one, KIP-112 in 1.0).
  {
    literals: ['Halting due to unrecoverable I/O error'],
    scope: 'message',
    formats: KAFKA,
    re: /Halting due to unrecoverable I\/O error/,
    build: () => ({ name: 'log.dir_failure' }),
  },
  // F29. Kafka 1.1-4.x LogCleaner through LogDirFailureChannel "Failed to clean up log for t-p in dir /d due to
  //      IOException": the cleaner's I/O error takes the dir offline.
  {
    literals: ['Failed to clean up log for'],
    scope: 'message',
    formats: KAFKA,
    re: /Failed to clean up log for (\S+) in dir (\S+) due to IOException/,
    build: (m) => {
      const p = topicPartition(m[1])
      return { name: 'log.dir_failure', labels: p ? { dir: m[2], topic: p.topic } : { dir: m[2] } }
    },
  },
  // F30. Kafka 2.4-3.x GroupCoordinator "Preparing to rebalance group g … (reason: removing member m on heartbeat
  //      expiration)": a member stopped heartbeating within session.timeout.ms and was removed.
  {
    literals: ['on heartbeat expiration'],
    scope: 'message',
    formats: KAFKA,
    re: /rebalance group (\S+) .*removing member (\S+) on heartbeat expiration/,
    build: (m) => ({ name: 'group.member_expired', labels: { group: m[1], member: m[2] } }),
  },
  // F31. Kafka 2.4-3.x AbstractFetcherThread "Unexpected error occurred while processing data for partition t-p
  //      at offset N": the fetcher stops replicating that partition only. (Its "Partition t-p marked as failed"
  //      also follows the routine "has an older epoch … Will await the new LeaderAndIsr state", so it is no signal.)
  {
    literals: ['Unexpected error occurred while processing data for partition'],
    scope: 'message',
    formats: KAFKA,
    re: /Unexpected error occurred while processing data for partition (\S+) at offset/,
    build: (m) => withPartition('replica.partition_failed', m[1]),
  },
  // F32. clients 0.11-4.x LegacyRecord / DefaultRecordBatch "Record is corrupt (stored crc = N, computed crc = M)",
  //      inside the consumer Fetcher's "Record for partition t-p at offset N is invalid, cause: …" (1.1-2.x) or a
  //      broker's CorruptRecordException: a batch whose checksum does not match its bytes.
  {
    literals: ['Record is corrupt (stored crc'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Record is corrupt \(stored crc = \d+/,
    build: (_m, r) => withPartition('record.corrupt', /(?:Record for )?partition (\S+?) at offset \d+/.exec(r.lines.join('\n'))?.[1]),
  },
  // F33. Kafka 2.8-3.x BrokerLifecycleManager "Unable to register the broker because the RPC got timed out before it
  //      could be sent.", "Unable to register broker N because of an authentication exception." / "… of an API
  //      version problem.", "Unable to register broker N because the controller returned error E": the broker
  //      cannot join the KRaft cluster's membership.
  {
    literals: ['Unable to register the broker', 'Unable to register broker'],
    scope: 'message',
    formats: KAFKA,
    re: /Unable to register (?:the broker because the RPC got (timed out)|broker \d+(?: because (?:of an (authentication exception|API version problem)|the controller returned error (\w+)))?)/,
    build: (m) => ({ name: 'kraft.registration_failed', labels: { reason: m[1] ? 'timeout' : m[2] ? m[2].replace(' exception', '').replace(' problem', '') : (m[3] ?? 'no response') } }),
  },
  // F34. Kafka 2.8-3.x BrokerToControllerRequestThread "Recorded new controller, from now on will use broker
  //      host:port (id: N rack: r)" (2.8) / "… will use node host:port (id: N rack: r)" (3.0+), with the channel in
  //      the thread's log ident: "[BrokerToControllerChannelManager broker=1 name=alterPartition]" or
  //      "[broker-101-to-controller-heartbeat-channel-manager]". Once per channel at start-up; again on every
  //      reconnect, so the same controller recorded twice on one channel is a channel that keeps dropping.
  {
    literals: ['Recorded new controller, from now on will use'],
    scope: 'message',
    formats: KAFKA,
    re: /Recorded new controller, from now on will use (?:broker|node) [^(]{0,300}\(id: (\d+)/,
    build: (m, r) => {
      const channel = /name=(\w+)|to-controller-(\w+)-channel-manager/.exec(r.header.message)
      return { name: 'kraft.controller_recorded', labels: { node: m[1], channel: channel?.[1] ?? channel?.[2] ?? 'unknown' } }
    },
  },
  // F35. Kafka 3.6-4.x QuorumController (EventHandlerExceptionInfo.failureMessage) "handleCommit[baseOffset=N]:
  //      event failed with CorruptRecordException in 234 microseconds.", "… event unable to start processing
  //      because of NotControllerException.", "… failed with X (treated as Y) at epoch E …": a controller event
  //      that threw. Logged at INFO for API errors (NotController on failover is routine) and through the
  //      non-fatal fault handler otherwise, so rules must look at the exception.
  {
    literals: [': event failed with ', ': event unable to start processing because of '],
    scope: 'message',
    formats: KAFKA,
    re: /: event (?:failed with|unable to start processing because of) (\w+)/,
    build: (m) => {
      // The event's name ends right before the match ("handleCommit[baseOffset=N]"); read back a bounded
      // slice so the pattern stays linear on long lines.
      const before = m.input.slice(Math.max(0, m.index - 200), m.index)
      const event = /(\w+)(?:\[[^\]]*\])?$/.exec(before)?.[1] ?? 'unknown'
      return { name: 'kraft.controller_event_failed', labels: { event, exception: m[1] } }
    },
  },
  // F36. ZooKeeper 3.4-3.9 server FastLeaderElection "Notification time out: N": a leader election round ended with
  //      no notification from a quorum; N (ms) is the next wait, doubled each round from 200 (finalizeWait) up to
  //      60000 (maxNotificationInterval), so its size says how long the election has gone on.
  {
    literals: ['Notification time out: '],
    scope: 'message',
    formats: KAFKA,
    re: /Notification time out: (\d+)/,
    build: (m) => ({ name: 'zk.server_election_timeout', value: Number(m[1]) }),
  },
  // F37. Kafka 1.0-3.x KafkaServer.shutdown (ZooKeeper mode), run by the "kafka-shutdown-hook" thread on SIGTERM:
  //      "Fatal error during KafkaServer shutdown." with "java.lang.IllegalStateException: Kafka server is still
  //      starting up, cannot shut down!": the process was told to stop before its start-up (log loading and
  //      recovery included) had finished. A failed start-up resets the starting flag first, so only a stop
  //      from outside the broker says this.
  {
    literals: ['Kafka server is still starting up, cannot shut down'],
    scope: 'record',
    formats: KAFKA,
    re: /Kafka server is still starting up, cannot shut down!/,
    build: () => ({ name: 'broker.stopped_while_starting' }),
  },
  // F38. Kafka 3.2-3.9 (ZooKeeper mode, KIP-704) marks a leader elected from outside the ISR as RECOVERING: the
  //      controller's ZkPartitionStateMachine "Changed partition t-p from OfflinePartition to OnlinePartition with
  //      state LeaderAndIsr(leader=2, …, leaderRecoveryState=RECOVERING, …)" (state.change.logger), and the new
  //      leader's "The topic partition t-p was marked as RECOVERING. Marking the topic partition as RECOVERED."
  //      A clean election keeps RECOVERED, so either line is an unclean leader election.
  {
    literals: ['leaderRecoveryState=RECOVERING', 'was marked as RECOVERING'],
    scope: 'message',
    formats: KAFKA,
    re: /Changed partition (\S+) from \w+ to OnlinePartition with state LeaderAndIsr\(.*\bleaderRecoveryState=RECOVERING\b|The topic partition (\S+) was marked as RECOVERING\./,
    build: (m) => withPartition('leader.unclean', m[1] ?? m[2]),
  },
  // F39. A consumer whose poll loop stopped while its heartbeat thread ran on: after max.poll.interval.ms the
  //      client (2.x-4.x ConsumerCoordinator, its heartbeat thread) logs "[Consumer clientId=c, groupId=g] consumer
  //      poll timeout has expired. This means the time between subsequent calls to poll() was longer than the
  //      configured max.poll.interval.ms, …" and leaves the group with that reason (KIP-800, 3.2+), which the
  //      ZooKeeper-mode coordinator (3.2-3.9 GroupCoordinator) logs as "Member MemberMetadata(memberId=m, …) has
  //      left group g through explicit `LeaveGroup`; client reason: consumer poll timeout has expired.". Its
  //      "Preparing to rebalance … (reason: Removing member m on LeaveGroup; client reason: …)" repeats it and is
  //      left to the rebalance matcher.
  {
    literals: ['consumer poll timeout has expired'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /\[Consumer clientId=([^,\]]+), groupId=([^\]]+)\] consumer poll timeout has expired|Member (?:MemberMetadata\(memberId=)?([^\s,()]+).* has left group (\S+) through explicit `LeaveGroup`.*client reason: consumer poll timeout has expired/,
    build: (m) => {
      const labels: Record<string, string> = m[2] !== undefined ? { group: m[2], client: m[1] } : { group: m[4], member: m[3] }
      return { name: 'group.member_poll_timeout', labels }
    },
  },
  // F40. Kafka 0.10.2-3.9 KafkaController (ZooKeeper mode) "[Controller id=2] Broker failure callback for 3" (0.10's
  //      logIdent "[Controller 2]: "): the controller saw the broker's /brokers/ids znode go, with its ZooKeeper
  //      session (expired, or closed by its shutdown). Filed on each broker it names; controller = who logged it.
  //      Real lines: test/incidents/lab-stw/broker-2/controller.log, lab-rolling-restart.
  {
    literals: ['Broker failure callback for '],
    scope: 'message',
    formats: KAFKA,
    re: /^\[Controller (?:id=)?(\d+)\]:? Broker failure callback for (\d+(?:,\d+)*)$/,
    build: (m): Draft[] => m[2].split(',').map((id) => ({ name: 'controller.broker_lost', broker: id, labels: { controller: m[1] } })),
  },
  // F41. ZooKeeper 3.4-3.8 server ZooKeeperServer "Expiring session 0x100001597490001, timeout of 6000ms exceeded":
  //      the server heard nothing from that session for its timeout (test/incidents/lab-stw/zookeeper/server.log).
  {
    literals: ['Expiring session 0x'],
    scope: 'message',
    formats: KAFKA,
    re: /^Expiring session 0x([0-9a-f]+), timeout of (\d+)ms exceeded$/,
    build: (m) => ({ name: 'zk.server_session_expired', value: Number(m[2]), labels: { session: `0x${m[1]}` } }),
  },
  // F19. The known-bug lines of SIGNATURES, anywhere in a record (they are usually exception messages).
  {
    literals: SIGNATURES.map((s) => s.literal),
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: new RegExp(SIGNATURES.map((s) => `(${s.re.source})`).join('|')),
    build: (m) => {
      const i = SIGNATURES.findIndex((_s, k) => m[k + 1] !== undefined)
      return i < 0 ? undefined : { name: 'log.signature', labels: { id: SIGNATURES[i].id } }
    },
  },
  // C1-C12. What clients of every library log when a broker connection, request, group or producer fails
  //     (client-matchers.ts).
  ...CLIENT_MATCHERS,
  // R1-R6. Kafka Connect tasks and Kafka Streams threads failing, and their own requests timing out (runtime-matchers.ts).
  ...RUNTIME_MATCHERS,
]
