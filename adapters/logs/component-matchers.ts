import { CATALOGUE } from '../../signals/catalogue.js'
import type { Draft, LogRecord } from './matchers.js'

/**
 * Signals for whole families of ERROR/FATAL statements, chosen by the class that logs them rather
 * than by their wording: the wording catalogue (adapters/logs/wording/) lists hundreds of error
 * templates per Kafka release, and what a diagnosis first needs from one it has no row for is which
 * part of the broker failed: the controller, the Raft quorum, the log layer, a follower's fetcher, the
 * group coordinator. The parser asks here only when no row with exact wording (matchers.ts and the
 * tables it splices in) matched the record, so a line gives its precise signal or, failing that, the
 * component's, with the partition, group or dir the line names when it names one.
 */


/** One family: the logger prefixes it owns (as log4j prints them) and the signal it yields. */
type Family = {
  signal: string
  /** Logger names start with one of these; also the prefilter literals (the logger text is on the line). */
  loggers: readonly string[]
  /** Exact loggers (no package prefix), e.g. `state.change.logger`. */
  exact?: readonly string[]
}

/** "events-3" -> topic and partition (topics may contain dashes; the partition is last). */
function topicPartitionOf(message: string): { topic: string; partition: string } | undefined {
  const m = /\b(?:[Pp]artition|topic-partition|tp)[= ]\[?([A-Za-z0-9._-]+)-(\d+)\b|\bpartition \[([A-Za-z0-9._-]+),(\d+)\]/.exec(message)
  if (!m) return undefined
  return m[1] !== undefined ? { topic: m[1], partition: m[2] } : { topic: m[3], partition: m[4] }
}

/** The component label: the logging class without package and inner-class suffixes ("ReplicaFetcherThread"). */
export function componentOf(logger: string): string {
  const cls = logger.slice(logger.lastIndexOf('.') + 1)
  // A named logger rather than a class ("state.change.logger") is its own component.
  if (!/^[A-Z]/.test(cls)) return logger
  return cls.split('$')[0] || logger
}

const SEVERE = new Set(['ERROR', 'FATAL'])

/** The family that owns a logger: the first whose prefix or exact name fits. */
function familyOf(logger: string): Family | undefined {
  for (const f of FAMILIES) if (f.loggers.some((p) => logger.startsWith(p)) || (f.exact ?? []).includes(logger)) return f
  return undefined
}

/**
 * The component signal of an ERROR or FATAL record whose logger a family owns (C1-C15 below), for a
 * record no exact-wording row matched. The generic prefilter reads every ERROR/FATAL record, so this
 * needs no trigger literal of its own.
 */
export function componentDraft(rec: LogRecord): Draft | undefined {
  const { level, logger, message } = rec.header
  if (!level || !SEVERE.has(level) || !logger) return undefined
  const f = familyOf(logger)
  if (!f) return undefined
  const labels: Record<string, string> = { component: componentOf(logger) }
  const tp = topicPartitionOf(message)
  if (tp) Object.assign(labels, tp)
  const dir = /\b(?:in (?:log )?dir|log dir(?:ectory)?|data directory|dir(?:ectory)?) (\/[^\s,;:)]+)/.exec(message)?.[1]
  if (dir) labels.dir = dir
  const group = /\bgroup ([A-Za-z0-9._-]+)/.exec(message)?.[1]
  if (group && f.signal.startsWith('group.')) labels.group = group
  // Only the labels the catalogue declares for that signal (a network error naming a partition keeps none).
  const declared: readonly string[] = (CATALOGUE as Record<string, { labels: readonly string[] }>)[f.signal]?.labels ?? []
  for (const k of Object.keys(labels)) if (!declared.includes(k)) delete labels[k]
  return { name: f.signal, labels }
}

/** The families, tried in order; a logger belongs to the first family that owns it. Numbered C1… */
const FAMILIES: readonly Family[] = [
  // C1. Kafka 0.10-3.x ZooKeeper-mode controller (kafka.controller.*: KafkaController, the partition and
  //     replica state machines, ControllerChannelManager, TopicDeletionManager) and its state-change log;
  //     Kafka 2.8-4.x KRaft controller (org.apache.kafka.controller.*: QuorumController, ReplicationControlManager…).
  {
    signal: 'controller.error',
    loggers: ['kafka.controller.', 'org.apache.kafka.controller.', 'kafka.server.ZookeeperLeaderElector', 'kafka.server.ControllerRegistrationManager'],
    exact: ['state.change.logger'],
  },
  // C2. Kafka 2.8-4.x Raft quorum (org.apache.kafka.raft.*: KafkaRaftClient, the quorum state, the
  //     snapshot writer; kafka.raft.*: RaftManager, KafkaNetworkChannel).
  { signal: 'kraft.raft_error', loggers: ['org.apache.kafka.raft.', 'kafka.raft.', 'org.apache.kafka.snapshot.'] },
  // C3. Kafka 2.8-4.x cluster metadata on brokers and controllers (loading and publishing the metadata
  //     image: org.apache.kafka.image.*, org.apache.kafka.metadata.*, kafka.server.metadata.*).
  {
    signal: 'kraft.metadata_error',
    loggers: ['org.apache.kafka.image.', 'org.apache.kafka.metadata.', 'kafka.server.metadata.'],
  },
  // C4. Kafka 0.10-4.x followers' fetchers (AbstractFetcherThread, ReplicaFetcherThread,
  //     ReplicaAlterLogDirsThread, ReplicaFetcherBlockingSend, the fetcher managers).
  {
    signal: 'replica.fetch_error',
    loggers: [
      'kafka.server.AbstractFetcherThread',
      'kafka.server.ReplicaFetcherThread',
      'kafka.server.ReplicaAlterLogDirsThread',
      'kafka.server.ReplicaFetcherBlockingSend',
      'kafka.server.AbstractFetcherManager',
      'kafka.server.ReplicaFetcherManager',
      'kafka.server.ReplicaAlterLogDirsManager',
      'kafka.server.RemoteLeaderEndPoint',
      'kafka.server.LocalLeaderEndPoint',
    ],
  },
  // C5. Kafka 0.10-4.x log layer (kafka.log.*: Log/UnifiedLog, LogManager, LogCleaner, LogSegment, the
  //     indexes; 3.6-4.x org.apache.kafka.storage.*, remote storage), LogDirFailureChannel excluded (its own row).
  {
    signal: 'log.storage_error',
    loggers: ['kafka.log.', 'org.apache.kafka.storage.', 'org.apache.kafka.server.log.'],
  },
  // C6. Kafka 0.10-4.x partitions and replicas on the broker (ReplicaManager, Partition, Replica, the
  //     delayed produce/fetch operations, the alter-partition manager).
  {
    signal: 'partition.error',
    loggers: [
      'kafka.server.ReplicaManager',
      'kafka.cluster.',
      'kafka.server.DelayedProduce',
      'kafka.server.DelayedFetch',
      'kafka.server.AlterPartitionManager',
      'kafka.server.DefaultAlterIsrManager',
      'kafka.server.AlterIsrManager',
      'kafka.server.HighwaterMarkCheckpoint',
      'kafka.server.checkpoints.',
      'org.apache.kafka.server.partition.',
      'kafka.server.DefaultAlterPartitionManager',
      'kafka.server.OffsetCheckpoint',
      'kafka.server.share.',
    ],
  },
  // C7. Kafka 0.10-4.x consumer group coordinator (kafka.coordinator.group.*; 3.5-4.x
  //     org.apache.kafka.coordinator.group.*, the share-group coordinator, org.apache.kafka.coordinator.common.*).
  {
    signal: 'group.coordinator_error',
    loggers: [
      'kafka.coordinator.group.',
      'kafka.coordinator.Group',
      'org.apache.kafka.coordinator.group.',
      'org.apache.kafka.coordinator.share.',
      'org.apache.kafka.coordinator.common.',
    ],
  },
  // C8. Kafka 0.11-4.x transaction coordinator (kafka.coordinator.transaction.*, 3.9-4.x
  //     org.apache.kafka.coordinator.transaction.*).
  {
    signal: 'txn.coordinator_error',
    loggers: ['kafka.coordinator.transaction.', 'org.apache.kafka.coordinator.transaction.', 'kafka.server.AddPartitionsToTxnManager'],
  },
  // C9. ZooKeeper 3.4-3.8 server side (org.apache.zookeeper.server.*: the quorum peers, the request
  //      processors, snapshots and the transaction log), in a ZooKeeper ensemble's own log.
  { signal: 'zk.server_error', loggers: ['org.apache.zookeeper.server.'] },
  // C10. The broker's ZooKeeper client: Kafka 1.1-3.x kafka.zookeeper.ZooKeeperClient, kafka.zk.*
  //     (KafkaZkClient, ZkData), 0.10 kafka.utils.ZkUtils; ZooKeeper 3.4-3.8 client classes
  //     (ClientCnxn, ZooKeeper, Login, the SASL client) — ZooKeeper's server side is C9.
  {
    signal: 'zk.client_error',
    loggers: [
      'kafka.zookeeper.',
      'kafka.zk.',
      'kafka.utils.ZkUtils',
      'kafka.utils.ZKCheckedEphemeral',
      'kafka.server.KafkaHealthcheck',
      'kafka.server.FinalizedFeatureChangeListener',
      'kafka.common.ZkNodeChangeNotificationListener',
      'org.apache.zookeeper.',
    ],
  },
  // C11. Kafka 0.10-4.x network layer (kafka.network.*: SocketServer, Acceptor, Processor, RequestChannel;
  //      org.apache.kafka.common.network.*: Selector, the SSL and SASL channels; 4.x org.apache.kafka.network.*).
  {
    signal: 'network.error',
    loggers: ['kafka.network.', 'org.apache.kafka.common.network.', 'org.apache.kafka.network.', 'kafka.common.InterBrokerSendThread', 'org.apache.kafka.server.util.InterBrokerSendThread'],
  },
  // C12. Kafka 0.10-4.x security (org.apache.kafka.common.security.*: SASL/Kerberos login, SCRAM, OAuth,
  //      the SSL factory; kafka.security.* authorizers; org.apache.kafka.security.*).
  {
    signal: 'security.error',
    loggers: ['org.apache.kafka.common.security.', 'kafka.security.', 'org.apache.kafka.security.'],
  },
  // C13. Kafka 0.10-4.x broker and controller process lifecycle (kafka.Kafka, KafkaServer, BrokerServer,
  //      ControllerServer, KafkaRaftServer, SharedServer, BrokerLifecycleManager, the startable wrapper):
  //      start-up and shut-down failures.
  {
    signal: 'broker.lifecycle_error',
    loggers: [
      'kafka.Kafka$',
      'kafka.Kafka',
      'kafka.server.KafkaServer',
      'kafka.server.BrokerServer',
      'kafka.server.ControllerServer',
      'kafka.server.KafkaRaftServer',
      'kafka.server.SharedServer',
      'kafka.server.BrokerLifecycleManager',
      'kafka.server.KafkaBroker',
      'kafka.server.NodeToControllerRequestThread',
      'kafka.server.BrokerToControllerRequestThread',
      'kafka.server.BrokerMetadataCheckpoint',
      'kafka.server.BrokerRegistrationTracker',
      'org.apache.kafka.server.NodeToControllerRequestThread',
      'org.apache.kafka.server.BrokerLifecycleManager',
    ],
  },
  // C14. Kafka 0.10-4.x request handling (KafkaApis, KafkaRequestHandler, the request purgatory, quotas,
  //      the admin and config managers, delegation tokens, fetch sessions).
  {
    signal: 'request.error',
    loggers: [
      'kafka.server.KafkaApis',
      'kafka.server.KafkaRequestHandler',
      'kafka.server.DelayedOperation',
      'kafka.server.ClientQuotaManager',
      'kafka.server.ClientRequestQuotaManager',
      'kafka.server.ZkAdminManager',
      'kafka.server.AdminManager',
      'kafka.server.ControllerApis',
      'kafka.server.DelegationTokenManager',
      'kafka.server.FetchSession',
      'kafka.server.ForwardingManager',
      'kafka.server.AutoTopicCreationManager',
      'kafka.server.DynamicConfigManager',
      'kafka.server.ConfigHandler',
      'kafka.server.DynamicBrokerConfig',
      'kafka.server.KafkaConfig',
      'kafka.server.MetadataCache',
      'kafka.server.ZkMetadataCache',
      'kafka.server.KRaftMetadataCache',
      'kafka.server.RequestHandlerHelper',
      'kafka.server.TransactionMarker',
      'kafka.server.ConfigAdminManager',
      'kafka.server.ConfigHelper',
      'kafka.server.ActionQueue',
      'kafka.server.DelayedActionQueue',
      'org.apache.kafka.server.',
    ],
  },
  // C15. Kafka clients 0.10-4.x inside brokers and applications (org.apache.kafka.clients.*: the producer,
  //      the consumer and its coordinator, the admin client, NetworkClient, metadata).
  { signal: 'client.error', loggers: ['org.apache.kafka.clients.', 'kafka.consumer.', 'kafka.producer.'] },
]

/** The signal each family yields, for the catalogue test and the docs. */
export const COMPONENT_SIGNALS: readonly string[] = [...new Set(FAMILIES.map((f) => f.signal))]
