import { describe, expect, it } from 'vitest'
import { SIGNATURES, threadKind } from '../../../adapters/logs/failure-matchers.js'
import { CATALOGUE } from '../../../signals/catalogue.js'
import { brief, parse } from './helpers.js'

// Each row: a record as the named Kafka version writes it and the signals it must give. Lines marked
// "public" are verbatim from the public report named; the others carry the exact wording of the named
// source file (kafka_2.11 0.10.2.2, kafka_2.12 1.1.1, kafka_2.13 2.8.2 / 3.9.1, kafka-clients 3.9.1,
// kafka-raft 3.9.1 sources jars); values are the only free part.

type Row = [label: string, text: string, expected: Record<string, unknown>[]]

const rows: Row[] = [
  [
    'Kafka 1.1 ShutdownableThread: the log cleaner thread dies',
    '[2018-03-01 10:00:00,000] ERROR [kafka-log-cleaner-thread-0]: Error due to (kafka.log.LogCleaner)\n' +
      'java.lang.IllegalArgumentException: requirement failed: largest offset in message set can not be safely converted to relative offset.\n' +
      '\tat scala.Predef$.require(Predef.scala:224)\n' +
      '\tat kafka.log.LogSegment.append(LogSegment.scala:135)',
    [
      { name: 'thread.died', labels: { thread: 'kafka-log-cleaner-thread-0', kind: 'log-cleaner' } },
      { name: 'log.signature', labels: { id: 'relative-offset-overflow' } },
    ],
  ],
  [
    'Kafka 0.10.2 ShutdownableThread logIdent "[name], ": the log cleaner thread dies',
    '[2017-06-01 11:00:03,100] ERROR [kafka-log-cleaner-thread-0], Error due to  (kafka.log.LogCleaner)',
    [{ name: 'thread.died', labels: { thread: 'kafka-log-cleaner-thread-0', kind: 'log-cleaner' } }],
  ],
  [
    'Kafka 1.1-3.x AbstractFetcherThread logIdent: a replica fetcher dies',
    '[2019-03-01 10:00:00,000] ERROR [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Error due to (kafka.server.ReplicaFetcherThread)',
    [{ name: 'thread.died', labels: { thread: 'ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0', kind: 'replica-fetcher' } }],
  ],
  [
    'clients 3.9 KafkaThread uncaught exception handler',
    "[2024-05-01 10:00:00,000] ERROR Uncaught exception in thread 'kafka-producer-network-thread | producer-1': (org.apache.kafka.common.utils.KafkaThread)",
    [{ name: 'thread.died', labels: { thread: 'kafka-producer-network-thread | producer-1', kind: 'network' } }],
  ],
  [
    'Kafka 2.8 LogManager: no clean shutdown file, then logs to recover',
    '[2021-06-01 10:00:00,000] INFO Attempting recovery for all logs in /var/lib/kafka/data since no clean shutdown file was found (kafka.log.LogManager)\n' +
      '[2021-06-01 10:00:03,512] INFO Loaded 212 logs in 3512ms. (kafka.log.LogManager)',
    [
      { name: 'log.unclean_shutdown', labels: { dir: '/var/lib/kafka/data' } },
      { name: 'log.load_time', value: 3512 },
    ],
  ],
  [
    'Kafka 2.8.2 LogManager on a new, empty data dir says the same, then loads 0 logs: no unclean shutdown (test/incidents/lab-stw-2.8.2)',
    '[2026-12-01 12:22:16,008] INFO Attempting recovery for all logs in /tmp/kafka-why-lab-U3ZtNt/broker-1/data since no clean shutdown file was found (kafka.log.LogManager)\n' +
      '[2026-12-01 12:22:16,114] INFO Loaded 0 logs in 160ms. (kafka.log.LogManager)',
    [{ name: 'log.load_time', value: 160 }],
  ],
  [
    'Kafka 3.9 LogManager: no clean shutdown file, then the load time with unclean dirs',
    '[2024-05-01 10:00:00,000] INFO Recovering 1204 logs from /data/kafka since no clean shutdown file was found (kafka.log.LogManager)\n' +
      '[2024-05-01 10:14:00,000] INFO Loaded 1204 logs in 840021ms (unclean log dirs = ArrayBuffer(/data/kafka)) (kafka.log.LogManager)',
    [
      { name: 'log.unclean_shutdown', labels: { dir: '/data/kafka' } },
      { name: 'log.load_time', value: 840021 },
    ],
  ],
  [
    'Kafka 0.10.2-1.1 LogManager load time',
    '[2017-06-01 10:00:00,000] INFO Logs loading complete in 5123 ms. (kafka.log.LogManager)',
    [{ name: 'log.load_time', value: 5123 }],
  ],
  [
    'Kafka 2.8 Log: a corrupted index found at start-up',
    '[2021-06-01 10:00:00,000] WARN [Log partition=orders-3, dir=/data/kafka] Found a corrupted index file corresponding to log file /data/kafka/orders-3/00000000000000012345.log due to Corrupt index found, index file (/data/kafka/orders-3/00000000000000012345.index) has non-zero size but the last offset is 12345 which is no greater than the base offset 12345.}, recovering segment and rebuilding index files... (kafka.log.Log)',
    [{ name: 'log.index_corrupt', labels: { topic: 'orders', partition: '3' } }],
  ],
  [
    'Kafka 2.8 LogCleaner gives up on a partition',
    '[2021-06-01 10:00:00,000] WARN [kafka-log-cleaner-thread-0]: Unexpected exception thrown when cleaning log Log(dir=/data/kafka/__consumer_offsets-12, topic=__consumer_offsets, partition=12, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=0). Marking its partition (__consumer_offsets-12) as uncleanable (kafka.log.LogCleaner)',
    [{ name: 'log.uncleanable', labels: { topic: '__consumer_offsets', partition: '12' } }],
  ],
  [
    'Kafka 3.9 AbstractFetcherThread truncates to the new leader',
    "[2024-05-01 10:00:00,000] WARN [ReplicaFetcher replicaId=2, leaderId=3, fetcherId=0] Reset fetch offset for partition payments-0 from 1500 to current leader's latest offset 1320 (kafka.server.ReplicaFetcherThread)",
    [{ name: 'replica.truncated', value: 180, labels: { topic: 'payments', partition: '0' } }],
  ],
  [
    'Kafka 3.9 AbstractFetcherThread: follower behind the leader log start',
    "[2024-05-01 10:00:00,000] WARN [ReplicaFetcher replicaId=2, leaderId=3, fetcherId=0] Truncate fully and reset fetch offset for partition clicks-7 from 100 to the current leader's start offset 9000 because the local replica's end offset is smaller than the current leader's start offsets. (kafka.server.ReplicaFetcherThread)",
    [{ name: 'replica.behind_log_start', labels: { topic: 'clicks', partition: '7' } }],
  ],
  [
    'Kafka 1.1 ReplicaFetcherThread refuses to truncate',
    "[2018-03-01 10:00:00,000] FATAL [ReplicaFetcher replicaId=2, leaderId=3, fetcherId=0] Exiting because log truncation is not allowed for partition payments-0, current leader's latest offset 1320 is less than replica's latest offset 1500 (kafka.server.ReplicaFetcherThread)",
    [{ name: 'replica.truncation_refused', labels: { topic: 'payments', partition: '0' } }],
  ],
  [
    'Kafka 3.9 AbstractFetcherThread: out of range',
    '[2024-05-01 10:00:00,000] INFO [ReplicaFetcher replicaId=2, leaderId=3, fetcherId=0] Current offset 1500 for partition payments-0 is out of range, which typically implies a leader change. Reset fetch offset to 1320 (kafka.server.ReplicaFetcherThread)',
    [{ name: 'replica.out_of_range', labels: { topic: 'payments', partition: '0' } }],
  ],
  [
    'Kafka 2.8 KafkaServer InconsistentClusterIdException',
    "[2021-06-01 10:00:00,000] ERROR Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n" +
      "kafka.common.InconsistentClusterIdException: The Cluster ID kDaWYx2aQ1eoB7M9SXm6pQ doesn't match stored clusterId Some(0b5f6a2bQ2K5bxF6lrq1lA) in meta.properties. The broker is trying to join the wrong cluster. Configured zookeeper.connect may be wrong.\n" +
      '\tat kafka.server.KafkaServer.startup(KafkaServer.scala:218)',
    [{ name: 'broker.cluster_id_mismatch', labels: { expected: 'kDaWYx2aQ1eoB7M9SXm6pQ', stored: '0b5f6a2bQ2K5bxF6lrq1lA' } }],
  ],
  [
    'public (gist kstdennis/beb12f32, 2019): KafkaZkClient$CheckedEphemeral after a session expiry',
    "[2019-09-09 01:02:22,490] ERROR Error while creating ephemeral at /brokers/ids/1, node already exists and owner '246874773735211023' does not match current session '246874773735211024' (kafka.zk.KafkaZkClient$CheckedEphemeral)",
    [{ name: 'zk.ephemeral_conflict', labels: { path: '/brokers/ids/1' } }],
  ],
  [
    'Kafka 3.9 AlterPartitionManager stale broker epoch',
    '[2024-05-01 10:00:00,000] WARN [zk-broker-2-to-controller-alter-partition-channel-manager]: Broker had a stale broker epoch (4294967310), retrying. (kafka.server.DefaultAlterPartitionManager)',
    [{ name: 'broker.stale_epoch' }],
  ],
  [
    'kafka-raft 3.9 QuorumState: a voter becomes candidate',
    '[2024-05-01 10:00:00,000] INFO [RaftManager id=1] Completed transition to CandidateState(localId=1, localDirectoryId=Zq2kq3tVQe2Yw4zGQp2xFw,epoch=7, retries=1, voteStates={1=GRANTED, 2=UNRECORDED, 3=UNRECORDED}, highWatermark=Optional[LogOffsetMetadata(offset=1200, metadata=Optional.empty)], electionTimeoutMs=1432) from FollowerState(fetchTimeoutMs=2000, epoch=6, leader=2, voters=[1, 2, 3], highWatermark=Optional.empty, fetchingSnapshot=Optional.empty) (org.apache.kafka.raft.QuorumState)',
    [{ name: 'kraft.quorum_transition', labels: { state: 'candidate', retries: '1' } }],
  ],
  [
    'clients 3.9 Selector: TLS handshake failure',
    '[2024-05-01 10:00:00,000] INFO [SocketServer listenerType=ZK_BROKER, nodeId=1] Failed authentication with /10.0.4.17 (SSL handshake failed) (org.apache.kafka.common.network.Selector)',
    [{ name: 'auth.failed', labels: { from: '10.0.4.17', kind: 'tls' } }],
  ],
  [
    'clients 3.9 Selector: SASL failure',
    '[2024-05-01 10:00:00,000] INFO [SocketServer listenerType=ZK_BROKER, nodeId=1] Failed authentication with /10.0.4.18 (Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512) (org.apache.kafka.common.network.Selector)',
    [{ name: 'auth.failed', labels: { from: '10.0.4.18', kind: 'sasl' } }],
  ],
  [
    'JDK CertificateExpiredException inside a handshake failure',
    '[2024-05-01 10:00:00,000] ERROR [Producer clientId=producer-1] Connection to node -1 (kafka-0/10.0.4.10:9093) failed authentication due to: SSL handshake failed (org.apache.kafka.clients.NetworkClient)\n' +
      'Caused by: java.security.cert.CertificateExpiredException: NotAfter: Tue Apr 30 23:59:59 UTC 2024',
    [{ name: 'tls.cert_expired' }],
  ],
  [
    'clients 3.9 NetworkClient: an advertised address that cannot be reached',
    '[2024-05-01 10:00:00,000] WARN [Consumer clientId=c-1, groupId=g] Connection to node 1 (kafka-1.internal/10.0.4.11:9092) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)',
    [{ name: 'client.connect_failed', labels: { node: '1', address: 'kafka-1.internal/10.0.4.11:9092', via: 'advertised', from: 'consumer' } }],
  ],
  [
    'clients 1.1 NetworkClient: the bootstrap address cannot be reached',
    '[2018-03-01 10:00:00,000] WARN [Consumer clientId=c-1, groupId=g] Connection to node -1 could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)',
    [{ name: 'client.connect_failed', labels: { node: '-1', via: 'bootstrap', from: 'consumer' } }],
  ],
  [
    'clients 2.1-4.x FetchSessionHandler',
    '[2019-07-23 21:50:25,000] INFO [Consumer clientId=consumer-4, groupId=iotsdkservermgr] Node 2 was unable to process the fetch request with (sessionId=987152831, epoch=10154): INVALID_FETCH_SESSION_EPOCH. (org.apache.kafka.clients.FetchSessionHandler)',
    [{ name: 'fetch.session_error', labels: { node: '2', error: 'INVALID_FETCH_SESSION_EPOCH' } }],
  ],
  [
    'Kafka 1.1 Log.roll: a segment that already exists',
    '[2018-03-01 10:00:00,000] ERROR [ReplicaManager broker=1] Error processing append operation on partition events-2 (kafka.server.ReplicaManager)\n' +
      'kafka.common.KafkaException: Trying to roll a new log segment for topic partition events-2 with start offset 5410 while it already exists.',
    [{ name: 'log.signature', labels: { id: 'roll-existing-segment' } }],
  ],
  [
    'Kafka 2.x CoreUtils: two listeners with one name',
    '[2020-11-07 13:18:42,019] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)\n' +
      'java.lang.IllegalArgumentException: requirement failed: Each listener must have a different name, listeners: EXTERNAL://xxx:9092,EXTERNAL://xxx:29092',
    [{ name: 'broker.listener_invalid', labels: { reason: 'duplicate name', listeners: 'EXTERNAL://xxx:9092,EXTERNAL://xxx:29092' } }],
  ],
  [
    'clients 2.x JaasContext: no KafkaServer section',
    '[2021-04-16 09:41:54,499] ERROR [KafkaServer id=0] Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n' +
      "java.lang.IllegalArgumentException: Could not find a 'KafkaServer' or 'sasl_plaintext.KafkaServer' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set",
    [{ name: 'sasl.jaas_missing', labels: { context: 'KafkaServer' } }],
  ],
  [
    'Kafka 0.11-1.x KafkaApis: the offsets topic needs more brokers',
    "[2017-09-13 13:20:28,975] ERROR [KafkaApi-1] Number of alive brokers '1' does not meet the required replication factor '3' for the offsets topic (configured via 'offsets.topic.replication.factor'). This error can be ignored if the cluster is starting up and not all brokers are up yet. (kafka.server.KafkaApis)",
    [{ name: 'topic.replication_unsatisfiable', labels: { required: '3', alive: '1', topic: '__consumer_offsets' } }],
  ],
  [
    'Kafka 2.x state-change log: no leader for an offline partition',
    '[2024-02-12 18:04:34,242] ERROR [Controller id=100 epoch=11] Controller 100 epoch 11 failed to change state for partition __transaction_state-35 from OfflinePartition to OnlinePartition (state.change.logger)',
    [{ name: 'partitions.offline_election_failed', labels: { topic: '__transaction_state', partition: '35' } }],
  ],
  [
    'Kafka 0.10-1.0 controller: a controlled shutdown cannot move a leader',
    '[2017-10-17 14:06:11,643] ERROR Controller 0 epoch 3 encountered error while electing leader for partition [event,9] due to: No other replicas in ISR 0,2 for [event,9] besides shutting down brokers 0. (state.change.logger)',
    [{ name: 'controller.shutdown_move_failed', labels: { topic: 'event', partition: '9' } }],
  ],
  [
    'Kafka 1.1-3.x AbstractFetcherThread: no response from the leader',
    '[2019-03-01 10:00:00,000] WARN [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Error in response for fetch request (type=FetchRequest, replicaId=2, maxWait=500, minBytes=1, maxBytes=10485760, fetchData={events-0=(offset=1200, logStartOffset=0, maxBytes=1048576)}, isolationLevel=READ_UNCOMMITTED, toForget=, metadata=(sessionId=INVALID, epoch=INITIAL)) (kafka.server.ReplicaFetcherThread)',
    [
      { name: 'replica.fetch_failed', labels: { leader: '1' } },
      { name: 'peer.fetch_failed', labels: { follower: '2' } },
    ],
  ],
  [
    'public (SDU-eScience/UCloud issue 36): 0.11/1.0 ReplicaManager halts on an I/O error',
    '[2018-02-21 16:06:25,241] FATAL [Replica Manager on Broker 0]: Halting due to unrecoverable I/O error while handling produce request:  (kafka.server.ReplicaManager)',
    [{ name: 'log.dir_failure' }],
  ],
  [
    'Kafka 2.8 LogCleaner: an I/O error while cleaning takes the dir offline',
    '[2021-06-01 10:00:00,000] ERROR Failed to clean up log for __consumer_offsets-35 in dir /kafka-logs/kafka due to IOException (kafka.server.LogDirFailureChannel)',
    [{ name: 'log.dir_failure', labels: { dir: '/kafka-logs/kafka', topic: '__consumer_offsets' } }],
  ],
  [
    'JDK PKIX path validation of an expired certificate',
    '[2023-06-01 10:00:00,000] ERROR [Producer clientId=producer-1] Connection to node -1 (kafka-0/10.0.4.10:9093) failed authentication due to: SSL handshake failed (org.apache.kafka.clients.NetworkClient)\n' +
      'Caused by: javax.net.ssl.SSLHandshakeException: PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed',
    [{ name: 'tls.cert_expired' }],
  ],
  [
    'clients 3.9.1 on JDK 17, a broker certificate that expired, issuer trusted (test/incidents/lab-tls-cert-expired, stack frames left out)',
    '[2026-12-01 16:19:53,532] WARN [Producer clientId=billing-producer] Bootstrap broker 127.0.0.1:38559 (id: -2 rack: null) disconnected (org.apache.kafka.clients.NetworkClient)\n' +
      'org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\n' +
      'Caused by: javax.net.ssl.SSLHandshakeException: PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed\n' +
      'Caused by: sun.security.validator.ValidatorException: PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed\n' +
      'Caused by: java.security.cert.CertPathValidatorException: validity check failed\n' +
      'Caused by: java.security.cert.CertificateExpiredException: NotAfter: Sun Nov 22 16:19:20 UTC 2026',
    [{ name: 'tls.cert_expired' }],
  ],
  [
    'public (corpus group-member-heartbeat-expiry-long-pause, Kafka 2.x): a member removed on heartbeat expiration',
    '[2019-06-03 11:49:05,759] INFO [GroupCoordinator 0]: Preparing to rebalance group rbgh664 in state PreparingRebalance with old generation 13 (__consumer_offsets-25) (reason: removing member source-2cb8abb3-20e9-498f-9512-4f961a3e65b5 on heartbeat expiration) (kafka.coordinator.group.GroupCoordinator)',
    [{ name: 'group.member_expired', labels: { group: 'rbgh664', member: 'source-2cb8abb3-20e9-498f-9512-4f961a3e65b5' } }],
  ],
  [
    'Kafka 2.8 AbstractFetcherThread: one partition fails',
    '[2021-08-31 11:31:25,092] ERROR [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Unexpected error occurred while processing data for partition __consumer_offsets-1 at offset 31727 (kafka.server.ReplicaFetcherThread)',
    [{ name: 'replica.partition_failed', labels: { topic: '__consumer_offsets', partition: '1' } }],
  ],
  [
    'clients 1.1 Fetcher: a record fails its checksum',
    '[2018-09-01 10:00:00,000] ERROR [Consumer clientId=c-1, groupId=g] Error while processing fetched data (org.apache.kafka.clients.consumer.internals.Fetcher)\n' +
      'org.apache.kafka.common.KafkaException: Record for partition events-49 at offset 2911287689 is invalid, cause: Record is corrupt (stored crc = 3580880396, computed crc = 1701403171)',
    [{ name: 'record.corrupt', labels: { topic: 'events', partition: '49' } }],
  ],
  [
    'Kafka 3.9 controller channel to a stopped broker (lab recording wording)',
    '[2026-11-29 20:23:54,883] WARN [Controller id=1, targetBrokerId=1] Connection to node 1 (/127.0.0.1:46225) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)',
    [{ name: 'client.connect_failed', labels: { node: '1', address: '/127.0.0.1:46225', via: 'advertised', from: 'broker' } }],
  ],
  [
    'Kafka 3.9 BrokerLifecycleManager: the controller refuses a duplicate registration',
    '[2024-05-01 10:00:00,000] INFO [BrokerLifecycleManager id=4] Unable to register broker 4 because the controller returned error DUPLICATE_BROKER_REGISTRATION (kafka.server.BrokerLifecycleManager)',
    [{ name: 'kraft.registration_failed', labels: { reason: 'DUPLICATE_BROKER_REGISTRATION' } }],
  ],
  [
    'Kafka 3.9 BrokerLifecycleManager: the registration RPC times out',
    '[2024-05-01 10:00:00,000] INFO [BrokerLifecycleManager id=4] Unable to register the broker because the RPC got timed out before it could be sent. (kafka.server.BrokerLifecycleManager)',
    [{ name: 'kraft.registration_failed', labels: { reason: 'timeout' } }],
  ],
  [
    'Kafka 3.5/3.6 BrokerToControllerRequestThread, public (bitnami/charts#20403): the heartbeat channel records controller 2',
    '[2023-10-27 09:19:53,160] INFO [broker-101-to-controller-heartbeat-channel-manager]: Recorded new controller, from now on will use node kraft-kafka-controller-2.kraft-kafka-controller-headless.kafka-kraft-benchmark.svc.cluster.local:9093 (id: 2 rack: null) (kafka.server.BrokerToControllerRequestThread)',
    [{ name: 'kraft.controller_recorded', labels: { node: '2', channel: 'heartbeat' } }],
  ],
  [
    'Kafka 3.x BrokerToControllerRequestThread "name=" ident, public (healthy-controller-auto-preferred-election): alterPartition channel',
    '[2023-05-10 09:31:11,341] INFO [BrokerToControllerChannelManager broker=1 name=alterPartition]: Recorded new controller, from now on will use broker kafka-1.kafka-headless.argocd.svc.cluster.local:9093 (id: 1 rack: null) (kafka.server.BrokerToControllerRequestThread)',
    [{ name: 'kraft.controller_recorded', labels: { node: '1', channel: 'alterPartition' } }],
  ],
  [
    'Kafka 3.6 QuorumController, public (apache/kafka#14919, quoted without its stamp): a commit fails with a corrupt record',
    'INFO [ControllerServer id=9990] handleCommit[baseOffset=192554233]: event failed with CorruptRecordException in 234 microseconds.',
    [{ name: 'kraft.controller_event_failed', labels: { event: 'handleCommit', exception: 'CorruptRecordException', time_unknown: 'true' } }],
  ],
  [
    'ZooKeeper 3.5 FastLeaderElection, public (cp-helm-charts#487): an election round ends with no quorum',
    '[2021-04-02 01:33:59,492] INFO Notification time out: 1600 (org.apache.zookeeper.server.quorum.FastLeaderElection)',
    [{ name: 'zk.server_election_timeout', value: 1600 }],
  ],
  [
    'Kafka 3.9.1 controller state change, unclean election of an out-of-sync replica (test/incidents/lab-unclean-election)',
    '[2026-12-01 15:00:50,446] INFO [Controller id=2 epoch=2] Changed partition orders-1 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=2, isrWithBrokerEpoch=List(BrokerState(brokerId=2, brokerEpoch=-1)), leaderRecoveryState=RECOVERING, partitionEpoch=3) (state.change.logger)',
    [{ name: 'leader.unclean', labels: { topic: 'orders', partition: '1' } }],
  ],
  [
    'Kafka 3.9.1 new leader after an unclean election (test/incidents/lab-unclean-election)',
    '[2026-12-01 15:00:50,528] INFO [Broker id=2] The topic partition orders-5 was marked as RECOVERING. Marking the topic partition as RECOVERED. (state.change.logger)',
    [{ name: 'leader.unclean', labels: { topic: 'orders', partition: '5' } }],
  ],
  [
    'Kafka 3.9.1 follower cut off from both leaders: fetches fail toward brokers 1 and 2 within a minute (test/incidents/lab-broker-partitioned)',
    '[2026-12-01 15:05:23,381] WARN [ReplicaFetcher replicaId=3, leaderId=1, fetcherId=0] Error in response for fetch request (type=FetchRequest, replicaId=3, maxWait=500, minBytes=1, maxBytes=10485760, fetchData={orders-5=PartitionData(topicId=R8YAF_wSQiCEMktffwFMQQ, fetchOffset=632, logStartOffset=0, maxBytes=1048576, currentLeaderEpoch=Optional[0], lastFetchedEpoch=Optional[0])}, isolationLevel=read_uncommitted, removed=, replaced=, metadata=(sessionId=485584574, epoch=56), rackId=) (kafka.server.ReplicaFetcherThread)' +
      '\n' +
      '[2026-12-01 15:05:23,492] WARN [ReplicaFetcher replicaId=3, leaderId=2, fetcherId=0] Error in response for fetch request (type=FetchRequest, replicaId=3, maxWait=500, minBytes=1, maxBytes=10485760, fetchData={orders-0=PartitionData(topicId=R8YAF_wSQiCEMktffwFMQQ, fetchOffset=609, logStartOffset=0, maxBytes=1048576, currentLeaderEpoch=Optional[0], lastFetchedEpoch=Optional[0])}, isolationLevel=read_uncommitted, removed=, replaced=, metadata=(sessionId=78355045, epoch=58), rackId=) (kafka.server.ReplicaFetcherThread)',
    [
      { name: 'replica.fetch_failed', labels: { leader: '1' } },
      { name: 'peer.fetch_failed', labels: { follower: '3' } },
      { name: 'replica.fetch_failed', labels: { leader: '2' } },
      { name: 'peer.fetch_failed', labels: { follower: '3' } },
      { name: 'replica.fetch_failed_leaders', value: 2, labels: { leaders: '1, 2' } },
    ],
  ],
  [
    'Kafka 3.9.1 KRaft voter campaigning for the third round in a row after two of three voters were killed (test/incidents/lab-kraft-quorum-loss)',
    '[2026-12-01 15:25:57,936] INFO [RaftManager id=1] Completed transition to CandidateState(localId=1, localDirectoryId=X8ZM0Nhn3VlLnO5UM2n2wA,epoch=5, retries=3, voteStates={1=org.apache.kafka.raft.CandidateState$VoterState@7fd909c1, 2=org.apache.kafka.raft.CandidateState$VoterState@29f82f38, 3=org.apache.kafka.raft.CandidateState$VoterState@48aed35e}, highWatermark=Optional[LogOffsetMetadata(offset=59, metadata=Optional.empty)], electionTimeoutMs=1681) from CandidateState(localId=1, localDirectoryId=X8ZM0Nhn3VlLnO5UM2n2wA,epoch=4, retries=2, voteStates={1=org.apache.kafka.raft.CandidateState$VoterState@5b81aecc, 2=org.apache.kafka.raft.CandidateState$VoterState@5e07f617, 3=org.apache.kafka.raft.CandidateState$VoterState@b6210a7}, highWatermark=Optional[LogOffsetMetadata(offset=59, metadata=Optional.empty)], electionTimeoutMs=1577) (org.apache.kafka.raft.QuorumState)',
    [{ name: 'kraft.quorum_transition', labels: { state: 'candidate', retries: '3' } }],
  ],
  [
    'clients 3.9.1 ConsumerCoordinator, a member whose poll loop blocked past max.poll.interval.ms (test/incidents/lab-stuck-consumer)',
    '[2026-12-01 16:22:41,461] WARN [Consumer clientId=billing-worker, groupId=billing] consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records. (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)',
    [{ name: 'group.member_poll_timeout', labels: { group: 'billing', client: 'billing-worker' } }],
  ],
  [
    'Kafka 3.9.1 GroupCoordinator, that member leaving on its poll timeout; the rebalance line before it repeats the reason (test/incidents/lab-stuck-consumer)',
    '[2026-12-01 16:22:41,469] INFO [GroupCoordinator 3]: Preparing to rebalance group billing in state PreparingRebalance with old generation 1 (__consumer_offsets-1) (reason: Removing member billing-worker-fdd8b6eb-447c-4aff-8792-52b5cb7d210d on LeaveGroup; client reason: consumer poll timeout has expired.) (kafka.coordinator.group.GroupCoordinator)' + '\n' +
      '[2026-12-01 16:22:41,470] INFO [GroupCoordinator 3]: Member MemberMetadata(memberId=billing-worker-fdd8b6eb-447c-4aff-8792-52b5cb7d210d, groupInstanceId=None, clientId=billing-worker, clientHost=/127.0.0.1, sessionTimeoutMs=45000, rebalanceTimeoutMs=20000, supportedProtocols=List(range, cooperative-sticky)) has left group billing through explicit `LeaveGroup`; client reason: consumer poll timeout has expired. (kafka.coordinator.group.GroupCoordinator)',
    [{ name: 'group.member_poll_timeout', labels: { group: 'billing', member: 'billing-worker-fdd8b6eb-447c-4aff-8792-52b5cb7d210d' } }],
  ],
  [
    'Kafka 3.9.1 GroupCoordinator, a member leaving with no reason (a consumer closed): no poll timeout (test/incidents/lab-group-churn)',
    '[2026-11-29 20:26:23,816] INFO [GroupCoordinator 1]: Member MemberMetadata(memberId=billing-sync-worker-3b4881f3-c54d-4bf0-8aff-9b5c5c659d3a, groupInstanceId=None, clientId=billing-sync-worker, clientHost=/127.0.0.1, sessionTimeoutMs=6000, rebalanceTimeoutMs=10000, supportedProtocols=List(RoundRobinAssigner)) has left group billing-sync through explicit `LeaveGroup`; client reason: not provided (kafka.coordinator.group.GroupCoordinator)',
    [],
  ],
  [
    'Kafka 3.9.1 clean election keeps RECOVERED: no unclean election (test/incidents/lab-unclean-election)',
    '[2026-12-01 15:00:11,652] INFO [Controller id=1 epoch=1] Changed partition orders-0 from NewPartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=0, isrWithBrokerEpoch=List(BrokerState(brokerId=2, brokerEpoch=-1), BrokerState(brokerId=1, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, partitionEpoch=0) (state.change.logger)',
    [],
  ],
]

/** The signals these rows are about; other rows of the table (generic and per-component error signals) also fire on ERROR records. */
const OWN = new Set(rows.flatMap(([, , expected]) => expected.map((e) => e.name as string)))

describe('adapters/logs/failure-matchers', () => {
  it.each(rows)('%s', (_label, text, expected) => {
    // Lines quoted without a stamp are placed at a stand-in time, as `why` does for pasted excerpts.
    const { signals } = parse(text, { undatedAt: Date.UTC(2024, 0, 1) })
    const got = signals.map((s) => brief({ ...s, broker: undefined })).filter((s) => OWN.has(s.name as string))
    expect(got).toEqual(expected)
  })

  it('every signal these rows give is in the catalogue', () => {
    for (const [, , expected] of rows) for (const e of expected) expect(CATALOGUE).toHaveProperty([e.name as string])
  })

  it('an ordinary start-up line names no failure', () => {
    const { signals } = parse(
      '[2024-05-01 10:00:00,000] INFO Skipping recovery of 1204 logs from /data/kafka since clean shutdown file was found (kafka.log.LogManager)\n' +
        '[2024-05-01 10:00:00,000] INFO [kafka-log-cleaner-thread-0]: Starting (kafka.log.LogCleaner)\n' +
        '[2024-05-01 10:00:00,000] INFO [SocketServer listenerType=ZK_BROKER, nodeId=1] Successfully authenticated with /10.0.4.17 (org.apache.kafka.common.network.Selector)',
    )
    expect(signals.map((s) => s.name)).toEqual([])
  })

  it.each([
    ['kafka-log-cleaner-thread-0', 'log-cleaner'],
    ['ReplicaFetcherThread-0-1', 'replica-fetcher'],
    ['ExpirationReaper-1-Produce', 'purgatory-reaper'],
    ['data-plane-kafka-request-handler-3', 'request-handler'],
    ['some-app-thread', 'other'],
  ])('thread %s is a %s thread', (name, kind) => expect(threadKind(name)).toBe(kind))

  it('signature ids are unique', () => expect(new Set(SIGNATURES.map((s) => s.id)).size).toBe(SIGNATURES.length))
})
