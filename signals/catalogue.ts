import type { Dimension } from './units.js'

/**
 * The signal catalogue: the one list of names the rule checker, the docs, the adapters and the bot
 * all read. Adding a signal means adding a row here; nothing else hard-codes a signal name's meaning.
 */
export type SignalKind = 'event' | 'gauge' | 'fact'

export type CatalogueEntry = {
  kind: SignalKind
  /** Dimension of `value`; 'none' for events that carry no value. */
  unit: Dimension
  /** Label names a rule may filter or group on. */
  labels: readonly string[]
  /** One line for people: what it means and where it comes from. */
  doc: string
  /** True when the signal concerns the whole cluster and joins every broker's evaluation. */
  clusterWide?: boolean
  /**
   * True when the value is how long the observation lasted and `at` is when it ended (a pause covers
   * [at - value, at]); adapters move start-stamped lines to their end, and temporal operators measure
   * from the interval, not from one instant.
   */
  lasting?: boolean
  /**
   * True when the signal reports what a client did (a consumer's poll loop stalling past
   * max.poll.interval.ms), whoever logged it: the group's coordinator logging it says nothing about
   * that broker's own health, so a cause resting on it alone makes no broker the origin.
   */
  aboutClient?: boolean
}

const ev = (unit: Dimension, labels: readonly string[], doc: string, clusterWide = false): CatalogueEntry => ({
  kind: 'event',
  unit,
  labels,
  doc,
  clusterWide,
})
const gauge = (unit: Dimension, labels: readonly string[], doc: string, clusterWide = false): CatalogueEntry => ({
  kind: 'gauge',
  unit,
  labels,
  doc,
  clusterWide,
})
const fact = (unit: Dimension, labels: readonly string[], doc: string): CatalogueEntry => ({ kind: 'fact', unit, labels, doc })

const TP = ['topic', 'partition'] as const

/**
 * Labels of the generic log signals: template = wording catalogue id or mined template id (`m-…`),
 * pattern = the masked wording of a mined template, signals = specific signals the same record yielded.
 */
const GENERIC_LOG_LABELS = ['template', 'pattern', 'logger', 'exception', 'root_cause', 'topic', 'partition', 'group', 'node', 'path', 'signals'] as const

export const CATALOGUE = {
  // ZooKeeper and KRaft sessions
  'zk.session_timeout': ev('duration', ['session'], 'ZooKeeper client "Client session timed out, have not heard from server in N ms"; value = time not heard'),
  'zk.session_expired': ev('none', ['session'], 'ZooKeeper session expired ("Session expired" / "session 0x… has expired")'),
  'zk.disconnected': ev('none', [], 'ZooKeeper client lost its connection (Disconnected / "Unable to read additional data")'),
  'zk.session_established': ev('none', ['session'], 'the ZooKeeper client (re)established its session ("Session establishment complete on server …, session id = 0x…"): a lost connection is back'),
  'zk.cluster_session_loss': ev('ratio', ['brokers'], 'derived: brokers of the cluster whose ZooKeeper client timed out or disconnected within 10 s of each other (at least two), as a share of the brokers the store knows in the cluster; label brokers = "1, 2, 3"', true),
  'kraft.cluster_controller_loss': ev('ratio', ['brokers'], 'derived: brokers of the cluster whose heartbeats to the KRaft controller failed within 10 s of each other (at least two), as a share of the brokers the store knows in the cluster; label brokers = "1, 2, 3"', true),
  'zk.expire_rate': gauge('rate', [], 'ZooKeeper session expiries per second (JMX SessionExpireListener ZooKeeperExpiresPerSec)'),
  'kraft.broker_fenced': ev('none', ['fenced_broker'], 'KRaft controller fenced a broker because its session timed out', false),
  'kraft.heartbeat_failed': ev('none', [], 'BrokerLifecycleManager heartbeat to the controller failed or timed out'),
  // JVM pauses
  'safepoint.sync': { ...ev('duration', ['operation'], 'time to bring all threads to a safepoint (JDK 8 "Stopping threads took", JDK 13+ "Reaching safepoint", statistics sync column)'), lasting: true },
  'safepoint.total': { ...ev('duration', ['operation'], 'total time application threads were stopped ("Total time for which application threads were stopped", "Total: N ns")'), lasting: true },
  'gc.pause': { ...ev('duration', ['kind', 'cause', 'collector'], 'a GC pause (G1/Parallel/CMS, young/mixed/full), JDK 8 and unified logging'), lasting: true },
  'gc.off_cpu': { ...ev('duration', [], 'a GC pause of 100 ms or more whose threads got at most a tenth of its wall time in CPU (-Xlog:gc+cpu "User=… Sys=… Real=…"); value = Real - (User + Sys), time spent waiting for a CPU (cgroup quota, starved host)'), lasting: true },
  'gc.count': gauge('rate', ['collector'], 'GC collections per second (JMX)'),
  'gc.time': gauge('ratio', ['collector'], 'share of wall time spent in GC (JMX)'),
  'heap.after_gc': gauge('bytes', ['kind'], 'heap occupancy right after a GC (GC log "123M->45M(512M)", JMX collection usage)'),
  'heap.used': gauge('bytes', ['pool'], 'heap in use (JMX)'),
  'heap.max': gauge('bytes', ['pool'], 'maximum heap (GC log capacity, JMX)'),
  'jvm.oom': ev('none', ['kind'], 'OutOfMemoryError; kind = heap | gc_overhead | direct | metaspace (also compressed class space, PermGen) | native_thread | map | array_size | native (C heap space) | other'),
  'jvm.oom_exit': ev('none', ['action', 'kind', 'command'], 'the JVM acted on an OutOfMemoryError: action = exit (-XX:+ExitOnOutOfMemoryError "Terminating due to …") | crash (+CrashOnOutOfMemoryError "Aborting due to …") | command (-XX:OnOutOfMemoryError, usually kill -9)'),
  'jvm.native_oom': ev('bytes', ['allocator', 'detail', 'errno', 'hs_err'], 'the JVM got no native memory and died ("There is insufficient memory for the Java Runtime Environment", "Native memory allocation (mmap) failed to map N bytes", "os::commit_memory(…) failed; error=… (errno=12)"); value = bytes asked for'),
  'jvm.fatal_error': ev('none', ['signal', 'detail', 'frame', 'hs_err'], 'the JVM crashed ("A fatal error has been detected by the Java Runtime Environment"); signal = SIGSEGV | SIGBUS | … | internal_error; hs_err = its error report file'),
  'jvm.warning': ev('none', ['warning'], 'a warning the JVM printed on stdout ("OpenJDK 64-Bit Server VM warning: …"), numbers masked'),
  // Replication
  'isr.shrink': ev('none', ['topic', 'partition', 'from', 'to'], 'leader shrank a partition\'s ISR ("Shrinking ISR from 1001,1002 to 1001")'),
  'isr.expand': ev('none', ['topic', 'partition', 'from', 'to'], 'leader expanded a partition\'s ISR ("Expanding ISR", "ISR updated to")'),
  'isr.shrink_rate': gauge('rate', [], 'ISR shrinks per second (JMX IsrShrinksPerSec)'),
  'isr.expand_rate': gauge('rate', [], 'ISR expands per second (JMX IsrExpandsPerSec): a follower caught up again'),
  'replica.max_lag': gauge('count', [], 'messages the furthest-behind follower partition of this broker lags its leader (JMX ReplicaFetcherManager MaxLag, clientId=Replica)'),
  'partitions.under_replicated': gauge('count', [], 'under-replicated partitions (admin metadata, JMX)'),
  'partitions.offline': gauge('count', [], 'offline partitions (admin metadata, controller JMX)', true),
  'partitions.under_min_isr': gauge('count', [], 'partitions whose ISR is below min.insync.replicas'),
  'produce.not_enough_replicas': ev('none', TP, 'a produce was refused: NotEnoughReplicas(AfterAppend)'),
  'leader.change': ev('none', ['topic', 'partition', 'from', 'to'], 'partition leadership moved (state-change log, metadata diff)'),
  'leader.unclean': ev('none', TP, 'an out-of-sync replica was elected leader (unclean leader election)', true),
  'controller.change': ev('none', ['controller'], 'the active controller moved (controller election / resignation)', true),
  'controller.active': gauge('count', [], 'whether this broker is the active controller, 1 or 0 (JMX KafkaController ActiveControllerCount)'),
  'controller.active_sum': gauge('count', ['reporting', 'controllers'], 'derived: the cluster\'s sum of controller.active over the brokers that reported it in the last 2 minutes, at every report of any of them (1 = healthy, 0 = no controller, 2 or more = several brokers acting as controller); reporting = how many brokers\' reports count, controllers = the brokers reporting 1', true),
  'replica.fetch_error': ev('none', ['leader', 'topic', 'partition', 'component'], 'a follower\'s fetch from its leader failed (ReplicaFetcherThread errors; any ERROR of the fetcher threads, component = the class)'),
  // Clients
  'client.not_leader': ev('none', [...TP, 'library', 'error', 'node', 'address'], 'client got NOT_LEADER_FOR_PARTITION / NOT_LEADER_OR_FOLLOWER / NotLeaderForPartitionException, or LEADER_NOT_AVAILABLE (error), in any client library\'s words'),
  // Client error classes in every library's words (adapters/logs/client-matchers.ts); library = java |
  // librdkafka | sarama | franz-go | kafkajs | kafka-python; node/address = the broker the client talked to,
  // and a signal naming a broker id is filed under that broker
  'client.transport_failure': ev('none', ['node', 'address', 'library', 'kind'], 'a client\'s established connection to a broker broke (librdkafka "Disconnected", "Receive failed", sarama "got error from broker N while fetching metadata: EOF", kafkajs "Connection closed by the server", kafka-python "socket disconnected"); kind = disconnect | receive | send | timeout | resolve'),
  'client.all_brokers_down': ev('none', ['library', 'brokers'], 'a client had no broker left to talk to (librdkafka "1/1 brokers are down", sarama "no available broker to send metadata request to", kafka-python "No node available")', true),
  'client.request_timeout': ev('none', ['node', 'address', 'library', 'request'], 'a broker did not answer a client\'s request in time (librdkafka "Timed out ProduceRequest in flight", "N request(s) timed out: disconnect", Java "Disconnecting from node N due to request timeout", REQUEST_TIMED_OUT)'),
  'client.auth_failed': ev('none', ['node', 'address', 'library', 'kind'], 'a client failed TLS or SASL with a broker (librdkafka "SSL handshake failed", "SASL authentication error", Java "failed authentication due to", sarama "failed SASL authentication"); kind = tls | sasl'),
  'client.unknown_topic': ev('none', [...TP, 'library', 'error', 'node', 'address'], 'a client asked for a topic or partition the cluster does not have (UNKNOWN_TOPIC_OR_PARTITION in any library\'s words, Java "Topic t not present in metadata after N ms"; error = the code, METADATA_TIMEOUT for the latter)'),
  'client.message_too_large': ev('none', [...TP, 'library', 'node', 'address'], 'a producer\'s message was larger than the broker or the client accepts (MESSAGE_TOO_LARGE, RecordTooLargeException, librdkafka "Broker: Message size too large", sarama "Message was too large")'),
  'client.produce_failed': ev('none', [...TP, 'library', 'kind'], 'a producer gave up on records (Java "Expiring N record(s) for t-p: … ms has passed since batch creation", "Error when sending message to topic", librdkafka "Local: Message timed out"); kind = expired | error'),
  'client.rebalance': ev('none', ['group', 'library', 'error'], 'a consumer\'s group call was refused because the group is rebalancing or moved on (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID in any library\'s words)'),
  'client.commit_failed': ev('none', [...TP, 'group', 'library', 'error'], 'a consumer\'s offset commit failed (Java "Offset commit failed on partition …", "auto-commit of offsets … failed", librdkafka COMMITFAIL, franz-go "default commit failed", kafka-python "Offset commit failed"); error = the protocol error it names'),
  'client.coordinator_unavailable': ev('none', ['group', 'library', 'error', 'node', 'address'], 'a consumer could not reach its group coordinator (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS in any library\'s words, Java "Group coordinator … is unavailable or invalid")'),
  'client.offset_out_of_range': ev('none', [...TP, 'library'], 'a consumer\'s fetch position was outside the partition\'s log and was reset (OFFSET_OUT_OF_RANGE in any library\'s words, Java "Fetch position … is out of range for partition t-p, resetting offset")'),
  'client.throttled': ev('duration', ['node', 'address', 'library'], 'a broker throttled a client (librdkafka, sarama "FetchResponse throttled 100ms", kafka-python "throttled by broker (N ms)", franz-go "broker is throttling us"); value = throttle time'),
  'client.error_repeat': ev('none', ['library'], 'librdkafka\'s ERROR-facility repeat of the FAIL line just before it (same client handle, same text, within 1 s): the same failure, counted once; the rules that explain the failure explain its repeat'),
  'client.fatal_error': ev('none', ['library', 'kind', 'error'], 'a producer hit a fatal idempotence or transaction error and cannot go on (librdkafka "Fatal error: …", "Fatal transaction error: …", Java "Transiting to fatal error state due to …"); kind = fenced | sequence | unknown_producer | authorization | other'),
  // Kafka Connect and Kafka Streams (adapters/logs/runtime-matchers.ts)
  'connect.task_failed': ev('none', ['task', 'connector', 'exception', 'kind', 'library'], 'a Kafka Connect task died and stays FAILED until restarted ("WorkerSinkTask{id=c-0} Task threw an uncaught and unrecoverable exception", "Task is being killed and will not recover until manually restarted"); exception = the first exception class the record carries'),
  'connect.offset_flush_timeout': ev('count', ['task', 'connector', 'side', 'library'], 'a Connect task\'s offset flush or commit timed out ("Failed to flush, timed out while waiting for producer to flush outstanding N messages", "Timed out waiting to flush offsets to storage", "Commit of offsets timed out"); value = outstanding records when the line says; side = source | sink'),
  'connect.offset_commit_failed': ev('none', ['task', 'connector', 'library'], 'a Connect source task\'s periodic offset commit failed ("WorkerSourceTask{id=c-0} Failed to commit offsets", SourceTaskOffsetCommitter); the flush line before it says why'),
  'streams.thread_died': ev('none', ['thread', 'client', 'exception', 'handler', 'kind', 'library'], 'a Kafka Streams thread or client stopped on an exception ("Encountered the following exception during processing …", "All stream threads have died", "Global thread has died"); kind = exception | all_threads | global_thread'),
  'streams.state_transition': ev('none', ['thread', 'client', 'scope', 'from', 'to', 'library'], 'a Kafka Streams client or thread moved towards an end ("stream-client [app] State transition from RUNNING to ERROR"); to = ERROR | PENDING_ERROR | PENDING_SHUTDOWN | DEAD | NOT_RUNNING'),
  'streams.task_migrated': ev('none', ['thread', 'client', 'kind', 'library'], 'a Kafka Streams thread missed a rebalance and its tasks moved to another thread (TaskMigratedException, "Detected that the thread is being fenced", "… got migrated to another thread"); kind = producer_fenced (exactly-once: "Producer got fenced", ProducerFencedException) | missed_rebalance'),
  'producer.throughput': gauge('rate', ['client'], 'records/s reported by kafka-producer-perf-test progress lines'),
  'producer.max_latency': gauge('duration', ['client'], 'max latency reported by kafka-producer-perf-test progress lines'),
  // Storage
  'log.segment_roll': ev('none', TP, 'a new log segment was rolled ("Rolled new log segment at offset …")'),
  'log.segments': gauge('count', TP, 'log segments of a partition (JMX NumLogSegments, log dir listing)'),
  'log.map_failed': ev('none', ['dir', 'topic'], 'mmap of an index failed ("IOException: Map failed")'),
  'log.dir_failure': ev('none', ['dir'], 'a log dir went offline (LogDirFailureChannel, "Halting broker because dir … is offline")'),
  'log_dirs.offline': gauge('count', [], 'log dirs the broker has taken offline after I/O errors (JMX kafka.log LogManager OfflineLogDirectoryCount)'),
  'disk.avail': gauge('bytes', ['path', 'device'], 'bytes free to the broker on a file system: node-exporter node_filesystem_avail_bytes{mountpoint} (path = the mount point) or the host agent\'s statfs of each log dir (path = the log dir)'),
  'disk.size': gauge('bytes', ['path', 'device'], 'size of the same file system (node_filesystem_size_bytes, statfs)'),
  'disk.time_to_full': gauge('duration', ['path', 'device'], 'derived: how long until a file system is full at the rate it filled over the last 10 minutes (least-squares slope of disk.avail; a sample only while it falls, its text giving the free bytes and the rate)'),
  'disk.full': ev('none', ['dir', 'path'], '"No space left on device" (ENOSPC, any locale of the errno table) while writing a log'),
  'disk.quota_exceeded': ev('none', ['dir', 'path'], '"Disk quota exceeded" (EDQUOT, any locale)'),
  'disk.read_only': ev('none', ['dir', 'path'], '"Read-only file system" (EROFS, any locale): the disk was remounted read-only, usually after I/O errors'),
  'disk.io_error': ev('none', ['dir', 'path'], '"Input/output error" (EIO, any locale): the device failed a read or write'),
  'fs.permission_denied': ev('none', ['dir', 'path'], '"Permission denied" (EACCES, any locale) or java.nio AccessDeniedException'),
  'fs.stale_handle': ev('none', ['dir', 'path'], '"Stale file handle" / "Stale NFS file handle" (ESTALE, any locale): a file on NFS went away under the broker'),
  'mem.cannot_allocate': ev('none', ['dir', 'path'], '"Cannot allocate memory" (ENOMEM, any locale) from a system call the JDK reports (fork, mmap, sockets)'),
  'fd.exhausted': ev('none', ['limit', 'dir', 'path'], '"Too many open files" (EMFILE, any locale); limit = system for "Too many open files in system" (ENFILE)'),
  'fd.open': gauge('count', [], 'open file descriptors (/proc/<pid>/fd, JMX process_open_fds)'),
  'fd.max': gauge('count', [], 'file descriptor limit (/proc/<pid>/limits, JMX process_max_fds)'),
  'mmap.count': gauge('count', [], 'memory-mapped areas (/proc/<pid>/maps)'),
  'mmap.max': gauge('count', [], 'vm.max_map_count'),
  'mmap.buffers': gauge('count', [], 'mapped NIO buffers (JMX BufferPool mapped count)'),
  // Any error a log shows, specific signal or not (adapters/logs/generic.ts); the diagnosis lists those no rule explains
  'log.fatal': ev('none', GENERIC_LOG_LABELS, 'a FATAL record, or a JVM fatal-error banner ("A fatal error has been detected by the Java Runtime Environment")'),
  'log.error': ev('none', GENERIC_LOG_LABELS, 'an ERROR record, or an uncaught exception the JVM printed ("Exception in thread …"); stack trace joined'),
  'log.warn_exception': ev('none', GENERIC_LOG_LABELS, 'a WARN record that carries an exception (a stack trace, "…Exception:", "Caused by:")'),
  'log.warn_failure': ev('none', GENERIC_LOG_LABELS, 'a WARN record without an exception whose statement (the wording tables) reports a failure in words, e.g. ZooKeeper\'s "Too many connections from {} - max is {}"'),
  // Fetch and groups
  'fetch.down_conversion': gauge('rate', ['topic'], 'messages down-converted per second for old clients (JMX FetchMessageConversionsPerSec)'),
  'fetch.down_conversion_error': ev('none', ['topic'], 'an error stack through downConvert (KafkaApis fetch handling)'),
  'group.rebalance': ev('none', ['group', 'generation'], 'a consumer group began rebalancing ("Preparing to rebalance group g …", generation change)'),
  'group.member_failed': ev('none', ['group', 'member'], 'a group member failed or left ("Member m in group g has failed")'),
  'group.stable': ev('none', ['group', 'generation'], 'a group stabilised at a generation'),
  // Consumer lag (adapters/consumer-lag: __consumer_offsets and log-end offsets; engine/consumer-lag-series.ts derives the statuses)
  'group.commit': ev('count', ['group', 'topic', 'partition'], 'a consumer group committed an offset (an offset-commit record of __consumer_offsets, or the admin API\'s committed offsets when the topic cannot be read), at most one per partition per poll interval; value = the committed offset (the next message the group reads); filed on the group\'s coordinator'),
  'partition.log_end': gauge('count', ['topic', 'partition'], 'a partition\'s log-end offset (admin ListOffsets latest), polled at a steady interval; filed on the partition\'s leader'),
  'group.lag': gauge('count', ['group', 'topic', 'partition', 'leader'], 'messages a consumer group is behind on a partition: log-end offset minus its committed offset (at least 0), at each log-end poll; filed on the group\'s coordinator, leader = the partition\'s leader'),
  'group.lag_time': gauge('duration', ['group', 'topic', 'partition', 'leader'], 'how long ago the log end passed the group\'s committed offset, interpolated over the recorded log-end history as kafka-lag-exporter does (lag in seconds); 0 when caught up'),
  'group.members': gauge('count', ['group', 'state', 'generation'], 'members of a consumer group (its last group-metadata record in __consumer_offsets, or describeGroups); state = Stable | Empty | Dead | …'),
  'group.partition_status': ev('count', ['group', 'topic', 'partition', 'status', 'rule', 'leader'], 'derived: Burrow\'s evaluation of a group on a partition over its last 10 commits: status = OK | WARNING (offsets move, lag never goes down) | STALLED (the same offset committed while lag) | STOPPED (commits stopped while lag) | REWIND (the offset went back); rule = which of Burrow\'s rules decided it; value = lag in messages; kept at a range\'s start, at each change and at its end'),
  'group.status': ev('count', ['group', 'status', 'partitions'], 'derived: a consumer group\'s worst partition status (group.partition_status); partitions = how many are not OK; value = total lag in messages'),
  // Request processing
  'request_handler.idle': gauge('ratio', [], 'request handler average idle ratio (JMX)'),
  'request.total_time_p99': gauge('duration', ['request'], '99th percentile of a request\'s time on the broker, arrival to response sent (JMX RequestMetrics TotalTimeMs); request = Produce | FetchConsumer | FetchFollower'),
  'request.queue_time_p99': gauge('duration', ['request'], '99th percentile of the time a request waited for a request handler thread (JMX RequestMetrics RequestQueueTimeMs): high when handlers are saturated'),
  'request.local_time_p99': gauge('duration', ['request'], '99th percentile of the time the leader spent on a request itself (JMX RequestMetrics LocalTimeMs): appends and reads, so disk latency'),
  'request.remote_time_p99': gauge('duration', ['request'], '99th percentile of the time a request waited in purgatory (JMX RequestMetrics RemoteTimeMs): a Produce with acks=all waiting for followers, a Fetch waiting for fetch.min.bytes'),
  'request.throttle_time_p99': gauge('duration', ['request'], '99th percentile of the time the broker held a request\'s response back for a client quota (JMX RequestMetrics ThrottleTimeMs)'),
  'request.response_queue_time_p99': gauge('duration', ['request'], '99th percentile of the time a finished request\'s response waited for its network thread (JMX RequestMetrics ResponseQueueTimeMs): high when network threads are saturated'),
  'request.response_send_time_p99': gauge('duration', ['request'], '99th percentile of the time spent writing a response to the client\'s socket (JMX RequestMetrics ResponseSendTimeMs): a slow network or a client that reads slowly'),
  'quota.throttle_time': gauge('duration', ['quota', 'client', 'user', 'entity'], 'average time a client quota held back a client\'s responses (JMX kafka.server type=Produce|Fetch|Request throttle-time per user/client-id; present once quotas are set); quota = produce | fetch | request, entity = "user U, client-id C" as far as the quota is keyed'),
  'network_processor.idle': gauge('ratio', [], 'network processor average idle ratio (JMX)'),
  // Lifecycle
  'broker.start': ev('none', [], 'broker finished starting ("[KafkaServer id=1] started", "Kafka Server started")'),
  'broker.shutdown': ev('none', [], 'broker began shutting down'),
  'broker.version': fact('version', ['version'], 'Kafka version ("Kafka version: 3.7.0", admin API)'),
  'process.start': fact('duration', [], 'JVM process start time in epoch ms (JMX process_start_time_seconds); a change is a restart'),
  'source.stale': ev('none', ['target'], 'a signal source (scrape target, admin API, log file) stopped answering'),
  'process.restart': ev('none', ['from', 'to'], 'the broker JVM restarted: its process start time changed between two scrapes'),
  // Failure modes read from broker and client logs (adapters/logs/failure-matchers.ts)
  'thread.died': ev('none', ['thread', 'kind'], 'a Kafka thread ended on an exception ("[kafka-log-cleaner-thread-0]: Error due to", "Uncaught exception in thread \'t\':"); kind = log-cleaner | replica-fetcher | purgatory-reaper | request-handler | network | controller | scheduler | other'),
  'log.unclean_shutdown': ev('none', ['dir'], 'the broker started without a clean shutdown marker ("… since no clean shutdown file was found"): the previous process was killed or crashed'),
  'broker.stopped_while_starting': ev('none', [], 'the broker was told to shut down (SIGTERM, its shutdown hook) before it had finished starting ("Kafka server is still starting up, cannot shut down!")'),
  'log.load_time': ev('duration', [], 'how long loading the logs took at start-up ("Loaded N logs in Mms.", "Logs loading complete in M ms.")'),
  // Seen from outside the broker: what notices a broker that cannot log (a frozen JVM, a stopped process, a stalled host)
  'scrape.unanswered': ev('duration', ['target', 'reason'], 'a scrape of the broker\'s exporter got no answer, one per failed attempt: reason = timeout (connected, but nothing came back within the scrape timeout: the exporter is a javaagent inside the broker\'s JVM, so a frozen JVM, a stopped process or a stalled host) | refused (nothing listens: the process is gone or restarting) | error (HTTP status, a reset, a cut-off body); value = time since the target last answered (since the scraper started when it never did)'),
  'controller.broker_lost': ev('none', ['controller'], 'the ZooKeeper-mode controller dropped this broker from the live brokers, its /brokers/ids znode gone with its session or its shutdown ("[Controller id=2] Broker failure callback for 3"); filed on the lost broker, controller = the broker that logged it'),
  'zk.server_session_expired': ev('duration', ['session'], 'a ZooKeeper server expired a client\'s session ("Expiring session 0x…, timeout of 6000ms exceeded"); value = the session timeout; the server\'s log names no broker, the session id is the one a broker\'s zk.session_established names'),
  'peer.fetch_failed': ev('none', ['follower'], 'a follower\'s fetch from this broker got no response ("[ReplicaFetcher replicaId=1, leaderId=3, fetcherId=0] Error in response for fetch request …" in the follower\'s log, after replica.socket.timeout.ms or a dropped connection); filed on the leader it names, follower = the broker that logged it (absent in 0.9-0.10, whose thread name omits it)'),
  'process.state': ev('none', ['state', 'pid'], 'the host agent\'s reading of the broker process (/proc/<pid>/stat), one per sample: state = running | sleeping | disk_wait (D, uninterruptible I/O) | stopped (T, SIGSTOP/SIGTSTP) | traced (t) | zombie (Z) | dead (X) | idle | other'),
  'process.cpu': gauge('ratio', ['pid'], 'CPU time the broker process used per second of wall time between two host agent samples (utime + stime of /proc/<pid>/stat); 0 = its CPU time did not advance'),
  'process.gone': ev('none', ['pid'], 'the host agent found no broker process: the pid (or the pid file\'s) is not running, once per disappearance'),
  'log.index_corrupt': ev('none', TP, 'an index was found corrupt at start-up and is rebuilt ("Found a corrupted index file …")'),
  'log.uncleanable': ev('none', TP, 'the log cleaner gave up on a partition ("Marking its partition (t-p) as uncleanable")'),
  'replica.truncated': ev('count', TP, 'a follower cut records the new leader does not have ("Reset fetch offset … to current leader\'s latest offset"); value = records dropped'),
  'replica.behind_log_start': ev('none', TP, 'a follower fell behind the leader\'s log start and starts over from it ("Truncate fully and reset fetch offset …")'),
  'replica.truncation_refused': ev('none', TP, 'a follower exited rather than truncate ("Exiting because log truncation is not allowed …", unclean election disabled)'),
  'replica.out_of_range': ev('none', TP, 'a follower\'s fetch offset was out of range on the leader ("… is out of range, which typically implies a leader change")'),
  'broker.cluster_id_mismatch': ev('none', ['expected', 'stored'], 'meta.properties of a log dir belongs to another cluster ("The Cluster ID X doesn\'t match stored clusterId", "Invalid cluster.id in: …")'),
  'zk.ephemeral_conflict': ev('none', ['path'], 'the broker could not re-register in ZooKeeper: the old node is still there ("Error while creating ephemeral at /brokers/ids/N, node already exists and owner …")'),
  'broker.stale_epoch': ev('none', [], 'the controller refused this broker\'s AlterPartition because its broker epoch is stale ("Broker had a stale broker epoch (N), retrying.")'),
  'kraft.quorum_transition': ev('none', ['state', 'retries'], 'a KRaft voter changed role ("Completed transition to CandidateState(…)"); state = candidate | leader | follower | unattached | voted | resigned | prospective; retries (candidates) = the election rounds in a row this voter has campaigned without a leader, 1 for the first'),
  'auth.failed': ev('none', ['from', 'kind'], 'a connection failed authentication ("Failed authentication with /ip (SSL handshake failed)"); kind = tls | sasl'),
  'tls.cert_expired': ev('none', [], 'a TLS certificate in the chain has expired (JDK "CertificateExpiredException: NotAfter: …", alert certificate_expired)'),
  'client.connect_failed': ev('none', ['node', 'address', 'via', 'from', 'library', 'reason'], 'a client could not connect to a broker ("Connection to node N (host/ip:port) could not be established", librdkafka "Connect to ipv4#… failed: Connection refused", kafkajs "Connection error: connect ECONNREFUSED …"); via = bootstrap (node < 0) | advertised; from = consumer | producer | admin | broker (the broker\'s own channels) | client (another library); reason = refused | timeout | resolve | …'),
  'client.leader_epoch_error': ev('none', ['topic', 'partition', 'kind'], 'FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH at a client or follower (KIP-320 metadata behind or ahead of the broker); kind = fenced | unknown'),
  'fetch.session_error': ev('none', ['node', 'error'], 'a fetch session was refused ("Node N was unable to process the fetch request with (sessionId=…, epoch=…): INVALID_FETCH_SESSION_EPOCH.")'),
  'isr.stale_zk_version': ev('none', TP, 'a leader\'s ISR update lost to a newer ZooKeeper write ("Cached zkVersion [V] not equal to that in zookeeper, skip updating ISR")'),
  'replica.message_too_large': ev('none', TP, 'a follower cannot fetch a batch larger than replica.fetch.max.bytes ("Replication is failing due to a message that is greater than replica.fetch.max.bytes …")'),
  'broker.listener_invalid': ev('none', ['reason', 'listeners', 'listener'], 'the broker refused its listeners at start-up ("Each listener must have a different name", "No security protocol defined for listener X")'),
  'sasl.jaas_missing': ev('none', ['context'], 'no JAAS login section for SASL ("Could not find a \'KafkaServer\' … entry in the JAAS configuration")'),
  'topic.replication_unsatisfiable': ev('none', ['required', 'alive', 'topic'], 'a topic needs more replicas than brokers are alive ("Number of alive brokers \'1\' does not meet the required replication factor \'3\' for the offsets topic", "replication factor: 3 larger than available brokers: 1")'),
  'partitions.offline_election_failed': ev('none', TP, 'the controller could not elect a leader for an offline partition ("failed to change state for partition t-p from OfflinePartition to OnlinePartition")'),
  'controller.shutdown_move_failed': ev('none', TP, 'a controlled shutdown could not move a partition\'s leadership ("No other replicas in ISR … besides shutting down brokers")'),
  'replica.fetch_failed': ev('none', ['leader'], 'a follower got no fetch response from its leader ("Error in fetch …", "Error in response for fetch request …")'),
  'replica.fetch_failed_leaders': ev('count', ['leaders'], 'one broker\'s fetchers got no response from two or more leaders within a minute (from its "Error in response for fetch request" lines); value = how many leaders, label leaders = "1, 2"'),
  'group.member_expired': ev('none', ['group', 'member'], 'the coordinator removed a member that stopped heartbeating ("… (reason: removing member m on heartbeat expiration)")'),
  'group.member_poll_timeout': { ...ev('none', ['group', 'member', 'client', 'library'], 'a consumer left its group because its poll loop stalled past max.poll.interval.ms: its own "consumer poll timeout has expired" (label client) or the coordinator\'s "Member … has left group g through explicit `LeaveGroup`; client reason: consumer poll timeout has expired." (label member)'), aboutClient: true },
  'replica.partition_failed': ev('none', TP, 'a follower stopped replicating one partition after an error ("Unexpected error occurred while processing data for partition t-p at offset N")'),
  'record.corrupt': ev('none', TP, 'a record batch fails its checksum ("Record is corrupt (stored crc = N, computed crc = M)")'),
  'kraft.registration_failed': ev('none', ['reason'], 'a KRaft broker could not register with the controllers ("Unable to register broker N because the controller returned error E"); reason = timeout | authentication | API version | the error code | no response'),
  'kraft.controller_recorded': ev('none', ['node', 'channel'], 'a broker\'s channel to the KRaft controller (re)connected to a controller ("Recorded new controller, from now on will use node …"); channel = heartbeat | forwarding | alterPartition | …'),
  'kraft.controller_event_failed': ev('none', ['event', 'exception'], 'a QuorumController event threw ("handleCommit[baseOffset=N]: event failed with CorruptRecordException in N microseconds."); exception = the internal exception\'s class'),
  'zk.server_election_timeout': ev('duration', [], 'a ZooKeeper server\'s leader election round ended without a quorum ("Notification time out: N"); value = the next wait, doubled each round up to 60 s'),
  'log.signature': ev('none', ['id'], 'a line that names one known Kafka bug (ids in adapters/logs/failure-matchers.ts SIGNATURES; rules/known-issues.rules reads them)'),
  'setup.mistake': ev('none', ['id', 'detail', 'subject'], 'a line that names a well-known setup mistake (ids in adapters/logs/gotcha-matchers.ts GOTCHA_IDS; rules/gotchas.rules reads them): detail is what varies (a size, a mechanism, an error), subject what it concerns (a topic, a limit)'),
  // Broker and topic configuration (admin describeConfigs); dots in Kafka names become underscores
  'config.segment_ms': fact('duration', ['topic'], 'segment.ms / log.roll.ms of a topic or broker'),
  'config.segment_bytes': fact('bytes', ['topic'], 'segment.bytes / log.segment.bytes'),
  'config.retention_ms': fact('duration', ['topic'], 'retention.ms / log.retention.ms'),
  'config.min_insync_replicas': fact('count', ['topic'], 'min.insync.replicas'),
  'config.unclean_leader_election_enable': fact('count', ['topic'], 'unclean.leader.election.enable (1 = true)'),
  'config.zookeeper_session_timeout_ms': fact('duration', [], 'zookeeper.session.timeout.ms (describeConfigs, the KafkaConfig dump at start-up, the ZooKeeper client\'s "sessionTimeout=N")'),
  'config.broker_session_timeout_ms': fact('duration', [], 'broker.session.timeout.ms of the KRaft controllers (describeConfigs, the KafkaConfig dump at start-up)'),
  'zk.negotiated_session_timeout': fact('duration', [], 'the session timeout ZooKeeper granted ("Session establishment complete …, negotiated timeout = N"); the server may clamp the requested one'),
  'zk.session_timeout_limit': fact('duration', ['from'], 'derived: the ZooKeeper session timeout that applies (negotiated, else configured, else the version\'s default: 6000 before 2.5, 18000 from 2.5; 6000 when nothing says); label from = negotiated | config | version-default | default'),
  'config.replica_lag_time_max_ms': fact('duration', [], 'replica.lag.time.max.ms: how long a follower may go without catching up before the leader drops it from the ISR (describeConfigs, the KafkaConfig dump at start-up)'),
  'replica.lag_limit': fact('duration', ['from'], 'derived: the replica.lag.time.max.ms that applies (configured, else the version\'s default: 10000 before 2.5, 30000 from 2.5; 10000 when nothing says); label from = config | version-default | default'),
  'kraft.session_timeout_limit': fact('duration', ['from'], 'derived: the KRaft broker session timeout that applies (broker.session.timeout.ms, else its default 9000); label from = config | default'),
  'config.log_message_format_version': fact('version', ['topic'], 'log.message.format.version / message.format.version'),
  'config.num_io_threads': fact('count', [], 'num.io.threads'),
  'config.inter_broker_protocol_version': fact('version', [], 'inter.broker.protocol.version: the protocol a ZooKeeper-mode broker speaks, at most its software version (admin API has no software version)'),
  'config.heap_max': fact('bytes', [], 'the JVM -Xmx the broker runs with'),
  // ERROR/FATAL records by the part of Kafka or ZooKeeper that logged them (adapters/logs/component-matchers.ts);
  // component = the logging class, with the partition, group or dir the line names
  'controller.error': ev('none', ['component', 'topic', 'partition'], 'the controller logged an error: ZooKeeper-mode KafkaController, its state machines and state-change log, or the KRaft QuorumController'),
  'kraft.raft_error': ev('none', ['component'], 'the KRaft Raft layer logged an error (KafkaRaftClient, quorum state, snapshots, RaftManager)'),
  'kraft.metadata_error': ev('none', ['component'], 'loading or publishing the KRaft cluster metadata image failed (org.apache.kafka.image, org.apache.kafka.metadata, kafka.server.metadata)'),
  'log.storage_error': ev('none', ['component', 'topic', 'partition', 'dir'], 'the log layer logged an error (Log/UnifiedLog, LogManager, LogCleaner, segments and indexes, remote storage)'),
  'partition.error': ev('none', ['component', 'topic', 'partition'], 'partition or replica handling on the broker logged an error (ReplicaManager, Partition, delayed produce/fetch, AlterPartition)'),
  'group.coordinator_error': ev('none', ['component', 'group'], 'the consumer group coordinator logged an error (GroupCoordinator, GroupMetadataManager, the 4.x group and share coordinators)'),
  'txn.coordinator_error': ev('none', ['component'], 'the transaction coordinator logged an error (TransactionCoordinator, TransactionStateManager, marker channel)'),
  'zk.client_error': ev('none', ['component'], 'the broker\'s ZooKeeper client logged an error (ZooKeeperClient, KafkaZkClient, ClientCnxn, ZooKeeper SASL login)'),
  'zk.server_error': ev('none', ['component'], 'a ZooKeeper server logged an error (quorum peers, request processors, snapshots and transaction log)'),
  'network.error': ev('none', ['component'], 'the network layer logged an error (SocketServer, Acceptor, Processor, Selector, SSL/SASL channels)'),
  'security.error': ev('none', ['component'], 'security code logged an error (SASL/Kerberos login, SCRAM, OAuth, SSL factory, authorizer)'),
  'broker.lifecycle_error': ev('none', ['component'], 'broker or controller start-up or shut-down failed (KafkaServer, BrokerServer, ControllerServer, KafkaRaftServer, BrokerLifecycleManager)'),
  'request.error': ev('none', ['component', 'topic', 'partition'], 'request handling logged an error (KafkaApis, request handlers, purgatory, quotas, dynamic config, metadata cache)'),
  'client.error': ev('none', ['component', 'topic', 'partition', 'group'], 'a Kafka client (producer, consumer, admin, NetworkClient) logged an error'),
} as const satisfies Record<string, CatalogueEntry>

export type SignalName = keyof typeof CATALOGUE

/** Looks a name up; undefined for names not in the catalogue. */
export function lookupSignal(name: string): CatalogueEntry | undefined {
  // Own names only: a sender's `constructor` or `__proto__` is found on every object's prototype.
  return Object.hasOwn(CATALOGUE, name) ? (CATALOGUE as Record<string, CatalogueEntry>)[name] : undefined
}

/** All catalogue names, for did-you-mean hints and docs. */
export const SIGNAL_NAMES: readonly string[] = Object.keys(CATALOGUE)

/** Kafka config key → catalogue name: "segment.ms" → "config.segment_ms". */
export function configSignalName(kafkaKey: string): string {
  return `config.${kafkaKey.replace(/\./g, '_')}`
}
