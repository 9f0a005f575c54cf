import { TEMPLATE_OVERRIDES } from './failure-overrides.js'

/**
 * Which part of Kafka (or ZooKeeper, or a client) a failure line is about, so that a line no rule turns
 * into a cause can still be explained at the level of its class: what that part failing means, what to
 * check next. Every WARN/ERROR/FATAL template of the wording tables gets a class or an explicit `benign`
 * mark with its reason (test/engine/failure-class.test.ts fails on any that gets neither); the same
 * classifier reads a live record's logger, exception and wording, so the baseline cause and the tables
 * agree. Classification is by mechanism, strongest first: a per-template override, a benign wording,
 * the exception the record carries, the logging component, the specific signal the parser gave, and
 * last the wording's own nouns (client libraries whose "logger" is a facility code).
 * Pure: no file system, so the engine can use it.
 */

/** The failure classes; docs/failure-classes.md says what each covers. */
export type FailureClass =
  | 'storage'
  | 'log_dir'
  | 'memory'
  | 'threads'
  | 'network'
  | 'security'
  | 'coordination'
  | 'replication'
  | 'controller'
  | 'group'
  | 'configuration'
  | 'client_request'
  | 'lifecycle'
  | 'runtime_task'
  | 'bug'

/** What a class means to an on-call engineer: a name, what that part failing means, what to check next. */
export type FailureClassInfo = { title: string; meaning: string; next: string }

/** The class table: one row per class, read by the baseline cause, the docs and the test. */
export const FAILURE_CLASSES: Record<FailureClass, FailureClassInfo> = {
  storage: {
    title: 'storage',
    meaning: 'the broker could not read or write its log segments, indexes or checkpoint files; writes to the partitions involved fail until the disk problem is gone',
    next: 'check free space and inodes (df -h, df -i), the kernel log for I/O errors (dmesg), the mount being read-only, and the volume behind the log dir',
  },
  log_dir: {
    title: 'log dir',
    meaning: 'a log directory was taken offline after an I/O error: every partition in it stops being served by this broker, and the broker exits when no log dir is left',
    next: 'find the first I/O error before the dir went offline (disk full, permissions, a removed or remounted volume), fix it, then restart the broker',
  },
  memory: {
    title: 'memory and OS limits',
    meaning: 'the JVM ran out of heap, direct or native memory, memory maps or file descriptors; allocations fail at random places and the broker usually stops working or exits',
    next: 'compare heap (-Xmx), MaxDirectMemorySize, vm.max_map_count and the nofile limit with what the broker uses; check the container memory limit and GC logs for back-to-back full GCs',
  },
  threads: {
    title: 'threads',
    meaning: 'a broker thread died or could not be started, so the work it does (cleaning, fetching, scheduling, request handling) silently stops',
    next: 'read the exception that killed the thread; check the process thread limit (ulimit -u, pids.max) and restart the broker if a vital thread is gone',
  },
  network: {
    title: 'network and listeners',
    meaning: 'connections between clients, brokers and controllers failed, timed out or were refused, or a listener could not accept connections',
    next: 'check that the peer is up and reachable on the advertised host and port (DNS, firewalls, security groups), listener and advertised.listeners settings, and the socket and connection limits',
  },
  security: {
    title: 'security',
    meaning: 'authentication (SASL, TLS, Kerberos, OAuth) or authorization failed: the client or broker on the other side is rejected',
    next: 'check credentials and JAAS config, certificate validity, trust stores and host names (SAN), the Kerberos KDC and keytabs, and the ACLs of the principal named in the line',
  },
  coordination: {
    title: 'ZooKeeper coordination',
    meaning: 'the ZooKeeper ensemble or the broker\'s session with it failed; a broker without a session loses its registration and, if it was controller, its role',
    next: 'check the ZooKeeper servers (quorum, latency, fsync times, disk), the network between brokers and ZooKeeper, and long GC pauses on either side',
  },
  replication: {
    title: 'replication',
    meaning: 'followers could not fetch from or keep up with a leader, or a partition\'s replicas disagree; the ISR shrinks and writes that need min.insync.replicas fail',
    next: 'check the leader broker of the partitions named, follower lag and fetcher threads, inter-broker network, and that enough replicas are in sync',
  },
  controller: {
    title: 'controller and metadata quorum',
    meaning: 'the controller (ZooKeeper mode) or the KRaft quorum and metadata log failed to elect, register brokers or apply metadata; leadership and topic changes stall',
    next: 'check which node is the active controller, the quorum voters\' health and connectivity, controller logs around the same time, and brokers\' registration and heartbeats',
  },
  group: {
    title: 'group and transaction coordination',
    meaning: 'a group or transaction coordinator failed to load, write or serve __consumer_offsets or __transaction_state; consumers cannot join or commit and transactions stall',
    next: 'check the health and ISR of the internal topic partitions the coordinator leads, rebalance churn in the groups named, and the members\' poll and session timeouts',
  },
  configuration: {
    title: 'configuration',
    meaning: 'a setting, a file the broker reads at start (meta.properties, JAAS, key stores) or the classpath is wrong or inconsistent; the component refuses to start or to apply it',
    next: 'read the setting or file the line names, compare it with the documented values for this Kafka version, and check meta.properties (cluster.id, node.id) against the cluster',
  },
  client_request: {
    title: 'client requests',
    meaning: 'requests from producers, consumers or admin clients failed or were rejected (timeouts, wrong leaders, too-large or out-of-order records, unknown topics); usually a symptom of a broker-side problem or of a client setting',
    next: 'look at what the brokers leading the partitions named were doing at that time, then at the client\'s settings (timeouts, max.request.size, acks, idempotence)',
  },
  lifecycle: {
    title: 'start-up and shutdown',
    meaning: 'the broker or controller failed while starting or stopping; the process is not serving and may exit or restart in a loop',
    next: 'read the exception that follows the line (it usually names a setting, a port, a directory or a ZooKeeper/quorum problem) and the last lines before the exit',
  },
  runtime_task: {
    title: 'Connect and Streams tasks',
    meaning: 'a Kafka Connect connector or task, or a Kafka Streams thread, task or state store, failed: a failed Connect task stays failed until restarted, and a Streams client whose threads die goes to ERROR and stops processing',
    next: 'read the exception that follows the line (the external system, a converter or deserialiser, a producer send, a state directory), then the brokers\' logs at that time for what the task\'s clients saw; restart the task or instance once it is fixed',
  },
  bug: {
    title: 'software defect',
    meaning: 'the code hit a state it did not expect (an unexpected exception or an "should not happen" check); a known Kafka bug is likely',
    next: 'note the Kafka version and the exception, search the Kafka JIRA for it, and check whether an upgrade fixes it; a restart often clears the state',
  },
}

/** Every class, in the order the docs list them. */
export const FAILURE_CLASS_IDS = Object.keys(FAILURE_CLASSES) as FailureClass[]

/** How a classification was reached, so the coverage report can say how much is mechanism and how much override. */
export type ClassifiedBy = 'override' | 'benign wording' | 'exception' | 'component' | 'signal' | 'wording'

/** A template or record's classification: a failure class, or benign with the reason why. */
export type Classification =
  | { failureClass: FailureClass; by: ClassifiedBy; benign?: undefined }
  | { benign: string; by: ClassifiedBy; failureClass?: undefined }

/** What the classifier reads: a wording-table row, or a live record's labels and text. */
export type ClassifyInput = {
  /** Wording template id (or a mined `m-…` id), for the overrides. */
  id?: string
  level?: string
  logger?: string
  /** The template, or the record's message (its first line; more lines may follow). */
  message: string
  /** Class names of the record's exception and root cause, with their messages when known. */
  exception?: string
  rootCause?: string
  /** Specific signals the parser gave the line (the wording table's signal column). */
  signals?: readonly string[]
}

/** A benign wording: WARN/ERROR lines that are routine on a healthy cluster, with the reason. */
type BenignRule = { re: RegExp; reason: string }

/**
 * Wordings that say nothing has failed. Checked before any class, so a deprecation notice from the
 * controller is not a controller failure.
 */
const BENIGN: readonly BenignRule[] = [
  { re: /\bdeprecated\b|will be removed in|no longer (?:supported|used|needed)/i, reason: 'a deprecation notice: the setting or API still works in this release' },
  { re: /isn't a known config|is not a known config|was supplied but isn't|unknown configuration key|Ignoring unknown (?:config|property)/i, reason: 'an unused configuration key: it is ignored, nothing fails' },
  { re: /^(?:Sending empty assignment|Setting empty assignments)/, reason: 'a member with nothing to consume this generation: routine when members outnumber partitions' },
  { re: /with buffer larger \(\{\} bytes\) than configured/, reason: 'the coordinator grew its load buffer for one large batch; the load succeeds' },
  { re: /likely client has closed socket|Unable to read additional data from client|Connection reset by peer.*client|client has closed/i, reason: 'a client closed its ZooKeeper connection; routine whenever a client restarts' },
  { re: /^Attempting to send response via channel for which there is no open connection/, reason: 'the client disconnected before its response was sent; routine when clients time out or restart' },
  { re: /^Upgrading metadata\.version|^Setting metadata\.version/, reason: 'a metadata.version upgrade being applied, as an operator asked' },
  { re: /(?:already|is) (?:been )?(?:shutting down|shut down|closed)\b|^Cannot shutdown since/i, reason: 'a second shutdown request while already stopping; nothing more fails' },
  { re: /^Interrupted while (?:waiting|reading|sleeping|joining)|^Interrupted during (?:shutdown|close)/i, reason: 'a thread interrupted because its component is stopping' },
  { re: /^Loaded stray log|marked (?:as )?stray and renamed/, reason: 'a replica no longer assigned to this broker is set aside for deletion; housekeeping after a reassignment or topic deletion' },
  { re: /^Failed to close \{\}(?: with type \{\})?$|^Error closing broker/, reason: 'a component failed to close cleanly while being closed; what it served is already stopping' },
  { re: /^Skipping .* since the respective topics are being deleted|^Skipping preferred replica election/, reason: 'work skipped for topics being deleted; housekeeping' },
  { re: /will be dropped if server is in r-o mode/, reason: 'a client of an older protocol version connected; it is dropped only while the server is read-only' },
]

/**
 * Words of a line that reports a failure. A client that logs everything at one level (sarama's `LOG`)
 * writes progress too; a line without any of these is progress, not a failure.
 */
const FAILURE_WORDS = /fail|error|\berr\b|unable|cannot|can't|could not|couldn't|timeout|timed out|refused|dead|retry|retrying|invalid|abort|panic|lost|drop|expired|reject|denied|\bnot\b|\bno\b|unknown|unexpected|mismatch|exceed|too (?:large|many|big)|missing|broken|corrupt|crash|fatal|warning|giving up|disconnect|closed by|shutting down|reset/i

/** Why a one-level client's line without failure words is benign. */
const PROGRESS_REASON = 'a progress message of a client that logs everything at one level; it names no failure'

/**
 * Exceptions (class names or the messages they carry) that tell the class whatever logged them: an
 * errno text, a storage or configuration exception, an OutOfMemoryError. Checked on the root cause
 * first, then the record's own exception, then the wording, before the component.
 */
const TELLING_EXCEPTIONS: readonly [RegExp, FailureClass][] = [
  [/[Tt]his is a bug|\bBUG\b|should (?:never|not) (?:happen|be possible)|indicates a bug|unreachable code/, 'bug'],
  [/unable to create (?:new )?native thread|RejectedExecutionException|pthread_create/i, 'threads'],
  [/OutOfMemoryError|Map failed|Cannot allocate memory|insufficient memory|Direct buffer memory|Too many open files|打开的文件过多|Zu viele offene Dateien|Trop de fichiers ouverts/i, 'memory'],
  [/Record is corrupt|CorruptRecordException|No space left on device|Disk quota exceeded|Read-only file system|Input\/output error|SyncFailedException|CorruptIndexException|InvalidOffsetException|CorruptSnapshotException|java\.io\.IOException: (?:Stale file handle|Structure needs cleaning)/i, 'storage'],
  [/KafkaStorageException|LogDirNotFoundException|offline log dir|log dirs? (?:\S+ )?(?:in \S+ )?(?:have |has )?failed/i, 'log_dir'],
  [/authentication (?:error|failed|failure)|failed authentication|[Hh]andshake (?:failed|failure)|Unsuccessful handshake|SaslAuthenticationException|SaslException|SSLHandshakeException|SSLException|SSLPeerUnverified|CertificateException|CertPathValidatorException|PKIX path|AuthenticationException|AuthorizationException|LoginException|GSSException|KrbException|InvalidTokenException|DelegationTokenException|AccessControlException/, 'security'],
  [/\bConfigException|IllegalArgumentException: requirement failed|Missing required configuration|InvalidConfigurationException|InconsistentClusterIdException|InconsistentBrokerIdException|InconsistentNodeIdException|InconsistentBrokerMetadataException|NoClassDefFoundError|ClassNotFoundException|NoSuchMethodError|UnsupportedClassVersionError|BindException|Address already in use|UnknownHostException/, 'configuration'],
  [/KeeperException|ZooKeeperClientTimeoutException|ZooKeeperClientExpiredException|ZooKeeperClientAuthFailedException/, 'coordination'],
  [/NotControllerException|StaleBrokerEpochException|ControllerMovedException|FencedMemberEpochException|MetadataVersionException|NotLeaderForQuorum|UnknownLeaderEpoch.*Raft/, 'controller'],
  [/NotEnoughReplicas(?:AfterAppend)?Exception|ReplicaNotAvailableException|FencedLeaderEpochException|OffsetOutOfRangeException|InconsistentTopicIdException/, 'replication'],
  [/required replication factor .* for the (?:offsets|transactions?) topic|CoordinatorNotAvailableException|NotCoordinatorException|CoordinatorLoadInProgressException|RebalanceInProgressException|UnknownMemberIdException|IllegalGenerationException|CommitFailedException|FencedInstanceIdException|ProducerFencedException|InvalidProducerEpochException|InvalidTxnStateException|TransactionAbortedException|GroupMaxSizeReachedException/, 'group'],
  [/OutOfOrderSequenceException|DuplicateSequenceException|RecordTooLargeException|RecordBatchTooLargeException|MessageSizeTooLargeException|InvalidRecordException|InvalidRequestException|UnsupportedVersionException|InvalidTopicException|TopicExistsException|PolicyViolationException|ThrottlingQuotaExceededException|InvalidRequiredAcksException|SerializationException|UnknownProducerIdException/, 'client_request'],
  [/NullPointerException|ClassCastException|IndexOutOfBoundsException|ConcurrentModificationException|NoSuchElementException|AssertionError|StackOverflowError|UnknownServerException|NumberFormatException/, 'bug'],
]

/**
 * Exceptions whose class depends on who logs them: a fetcher that is told "not leader" is replicating, a
 * producer is sending; a start-up that hits an IllegalStateException is starting. Used when the component says nothing.
 */
const CONTEXTUAL_EXCEPTIONS: readonly [RegExp, FailureClass][] = [
  [/NotLeaderOrFollowerException|NotLeaderForPartitionException|UnknownTopicOrPartitionException/, 'client_request'],
  [/IllegalStateException|UnsupportedOperationException/, 'bug'],
]

/** Exceptions that say only "a network call failed": used when the component says nothing. */
const NETWORK_EXCEPTIONS = /ConnectException|SocketTimeoutException|SocketException|ClosedChannelException|NoRouteToHostException|DisconnectException|NetworkException|Connection refused|Connection reset|Broken pipe|EOFException|ClosedByInterruptException/

/** The component of a logger: the class owning its package or name, first match wins (most specific first). */
const COMPONENTS: readonly [RegExp, FailureClass][] = [
  // The log layer's failure channel and the replica manager's log-dir handling: a dir going offline.
  [/LogDirFailureChannel|LogDirFailureHandler|ReplicaAlterLogDirs/, 'log_dir'],
  // Start-up and shutdown of the processes.
  [/^kafka\.Kafka\$?$|KafkaServerStartable|\.KafkaServer$|\.BrokerServer$|\.ControllerServer$|\.SharedServer$|\.KafkaRaftServer|kafka\.server\.Server$|ZooKeeperServerMain|QuorumPeerMain|kafka\.server\.KafkaBroker|ProcessTerminatingFaultHandler|\.Exit\$?$|server\.ServerCnxnFactory$|\.util\.ServiceLoader|JettyAdminServer|AdminServerFactory/, 'lifecycle'],
  // Threads, schedulers and event queues.
  [/ShutdownableThread|KafkaScheduler|KafkaThread|ThreadUtils|\.KafkaEventQueue|EventQueue\$|ZooKeeperCriticalThread|ZooKeeperThread|WorkerService|DelayedActionQueue|ActionQueue|MultiThreadedEventProcessor|CoordinatorExecutor|RemoteStorageThreadPool|RLMScheduledThreadPool|SystemTimer|\.Shell$/, 'threads'],
  // Security: authenticators, logins, authorizers, TLS, tokens.
  [/\.security\.|Security(?:Utils|Manager)|\.authorizer\.|Authorizer|SaslChannelBuilder|SslTransportLayer|SslFactory|\.Login$|Sasl|X509|KeyAuthenticationProvider|AuthenticationProvider|AuthenticationHelper|ZKTrustManager|SSLContext|DelegationToken|\.auth\.|JaasContext|JaasUtils|SecretUtils|CredentialProvider|ScramCredential|QuorumAuth|FileChangeWatcher/, 'security'],
  // KRaft quorum, the controller and the metadata log/image.
  [/^org\.apache\.kafka\.(?:raft|controller|metadata|image|metalog|snapshot|timeline)\.|^kafka\.raft\.|^kafka\.controller\.|kafka\.server\.metadata\.|ControllerApis|ControllerRegistrationManager|BrokerLifecycleManager|BrokerToControllerChannelManager|BrokerToControllerRequestThread|NodeToControllerRequestThread|NodeToControllerChannelManager|ForwardingManager|FinalizedFeature|BrokerFeatures|FeatureControl|kafka\.server\.MetadataCache|ZkMetadataCache|ZookeeperLeaderElector|KafkaHealthcheck|^state\.change\.logger$|^kafka\.zk\.migration|ZkMigrationClient|AssignmentsManager|kafka\.server\.KRaft|ClientQuotaMetadataManager|DynamicConfigPublisher|ControllerServer/, 'controller'],
  // ZooKeeper: the client inside the broker, and the ZooKeeper servers, their quorum, disks and sockets
  // (for Kafka a failing ZooKeeper is one thing, whatever part of it failed).
  [/^org\.apache\.zookeeper\.|^kafka\.zookeeper\.|^kafka\.zk\.|ZkUtils|ZKCheckedEphemeral|ZkNodeChangeNotificationListener|ZkClient|^kafka\.consumer\.ZookeeperTopicEventWatcher/, 'coordination'],
  // Group, share-group and transaction coordinators (broker side) and the consumer's group membership (client side).
  [/^kafka\.coordinator\.|^org\.apache\.kafka\.coordinator\.|^org\.apache\.kafka\.server\.share\.persister|kafka\.server\.share\.|ShareCoordinator|AddPartitionsToTxn|TransactionMarker|TxnMarker|^org\.apache\.kafka\.server\.transaction|clients\.consumer\.internals\.(?:Abstract|Consumer|Streams|Share)?(?:Coordinator|Membership|Heartbeat)|ConsumerCoordinator|AbstractCoordinator|MembershipManager|HeartbeatRequestManager|CommitRequestManager|OffsetCommit|Assignor|StickyAssignor|RangeAssignor|ConsumerRebalanceListener|RebalanceListener|TransactionManager|ZookeeperConsumerConnector/, 'group'],
  // Replication: partitions, fetchers, ISR and leader epochs.
  [/AbstractFetcher|ReplicaFetcher|FetcherThread|FetcherManager|LeaderEndPoint|kafka\.cluster\.(?:Partition|Replica)|AlterIsrManager|AlterPartitionManager|\.epoch\.|LeaderEpoch|ReplicaManager$|kafka\.server\.DelayedFetch|DelayedProduce|ReplicationQuotaManager|ReplicaStateMachine|PartitionStateMachine|IsrChange/, 'replication'],
  // Storage: the log layer, segments, indexes, cleaner, checkpoints, tiered storage; ZooKeeper's own disk.
  [/^kafka\.log\.|^org\.apache\.kafka\.storage\.|^org\.apache\.kafka\.server\.log\.|kafka\.server\.checkpoints|OffsetCheckpoint|CheckpointFile|LogManager|LogCleaner|LogSegment|LogLoader|UnifiedLog|LocalLog|RemoteLog|RemoteIndex|TierStorage|LinuxIoMetricsCollector/, 'storage'],
  // Configuration: config parsing and dynamic config.
  [/BrokerMetadataCheckpoint|MetaPropertiesEnsemble|Config(?:Def|Utils|Helper|Provider|Synonym|Handler|AdminManager|Transformer|Command|Resource)?$|\.config\.|KafkaConfig|DynamicBrokerConfig|DynamicConfig|VerifiableProperties|ConfigRepository|ZKConfig|QuorumPeerConfig|AppInfoParser|Mx4jLoader|Log4jController|RuntimeLoggerManager|LoggingController|MBeanRegistry|ManagedUtil|MetricsProviderBootstrap/, 'configuration'],
  // Network: the socket server, selectors and connection management on either side.
  [/^kafka\.network\.|\.common\.network\.|SocketServer|Acceptor|ConnectionQuotas|RequestChannel|NetworkClient|InterBrokerSendThread|ControllerChannelManager|RequestSendThread|ClientCnxn|ServerCnxn|NettyServerCnxn|NIOServerCnxn|UnifiedConnectionFactory|NettyUtils|ClusterConnectionStates|ChannelBuilders|EndpointReadyFutures|BlueThrottle|RequestThrottler|ConnectionBean|ControllableConnection|\.controller\.Command(?:Client|Listener)/, 'network'],
  // Requests served by the broker, and the clients' own requests.
  [/KafkaApis|KafkaRequestHandler|RequestHandlerHelper|AdminManager|ZkAdminManager|ConfigAdminManager|AutoTopicCreation|QuotaFactory|ClientQuotaManager|ClientMetricsManager|DelayedShareFetch|^org\.apache\.kafka\.clients\.|^kafka\.producer\.|^kafka\.consumer\.|^kafka\.client\.|\.telemetry\.|ClientTelemetry|\.serialization\.|\.record\.|\.protocol\.|^org\.apache\.kafka\.common\.requests\.|^org\.apache\.kafka\.common\.metrics|^kafka\.metrics\.|^org\.apache\.kafka\.server\.metrics|^kafka\.server\.(?:FetchSession|Fetch|Produce|ListOffsets)|^kafka\.tools\./, 'client_request'],
  // Generic utilities: what they failed at is in the wording, so they fall through to the wording below.
]

/**
 * Kafka Connect (connect-runtime, connect-mirror) and Kafka Streams: their loggers are read before the
 * broker's components (a Streams `OffsetCheckpoint` is the application's state, not a broker's log).
 * What is not named here is the connector, task, thread or store itself: `runtime_task`.
 */
const RUNTIME_COMPONENTS: readonly [RegExp, FailureClass][] = [
  [/connect\.runtime\.isolation\.|Config(?:Transformer|Utils)?$|\.Loggers$|LoggingResource$|AssignorConfiguration$/, 'configuration'],
  [/connect\.runtime\.rest\./, 'network'],
  [/connect\.runtime\.distributed\.(?:DistributedHerder|WorkerCoordinator|WorkerGroupMember|\w*Assignor)|streams\.processor\.internals\.(?:StreamsPartitionAssignor|StreamsRebalanceListener|assignment\.)|streams\.processor\.assignment\./, 'group'],
  [/connect\.storage\.|connect\.util\.(?:KafkaBasedLog|TopicAdmin)|connect\.mirror\.(?:CheckpointStore|OffsetSyncWriter|MirrorUtils)|streams\.processor\.internals\.(?:InternalTopicManager|RepartitionTopics|RecordCollectorImpl|StreamsProducer|ClientUtils)$/, 'client_request'],
  [/connect\.mirror\.Scheduler$|connect\.runtime\.standalone\.HealthCheckThread$|connect\.util\.Stage$/, 'threads'],
  [/connect\.cli\.|connect\.mirror\.MirrorMaker$|connect\.runtime\.Connect$/, 'lifecycle'],
  [/^org\.apache\.kafka\.(?:connect|streams)\./, 'runtime_task'],
]

/**
 * Client libraries' components: librdkafka facility codes (`SASL`, `TXNERR`), sarama's `area/part`
 * tags, kafkajs namespaces and kafka-python modules. Their catch-all facilities (`ERROR`, `FAIL`,
 * `sarama`, `kgo`, `kafkajs`) are left to the wording.
 */
const CLIENT_COMPONENTS: readonly [RegExp, FailureClass][] = [
  [/^(?:JWT|SASL\w*|SSL\w*|CERTSTORE|OIDC|OAUTHBEARER|SCRAM|GSSAPI|KERBEROS)$|^kafka\.(?:net\.)?sasl\b|^kafka\.oauth/i, 'security'],
  [/^(?:TXN\w*|GETPID|IDEMP\w*|ADDPARTS|ADDOFFSETS|STICKY|REBALANCE|HEARTBEAT|ASSIGN\w*|COMMIT\w*|MAXPOLL|SESSTMOUT|CGRP|JOINGROUP|SYNCGROUP|LEAVEGROUP|SHAREACK|SHARECONSUMER|OFFSET)$|^(?:client\/coordinator|consumergroup\b|txnmgr\/|producer\/txn)|^(?:ConsumerGroup|Consumer|Runner)$|^kafka\.coordinator\b|^kafka\.consumer\.group$|^kafka\.producer\.transaction_manager$/, 'group'],
  [/^(?:CONFWARN|TOPICCONF|CONF|CONFIG|NAGLE|RCVBUF|SNDBUF|INIT|CLUSTERID|PLUGIN|INTERCEPTOR)$/, 'configuration'],
  [/^(?:WAKEUPFD|BGQUEUE|BACKGROUND|THREAD|PARTENQ)$/, 'threads'],
  [/^(?:TERMINATE|DESTROY)$|^producer\/shutdown$/, 'lifecycle'],
  [/^(?:BROKER|FAIL|WSA\w+|CONNECT|SOCKET|RESOLVE|ADDRESS|APIVERSION|PROTOERR|BROKERFAIL)$|^(?:client\/(?:brokers?|seedbrokers))$|^(?:Connection|BrokerPool)$|^kafka\.(?:conn|net\b|socks5_wrapper|client_async|client)\b/, 'network'],
  [/^(?:FETCH|PRODUCE|METADATA\w*|TOPIC|ADMIN|DELETERECORDS|AUTOCREATE|PARTDEL|DRDROP|QUEUESIZE|REQTMOUT|GZIP|SNAPPY|LZ4\w*|ZSTD|TELEMETRY|PUSH|\w+ACLSRESPONSE|SHAREFETCH|LEADER|MSGSET|PARTCNT|PRODUCER|CONSUMER)$|^(?:client\/metadata|producer\/|consumer\/|admin\/)|^(?:Admin|Producer)$|^kafka\.(?:producer|consumer|admin|cluster|protocol|future|record|metrics|partitioner|serializer)\b/, 'client_request'],
]

/** Specific signals by prefix (the parser's exact-wording and component rows), longest prefix first. */
const SIGNAL_CLASSES: readonly [string, FailureClass][] = [
  ['log.dir', 'log_dir'],
  ['log.', 'storage'],
  ['zk.', 'coordination'],
  ['kraft.', 'controller'],
  ['controller.', 'controller'],
  ['broker.lifecycle', 'lifecycle'],
  ['broker.', 'controller'],
  ['replica.', 'replication'],
  ['partition.', 'replication'],
  ['isr.', 'replication'],
  ['group.', 'group'],
  ['txn.', 'group'],
  ['security.', 'security'],
  ['sasl.', 'security'],
  ['tls.', 'security'],
  ['network.', 'network'],
  ['client.connect', 'network'],
  ['client.auth', 'security'],
  ['client.', 'client_request'],
  ['request.', 'client_request'],
  ['thread.', 'threads'],
  ['jvm.', 'memory'],
  ['heap.', 'memory'],
  ['fd.', 'memory'],
]

/** Wording nouns, for lines whose logger says nothing (client facilities, utility classes). Most specific first. */
const WORDING: readonly [RegExp, FailureClass][] = [
  [/JoinGroup|SyncGroup|LeaveGroup|poll interval|\bbalance (?:failed|strategy)|\bbalancer?\b|cycle of length/i, 'group'],
  [/\bbrokers? (?:are|is) down|Receive failed|Send failed|has no address|hostname|Decommissioning|find broker|ApiVersions?Request|ApiVersionsResponse|closing broker|\bproxy\b/i, 'network'],
  [/\bSASL\b|\bSSL\b|\bTLS\b|authenticat|authoriz|certificate|credential|kerberos|\bJAAS\b|principal|\bACL\b|OAUTH|token|password|keystore|truststore/i, 'security'],
  [/out of memory|memory|\bheap\b|allocat|buffer pool|file descriptor|open files/i, 'memory'],
  [/log ?dir|offline dir/i, 'log_dir'],
  [/\bdisk\b|\bfsync|\bflush|segment|\bindex\b|checkpoint|directory|\bfile\b|\bfiles\b|\bpath\b|snapshot|write-ahead|\bwal\b/i, 'storage'],
  [/\bthread\b|threads\b|executor|scheduler|uncaught/i, 'threads'],
  [/zookeeper|\bzk\b|znode|session (?:expired|timeout)/i, 'coordination'],
  [/\bcontroller\b|quorum|\braft\b|\bvoter\b|metadata log|metadata image/i, 'controller'],
  [/\bISR\b|in-sync|replica|follower|fetcher|leader/i, 'replication'],
  [/consumer group|\bgroup\b|rebalanc|\bmember\b|heartbeat|coordinator|offset commit|commit(?:ting)? offsets|assignment|assignor|transaction/i, 'group'],
  [/\bconfig|setting|propert(?:y|ies)\b|\bplugin|classpath|\bclass\b/i, 'configuration'],
  [/connect|socket|\bbroker transport|disconnect|\bresolve|\bDNS\b|\bhost\b|\bport\b|listener|network|unreachable|\bnode\b.*down|all brokers are down/i, 'network'],
  [/produc|consum|fetch|\brequest|\bresponse\b|\btopic|partition|\boffset|\brecord|\bmessage|\bbatch|metadata|timed out|timeout|\bqueue\b|\backs?\b|throttl|quota|serializ|compress|\bmetric|telemetry|callback|interceptor/i, 'client_request'],
  [/unexpected|should not happen|should never happen|illegal state|\bbug\b|assert/i, 'bug'],
  [/start(?:ing|ed|up)?\b|shut(?:ting)? ?down|\bexit|\bhalt|terminat/i, 'lifecycle'],
]

function fromList<T>(list: readonly [RegExp, T][], text: string | undefined): T | undefined {
  if (!text) return undefined
  for (const [re, v] of list) if (re.test(text)) return v
  return undefined
}

/**
 * The class of a template or record, or its benign mark; undefined when no mechanism knows it (a table
 * row the test then reports, to be given an override).
 */
export function classifyFailure(input: ClassifyInput): Classification | undefined {
  const o = input.id !== undefined ? TEMPLATE_OVERRIDES[input.id] : undefined
  if (o) return 'benign' in o ? { benign: o.benign, by: 'override' } : { failureClass: o.failureClass, by: 'override' }
  const message = input.message.split('\n')[0]
  for (const b of BENIGN) if (b.re.test(message)) return { benign: b.reason, by: 'benign wording' }
  if (input.level === 'LOG' && !FAILURE_WORDS.test(message)) return { benign: PROGRESS_REASON, by: 'benign wording' }
  const telling = fromList(TELLING_EXCEPTIONS, input.rootCause) ?? fromList(TELLING_EXCEPTIONS, input.exception) ?? fromList(TELLING_EXCEPTIONS, message)
  if (telling) return { failureClass: telling, by: 'exception' }
  const component = fromList(RUNTIME_COMPONENTS, input.logger) ?? fromList(COMPONENTS, input.logger) ?? fromList(CLIENT_COMPONENTS, input.logger)
  // A start-up that fails on an argument check failed on a setting (a listener, a JAAS entry, a path).
  if (component === 'lifecycle' && /IllegalArgumentException/.test(`${input.rootCause ?? ''} ${input.exception ?? ''}`)) return { failureClass: 'configuration', by: 'exception' }
  if (component) return { failureClass: component, by: 'component' }
  for (const s of input.signals ?? []) {
    const hit = SIGNAL_CLASSES.find(([p]) => s.startsWith(p))
    if (hit) return { failureClass: hit[1], by: 'signal' }
  }
  const exceptionText = `${input.rootCause ?? ''} ${input.exception ?? ''}`
  const contextual = fromList(CONTEXTUAL_EXCEPTIONS, exceptionText)
  if (contextual) return { failureClass: contextual, by: 'exception' }
  if (NETWORK_EXCEPTIONS.test(exceptionText)) return { failureClass: 'network', by: 'exception' }
  const worded = fromList(WORDING, message)
  if (worded) return { failureClass: worded, by: 'wording' }
  return undefined
}

/**
 * Exception types whose message is the cause itself: a record carrying one (as its exception or root
 * cause, with a message) explains itself. Found from the wording tables' exception names and the
 * errno texts; docs/failure-classes.md lists the shapes.
 */
const SELF_STATING_EXCEPTION =
  /(?:ConfigException|InvalidConfigurationException|InconsistentClusterIdException|InconsistentBrokerIdException|InconsistentNodeIdException|InconsistentTopicIdException|InconsistentBrokerMetadataException|KafkaStorageException|LogDirNotFoundException|IOException|FileSystemException|AccessDeniedException|NoSuchFileException|FileAlreadyExistsException|OutOfMemoryError|SaslAuthenticationException|SaslException|SSLHandshakeException|SSLException|AuthenticationException|AuthorizationException|LoginException|CertificateException|CertPathValidatorException|BindException|UnknownHostException|ConnectException|KeeperException\$\w+|IllegalArgumentException|InvalidRequestException|RecordTooLargeException|CorruptRecordException|InvalidRecordException|NotEnoughReplicasException|UnsupportedVersionException|PolicyViolationException|ClassNotFoundException|NoClassDefFoundError|UnsupportedClassVersionError)$/

/** Message wordings that state a reason: "… because …", "… is not valid", "No space left on device". */
const STATED_SHAPES: readonly RegExp[] = [
  /\bbecause\b(?! of (?:an? )?(?:exception|error)\b)\s*\S/i,
  /\bdue to(?::)?\s+(?!(?:an? |the )?(?:fatal |unexpected |unknown |following )?(?:exception|error|errors)\b[.:]?\s*(?:\{\}|$))\S/i,
  /\bis not (?:valid|allowed|supported|authorized|permitted)\b/i,
  /\bis invalid\b|\binvalid (?:value|configuration|config)\b|\bInvalid value\b/i,
  /\bmust (?:be|not|have|contain|match)\b/i,
  /\b(?:does not|doesn't|did not|didn't) match\b|\bmismatch(?:ed)?\b/i,
  /\bexceed(?:s|ed)?\b|\btoo (?:large|many|big|long)\b|\bnot enough\b|\binsufficient\b/i,
  /\bcertificate verify failed\b|\bhandshake failed: \S/i,
  /\b(?:larger|greater|bigger|more) than (?:the )?(?:available|allowed|max(?:imum)?)\b|\bdoes not meet\b|\bNo space left on device\b|\bMap failed\b|\bPermission denied\b|\bRead-only file system\b|\bDisk quota exceeded\b|\bToo many open files\b|\bAddress already in use\b|\bConnection refused\b/i,
  /\bhas expired\b|\bcertificate expired\b|\bis expired\b/i,
  /\bis (?:missing|required)\b|\bnot found\b|\bdoes not exist\b|\bno such\b|\bcould not find\b|\b(?:is|are) not (?:set|defined|configured)\b|\bno [\w.-]+(?: [\w.-]+)? (?:defined|configured)\b|\brequirement failed: \S/i,
]

/** Text after a throwable class name, when it carries a message ("java.io.IOException: No space…" → "No space…"). */
function throwableMessage(text: string | undefined): { type: string; message: string } | undefined {
  if (!text) return undefined
  const m = /^\s*(?:Caused by: )?([\w$.]+(?:Exception|Error))(?::\s*(.+))?$/.exec(text.trim())
  if (!m || !m[2]) return undefined
  const message = withoutFrames(m[2])
  return message ? { type: m[1], message } : undefined
}

/**
 * When a failure line explains itself, the words to quote: the root cause or exception of a
 * self-stating type with its message ("java.io.IOException: No space left on device"), else the line's
 * own message when it is worded as a reason. Undefined when the line only says that something failed.
 */
export function statedCause(input: { message: string; exception?: string; rootCause?: string; lines?: readonly string[] }): string | undefined {
  for (const candidate of [input.rootCause, ...(input.lines ?? []).filter((l) => /Exception|Error/.test(l))]) {
    const t = throwableMessage(candidate)
    if (t && statesItself(t)) return `${t.type}: ${t.message}`
  }
  const message = withoutFrames(input.message.split('\n')[0].trim())
  const t = throwableMessage(message)
  if (t && statesItself(t)) return `${t.type}: ${t.message}`
  if (STATED_SHAPES.some((re) => re.test(message))) return message
  return undefined
}

/** A pasted stack may have its frames on the same line as the message: the message ends where they start. */
function withoutFrames(text: string): string {
  return text.replace(/\s+at [\w$.<>]+\(.*$/, '').trim()
}

/**
 * A throwable states its cause when its type is one whose message is the reason (a ConfigException, an
 * InconsistentClusterIdException); any other type — the wide I/O and network ones (IOException,
 * ConnectException) included — when its message itself reads as a reason: "No space left on device"
 * does, "Connection to 3 failed" does not.
 */
function statesItself(t: { type: string; message: string }): boolean {
  const simple = t.type.split('.').pop() ?? t.type
  if (SELF_STATING_EXCEPTION.test(simple) && !WIDE_EXCEPTION.test(simple)) return true
  return STATED_SHAPES.some((re) => re.test(t.message))
}

/** Throwable types too wide to state a cause by their type alone. */
const WIDE_EXCEPTION = /^(?:IOException|ConnectException|FileSystemException|IllegalArgumentException)$/
