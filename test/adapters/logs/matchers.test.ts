import { describe, expect, it } from 'vitest'
import { CATALOGUE } from '../../../signals/catalogue.js'
import { encodeVersion } from '../../../signals/units.js'
import { GENERIC_SIGNALS } from '../../../adapters/logs/generic.js'
import { brief, parse } from './helpers.js'

// The tables assert the specific signals of each wording; the generic error signal an ERROR or
// exception record also yields is asserted in generic.test.ts.
const specific = (signals: { name: string }[]) => signals.filter((s) => !(GENERIC_SIGNALS as readonly string[]).includes(s.name))

// Each row: a line (or record) as the named version writes it, and the signals it must give. Lines
// marked "seed NNN" are verbatim from ../../shared/seeds; the others carry the exact wording of the
// named source file for that version (values are the only free part).
type Row = [label: string, text: string, expected: Record<string, unknown>[]]

const kafkaRows: Row[] = [
  [
    'seed 000: ZooKeeper 3.4.10 ClientCnxn session timeout, WARN then INFO for one event',
    '[2018-08-06 01:28:02,562] WARN Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)\n' +
      '[2018-08-06 01:28:02,562] INFO Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062, closing socket connection and attempting reconnect (org.apache.zookeeper.ClientCnxn)',
    [{ name: 'zk.session_timeout', value: 7768, labels: { session: '0x164f8ea86020062' } }],
  ],
  [
    'ZooKeeper 3.6-3.9 ClientCnxn.java "for session id 0x%s"',
    '[2024-05-01 10:00:00,123] WARN Client session timed out, have not heard from server in 4002ms for session id 0x10000a1b2c30001 (org.apache.zookeeper.ClientCnxn)',
    [{ name: 'zk.session_timeout', value: 4002, labels: { session: '0x10000a1b2c30001' } }],
  ],
  [
    'ZooKeeper 3.4.10 ClientCnxn.onConnected session expiry',
    '[2018-08-06 01:28:04,101] WARN Unable to reconnect to ZooKeeper service, session 0x164f8ea86020062 has expired (org.apache.zookeeper.ClientCnxn)',
    [{ name: 'zk.session_expired', labels: { session: '0x164f8ea86020062' } }],
  ],
  [
    'Kafka 2.2.1 ZooKeeperClient scheduleReinitialize "Session expired."',
    '[2019-06-01 10:00:00,000] INFO [ZooKeeperClient] Session expired. (kafka.zookeeper.ZooKeeperClient)',
    [{ name: 'zk.session_expired' }],
  ],
  [
    'ZooKeeper 3.8.4 ClientCnxn under Kafka 3.9, the server killed (lab-zk-kill): the 3.4 text is now the exception under it',
    '[2026-12-01 12:17:16,082] WARN Session 0x1000015140e0002 for server /127.0.0.1:37677, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)\n' +
      'EndOfStreamException: Unable to read additional data from server sessionid 0x1000015140e0002, likely server has closed socket\n' +
      '\tat org.apache.zookeeper.ClientCnxnSocketNIO.doIO(ClientCnxnSocketNIO.java:77)',
    [{ name: 'zk.disconnected' }],
  ],
  [
    'ZooKeeper 3.8.4 ClientCnxn retries a second apart (lab-zk-kill): one disconnect per session and second',
    '[2026-12-01 12:17:35,442] INFO Opening socket connection to server /127.0.0.1:37677. (org.apache.zookeeper.ClientCnxn)\n' +
      '[2026-12-01 12:17:35,443] WARN Session 0x1000015140e0002 for server /127.0.0.1:37677, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)\n' +
      'java.net.ConnectException: Connection refused\n' +
      '[2026-12-01 12:17:35,943] WARN Session 0x1000015140e0002 for server /127.0.0.1:37677, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)\n' +
      'java.net.ConnectException: Connection refused\n' +
      '[2026-12-01 12:17:37,528] WARN Session 0x1000015140e0002 for server /127.0.0.1:37677, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)\n' +
      'java.net.ConnectException: Connection refused',
    [{ name: 'zk.disconnected' }, { name: 'zk.disconnected' }],
  ],
  [
    'ZooKeeper ClientCnxn with its "for sever" misspelling (test/corpus/zk-timeout-injected-network-latency)',
    '[2022-09-23 15:25:24,780] WARN Session 0x100000045930005 for sever zookeeper/10.20.20.10:2181, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)\n' +
      'org.apache.zookeeper.ClientCnxn$SessionTimeoutException: Client session timed out, have not heard from server in 12001ms for session id 0x100000045930005',
    [{ name: 'zk.disconnected' }],
  ],
  [
    'Kafka 3.x ReplicationControlManager (KRaft controller) fences broker 2',
    '[2024-05-01 10:00:00,123] INFO [QuorumController id=1] Fencing broker 2 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)',
    [{ name: 'kraft.broker_fenced', broker: '2', labels: { fenced_broker: '2' } }],
  ],
  [
    'Kafka 4.1.1 ReplicationControlManager names the fenced broker\'s epoch (test/incidents/lab-stw-kraft-4.1.1)',
    '[2026-12-01 12:28:38,071] INFO [QuorumController id=2] Fencing broker 1 at epoch 12 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)',
    [{ name: 'kraft.broker_fenced', broker: '1', labels: { fenced_broker: '1' } }],
  ],
  [
    'Kafka 3.x BrokerLifecycleManager heartbeat RPC timeout',
    '[2024-05-01 10:00:00,123] INFO [BrokerLifecycleManager id=2] Unable to send a heartbeat because the RPC got timed out before it could be sent. (kafka.server.BrokerLifecycleManager)',
    [{ name: 'kraft.heartbeat_failed', broker: '2' }],
  ],
  [
    'Kafka 0.10.2.1 Partition.scala "Partition [t,p] on broker N: Shrinking ISR for partition [t,p]"',
    '[2017-07-29 10:00:00,000] INFO Partition [orders,3] on broker 1: Shrinking ISR for partition [orders,3] from 1,2 to 1 (kafka.cluster.Partition)',
    [{ name: 'isr.shrink', broker: '1', labels: { topic: 'orders', partition: '3', from: '1,2', to: '1' } }],
  ],
  [
    'Kafka 0.10.2.1 Partition.scala "Expanding ISR for partition t-p"',
    '[2017-07-29 10:00:05,000] INFO Partition [orders,3] on broker 1: Expanding ISR for partition orders-3 from 1 to 1,2 (kafka.cluster.Partition)',
    [{ name: 'isr.expand', broker: '1', labels: { topic: 'orders', partition: '3', from: '1', to: '1,2' } }],
  ],
  [
    // seed 002's line, translated in the report; Kafka 1.0.1 Partition.scala gives the English wording
    // "[Partition $topicPartition broker=$localBrokerId] Shrinking ISR from %s to %s". The report also
    // lost the leading "[2" of the timestamp; both are restored here.
    'seed 002 (reconstructed): Kafka 1.0.1 "[Partition t-p broker=N] Shrinking ISR from"',
    '[2018-03-24 13:43:00,285] INFO [Partition gnup.source.offset.storage.topic-5 broker=1001] Shrinking ISR from 1001,1002 to 1001 (kafka.cluster.Partition)',
    [{ name: 'isr.shrink', broker: '1001', labels: { topic: 'gnup.source.offset.storage.topic', partition: '5', from: '1001,1002', to: '1001' } }],
  ],
  [
    'Kafka 1.0.1 Partition.scala "Expanding ISR from"',
    '[2018-03-24 13:45:00,000] INFO [Partition s1mme.data-72 broker=1001] Expanding ISR from 1001 to 1001,1002 (kafka.cluster.Partition)',
    [{ name: 'isr.expand', broker: '1001', labels: { topic: 's1mme.data', partition: '72', from: '1001', to: '1001,1002' } }],
  ],
  [
    'Kafka 3.6 Partition.scala shrink then "ISR updated to … and version updated to" confirming it (one signal)',
    '[2024-05-01 10:00:00,000] INFO [Partition orders-3 broker=1] Shrinking ISR from 1,2,3 to 1,3. Leader: (highWatermark: 100, endOffset: 120). Out of sync replicas: (brokerId: 2, endOffset: 90, lastCaughtUpTimeMs: 1714557600000). (kafka.cluster.Partition)\n' +
      '[2024-05-01 10:00:00,010] INFO [Partition orders-3 broker=1] ISR updated to 1,3  and version updated to 7 (kafka.cluster.Partition)',
    [{ name: 'isr.shrink', broker: '1', labels: { topic: 'orders', partition: '3', from: '1,2,3', to: '1,3' } }],
  ],
  [
    'Kafka 3.6 Partition.scala "ISR updated to" after a shrink grows the ISR again (2.7+ logs no "Expanding ISR")',
    '[2024-05-01 10:00:00,000] INFO [Partition orders-3 broker=1] Shrinking ISR from 1,2,3 to 1,3. Leader: (highWatermark: 100, endOffset: 120). Out of sync replicas: (brokerId: 2, endOffset: 90, lastCaughtUpTimeMs: 1714557600000). (kafka.cluster.Partition)\n' +
      '[2024-05-01 10:00:30,000] INFO [Partition orders-3 broker=1] ISR updated to 1,3,2  and version updated to 8 (kafka.cluster.Partition)',
    [
      { name: 'isr.shrink', broker: '1', labels: { topic: 'orders', partition: '3', from: '1,2,3', to: '1,3' } },
      { name: 'isr.expand', broker: '1', labels: { topic: 'orders', partition: '3', from: '1,3', to: '1,3,2' } },
    ],
  ],
  [
    'Kafka 3.x Partition.scala "(under-min-isr)" form',
    '[2024-05-01 10:00:00,010] INFO [Partition orders-3 broker=1] ISR updated to 1 (under-min-isr) and version updated to 9 (kafka.cluster.Partition)',
    [{ name: 'isr.expand', broker: '1', labels: { topic: 'orders', partition: '3', to: '1' } }],
  ],
  [
    'Kafka 2.8 PartitionStateMachine state-change log, LeaderAndIsr(leader=…)',
    '[2021-05-01 10:00:00,000] INFO [Controller id=1 epoch=5] Changed partition orders-3 from OnlinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=6, isr=List(2, 3), zkVersion=7) (state.change.logger)',
    [{ name: 'leader.change', broker: '1', labels: { topic: 'orders', partition: '3', to: '2' } }],
  ],
  [
    'Kafka 2.8 Partition.makeLeader state-change log "Leader t-p starts at leader epoch"',
    '[2021-05-01 10:00:00,100] INFO [Broker id=2] Leader orders-3 starts at leader epoch 6 from offset 120 with high watermark 100 ISR [2,3] addingReplicas [] removingReplicas []. Previous leader epoch was 5. (state.change.logger)',
    [{ name: 'leader.change', broker: '2', labels: { topic: 'orders', partition: '3' } }],
  ],
  [
    'Kafka 2.2-3.x Log/LocalLog "Rolled new log segment at offset"',
    '[2024-01-10 09:00:00,100] INFO [LocalLog partition=LoadTestingTopic-0, dir=/broder/log] Rolled new log segment at offset 3400211 in 1 ms. (kafka.log.LocalLog)',
    [{ name: 'log.segment_roll', labels: { topic: 'LoadTestingTopic', partition: '0' } }],
  ],
  [
    'Kafka 0.10.2.1 Log.scala "Rolled new log segment for \'t-p\'"',
    "[2017-07-29 10:00:00,000] INFO Rolled new log segment for 'orders-3' in 2 ms. (kafka.log.Log)",
    [{ name: 'log.segment_roll', labels: { topic: 'orders', partition: '3' } }],
  ],
  [
    'Kafka 1.0-4.x ReplicaManager "Halting broker because dir … is offline"',
    '[2024-01-10 09:00:01,000] FATAL [ReplicaManager broker=1] Halting broker because dir /broder/log is offline (kafka.server.ReplicaManager)',
    [{ name: 'log.dir_failure', broker: '1', labels: { dir: '/broder/log' } }],
  ],
  [
    'Kafka 2.4+ GroupCoordinator "Preparing to rebalance group g in state S with old generation N … (reason: …)"',
    '[2020-01-01 10:00:00,000] INFO [GroupCoordinator 1001]: Preparing to rebalance group connect-VOICE_1_SINK_CONN in state PreparingRebalance with old generation 26 (__consumer_offsets-18) (reason: Adding new member connect-1) (kafka.coordinator.group.GroupCoordinator)',
    [{ name: 'group.rebalance', broker: '1001', labels: { group: 'connect-VOICE_1_SINK_CONN', generation: '26' } }],
  ],
  [
    'Kafka 0.10.2.1 GroupCoordinator "Preparing to restabilize group"',
    '[2019-07-29 10:00:00,000] INFO [GroupCoordinator 3]: Preparing to restabilize group churner with old generation 41 (kafka.coordinator.GroupCoordinator)',
    [{ name: 'group.rebalance', broker: '3', labels: { group: 'churner', generation: '41' } }],
  ],
  [
    'Kafka 1.0-3.x GroupCoordinator "Member m in group g has failed, removing it from the group"',
    '[2020-01-01 10:00:10,000] INFO [GroupCoordinator 1001]: Member consumer-1-7f3a in group churner has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)',
    [{ name: 'group.member_failed', broker: '1001', labels: { group: 'churner', member: 'consumer-1-7f3a' } }],
  ],
  [
    // seed 002's line, translated in the report ("稳定的组连接-VOICE_1_SINK_CONN 第 26 代"); Kafka 1.0.1
    // GroupCoordinator.scala wording "Stabilized group $g generation $n (__consumer_offsets-$p)".
    'seed 002 (reconstructed): Kafka 1.0.1 "Stabilized group g generation N"',
    '[2018-03-24 13:43:01,447] INFO [GroupCoordinator 1001]: Stabilized group connect-VOICE_1_SINK_CONN generation 26 (__consumer_offsets-18) (kafka.coordinator.group.GroupCoordinator)',
    [{ name: 'group.stable', broker: '1001', labels: { group: 'connect-VOICE_1_SINK_CONN', generation: '26' } }],
  ],
  [
    'Kafka 4.x GroupMetadataManager.java (classic group) rebalance, member failure and stabilisation',
    '[2025-03-01 10:00:00,000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=18] Preparing to rebalance group churner in state PreparingRebalance with old generation 41 (reason: Adding new member consumer-1-9b2c with group instance id null). (org.apache.kafka.coordinator.group.GroupMetadataManager)\n' +
      '[2025-03-01 10:00:45,000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=18] Member consumer-1-9b2c in group churner has failed, removing it from the group. (org.apache.kafka.coordinator.group.GroupMetadataManager)\n' +
      '[2025-03-01 10:00:48,000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=18] Stabilized group churner generation 43 with 1 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)',
    [
      { name: 'group.rebalance', broker: '1', labels: { group: 'churner', generation: '41' } },
      { name: 'group.member_failed', broker: '1', labels: { group: 'churner', member: 'consumer-1-9b2c' } },
      { name: 'group.stable', broker: '1', labels: { group: 'churner', generation: '43' } },
    ],
  ],
  [
    'Kafka 2.8 ReplicaManager append error with Partition.scala NotEnoughReplicasException',
    '[2021-05-01 10:00:00,000] ERROR [ReplicaManager broker=1] Error processing append operation on partition orders-3 (kafka.server.ReplicaManager)\n' +
      'org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR Set(1) is insufficient to satisfy the min.isr requirement of 2 for partition orders-3\n' +
      '\tat kafka.cluster.Partition.appendRecordsToLeader(Partition.scala:1064)',
    [{ name: 'produce.not_enough_replicas', broker: '1', labels: { topic: 'orders', partition: '3' } }],
  ],
  [
    'Kafka 2.8 AbstractFetcherThread "Error for partition t-p at offset O" under the ReplicaFetcher prefix',
    '[2021-05-01 10:00:00,000] ERROR [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Error for partition orders-3 at offset 120 (kafka.server.ReplicaFetcherThread)',
    [{ name: 'replica.fetch_error', broker: '1', labels: { topic: 'orders', partition: '3', leader: '2' } }],
  ],
  ['Kafka 1.0-3.x KafkaServer "[KafkaServer id=N] started"', '[2020-01-01 10:00:00,000] INFO [KafkaServer id=1001] started (kafka.server.KafkaServer)', [{ name: 'broker.start', broker: '1001' }]],
  ['Kafka 0.10.2.1 KafkaServer "[Kafka Server N], started"', '[2019-07-29 10:00:00,000] INFO [Kafka Server 3], started (kafka.server.KafkaServer)', [{ name: 'broker.start', broker: '3' }]],
  ['Kafka 2.8-4.x KafkaRaftServer "Kafka Server started"', '[2024-05-01 10:00:00,000] INFO Kafka Server started (kafka.server.KafkaRaftServer)', [{ name: 'broker.start' }]],
  [
    'Kafka 2.8 KafkaController "N successfully elected as the controller. Epoch incremented to …"',
    '[2021-05-01 10:00:00,000] INFO [Controller id=2] 2 successfully elected as the controller. Epoch incremented to 6 and epoch zk version is now 6 (kafka.controller.KafkaController)',
    [{ name: 'controller.change', broker: '2', labels: { controller: '2' } }],
  ],
  [
    'Kafka 3.x QuorumController "Becoming the active controller at epoch E, next write offset O."',
    '[2024-05-01 10:00:00,000] INFO [QuorumController id=3000] Becoming the active controller at epoch 7, next write offset 1042. (org.apache.kafka.controller.QuorumController)',
    [{ name: 'controller.change', broker: '3000', labels: { controller: '3000' } }],
  ],
  ['Kafka 1.0-3.x KafkaServer "shutting down"', '[2020-01-01 11:00:00,000] INFO [KafkaServer id=1001] shutting down (kafka.server.KafkaServer)', [{ name: 'broker.shutdown', broker: '1001' }]],
  [
    'Kafka 0.10.2.1 AppInfoParser "Kafka version : "',
    '[2019-07-29 10:00:00,000] INFO Kafka version : 0.10.2.1 (org.apache.kafka.common.utils.AppInfoParser)',
    [{ name: 'broker.version', value: encodeVersion('0.10.2.1'), labels: { version: '0.10.2.1' } }],
  ],
  [
    'Kafka 3.6 AppInfoParser "Kafka version: " logged twice counts once',
    '[2024-01-10 09:00:00,000] INFO Kafka version: 3.6.0 (org.apache.kafka.common.utils.AppInfoParser)\n[2024-01-10 09:00:01,000] INFO Kafka version: 3.6.0 (org.apache.kafka.common.utils.AppInfoParser)',
    [{ name: 'broker.version', value: encodeVersion('3.6.0'), labels: { version: '3.6.0' } }],
  ],
  [
    // Kafka SocketServer.scala (1.0.1-3.x) "Error while accepting connection"; the IOException text is the
    // C library's strerror(EMFILE), which a zh_CN locale translates.
    'Kafka Acceptor with the zh_CN "Too many open files"',
    '[2024-01-10 09:00:02,000] ERROR Error while accepting connection (kafka.network.Acceptor)\njava.io.IOException: 打开的文件过多\n\tat sun.nio.ch.ServerSocketChannelImpl.accept0(Native Method)',
    [{ name: 'fd.exhausted' }],
  ],
  [
    'Kafka 3.9.1 ZkConfigManager topic override as the broker applies it (lab-roll-storm): a config fact',
    '[2026-11-29 20:10:50,388] INFO Processing override for entityPath: topics/LoadTestingTopic with config: HashMap(segment.ms -> 100) (kafka.server.ZkConfigManager)',
    [{ name: 'config.segment_ms', value: 100, labels: { topic: 'LoadTestingTopic' } }],
  ],
  [
    // Scala 2.13 Map.toString of the topic's whole override set; keys without a catalogue fact give nothing.
    'Kafka 3.x ZkConfigManager override with several keys, one value holding ", "',
    '[2026-11-29 20:10:50,388] INFO Processing override for entityPath: topics/orders with config: HashMap(leader.replication.throttled.replicas -> 0:1, 1:2, retention.ms -> 3600000, min.insync.replicas -> 2) (kafka.server.ZkConfigManager)',
    [
      { name: 'config.retention_ms', value: 3_600_000, labels: { topic: 'orders' } },
      { name: 'config.min_insync_replicas', value: 2, labels: { topic: 'orders' } },
    ],
  ],
  [
    'Kafka 3.9.1 KRaft DynamicConfigPublisher applying a topic change on every broker (lab-kraft-quorum-loss)',
    '[2026-12-01 15:25:41,535] INFO [DynamicConfigPublisher broker id=1] Updating topic orders with new configuration : min.insync.replicas -> 2 (kafka.server.metadata.DynamicConfigPublisher)',
    [{ name: 'config.min_insync_replicas', value: 2, labels: { topic: 'orders' } }],
  ],
  [
    'Kafka 3.9.1 ZkAdminManager taking a topic change on the broker that handled it (lab-roll-storm)',
    '[2026-11-29 20:10:50,305] INFO [Admin Manager on Broker 1]: Updating topic LoadTestingTopic with new configuration : segment.ms -> 100 (kafka.server.ZkAdminManager)',
    [{ name: 'config.segment_ms', value: 100, labels: { topic: 'LoadTestingTopic' } }],
  ],
]

const clientRows: Row[] = [
  [
    'seed 000: kafka-producer-perf-test (Kafka 0.10-2.x ProducerPerformance) progress line, no timestamp',
    '276603 records sent, 21408.9 records/sec (20.91 MB/sec), 103.0 ms avg latency, 10743.0 max latency.',
    [
      { name: 'producer.throughput', value: 21408.9 },
      { name: 'producer.max_latency', value: 10743 },
    ],
  ],
  [
    'Kafka 3.x ProducerPerformance progress line ("… ms max latency.")',
    '600264 records sent, 120052.8 records/sec (117.24 MB/sec), 2.0 ms avg latency, 13.0 ms max latency.',
    [
      { name: 'producer.throughput', value: 120052.8 },
      { name: 'producer.max_latency', value: 13 },
    ],
  ],
  [
    'seed 000: NotLeaderForPartitionException as the producer prints it',
    'org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the leader for that topic-partition.',
    [{ name: 'client.not_leader' }],
  ],
  [
    'Kafka 1.0.1 Sender "Got error produce response with correlation id … on topic-partition t-p, retrying … Error: NOT_LEADER_FOR_PARTITION"',
    '[2018-08-06 01:28:03,100] WARN [Producer clientId=producer-1] Got error produce response with correlation id 8812 on topic-partition kf.p36.r4-35, retrying (2 attempts left). Error: NOT_LEADER_FOR_PARTITION (org.apache.kafka.clients.producer.internals.Sender)',
    [{ name: 'client.not_leader', labels: { topic: 'kf.p36.r4', partition: '35' } }],
  ],
  [
    'Kafka 2.6+ Sender "Received invalid metadata error in produce request on partition t-p due to …NotLeaderOrFollowerException"',
    '[2024-05-01 10:00:00,000] WARN [Producer clientId=producer-1] Received invalid metadata error in produce request on partition orders-3 due to org.apache.kafka.common.errors.NotLeaderOrFollowerException: For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.. Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)',
    [{ name: 'client.not_leader', labels: { topic: 'orders', partition: '3' } }],
  ],
]

const gcRows: Row[] = [
  [
    'seed 000: JDK 8 PrintGCApplicationStoppedTime with date and uptime stamps',
    '2018-08-13T22:16:09.744-0400: 491.491: Total time for which application threads were stopped: 3.3021375 seconds, Stopping threads took: 3.3018193 seconds',
    [
      { name: 'safepoint.total', value: 3302.1375 },
      { name: 'safepoint.sync', value: 3301.8193 },
    ],
  ],
  [
    'JDK 11 (runtimeService.cpp, JDK 9-12) -Xlog:safepoint with time,uptime,level,tags decorators',
    '[2021-09-14T11:40:53.379-0500][144.036s][info][safepoint     ] Total time for which application threads were stopped: 0.0004546 seconds, Stopping threads took: 0.0002048 seconds',
    [
      { name: 'safepoint.total', value: 0.4546 },
      { name: 'safepoint.sync', value: 0.2048 },
    ],
  ],
  [
    'JDK 13-16 safepoint.cpp SafepointTracing::end',
    '[2021-01-01T00:00:00.062+0000][0.062s][info][safepoint   ] Safepoint "G1CollectForAllocation", Time since last: 22756680 ns, Reaching safepoint: 19114 ns, At safepoint: 910407 ns, Total: 929521 ns',
    [
      { name: 'safepoint.sync', value: 0.019114, labels: { operation: 'G1CollectForAllocation' } },
      { name: 'safepoint.total', value: 0.929521, labels: { operation: 'G1CollectForAllocation' } },
    ],
  ],
  [
    'JDK 17 adds "Cleanup:"',
    '[2022-01-01T00:00:02.153+0000][info][safepoint] Safepoint "ICBufferFull", Time since last: 202293883 ns, Reaching safepoint: 2070 ns, Cleanup: 88040 ns, At safepoint: 1110 ns, Total: 91220 ns',
    [
      { name: 'safepoint.sync', value: 0.00207, labels: { operation: 'ICBufferFull' } },
      { name: 'safepoint.total', value: 0.09122, labels: { operation: 'ICBufferFull' } },
    ],
  ],
  [
    'JDK 21 adds "Leaving safepoint:"',
    '[2026-06-09T17:10:55.207+0000][0.278s][info][safepoint] Safepoint "G1CollectForAllocation", Time since last: 64444016 ns, Reaching safepoint: 3047 ns, Cleanup: 34865 ns, At safepoint: 2472966 ns, Leaving safepoint: 2519 ns, Total: 2513397 ns',
    [
      { name: 'safepoint.sync', value: 0.003047, labels: { operation: 'G1CollectForAllocation' } },
      { name: 'safepoint.total', value: 2.513397, labels: { operation: 'G1CollectForAllocation' } },
    ],
  ],
  [
    'JDK 25 drops Cleanup, appends Threads',
    '[2026-09-02T02:43:47.726-0300][1.363s][info][safepoint] Safepoint "G1CollectFull", Time since last: 155500 ns, Reaching safepoint: 10700 ns, At safepoint: 2808000 ns, Leaving safepoint: 4500 ns, Total: 2823200 ns, Threads: 1 runnable, 12 total',
    [
      { name: 'safepoint.sync', value: 0.0107, labels: { operation: 'G1CollectFull' } },
      { name: 'safepoint.total', value: 2.8232, labels: { operation: 'G1CollectFull' } },
    ],
  ],
  [
    'JDK 17 -Xlog:gc+cpu of a pause that waited for CPU (lab-cpu-starved, broker 3 at 5% of a core)',
    '[2026-12-01T15:01:09.698+0000][48.180s][info][gc,cpu      ] GC(28) User=0.01s Sys=0.00s Real=0.20s',
    [{ name: 'gc.off_cpu', value: 190 }],
  ],
  [
    'JDK 17 -Xlog:gc+cpu of a pause that got its CPU (lab-cpu-starved, broker 3 before the quota): nothing',
    '[2026-12-01T15:00:24.294+0000][2.776s][info][gc,cpu      ] GC(0) User=0.00s Sys=0.02s Real=0.08s',
    [],
  ],
  [
    'JDK 11 unified G1 "Pause Young (Concurrent Start) (G1 Humongous Allocation)" with a time decorator',
    '[2021-01-01T00:00:00.182+0000][info][gc] GC(0) Pause Young (Concurrent Start) (G1 Humongous Allocation) 235M->4M(512M) 3.894ms',
    [
      { name: 'gc.pause', value: 3.894, labels: { kind: 'young', cause: 'G1 Humongous Allocation', collector: 'G1' } },
      { name: 'heap.after_gc', value: 4 * 1024 ** 2, labels: { kind: 'young' } },
      { name: 'heap.max', value: 512 * 1024 ** 2 },
    ],
  ],
  [
    'JDK 11 unified "Pause Remark"',
    '[2021-01-01T00:00:00.184+0000][info][gc] GC(1) Pause Remark 33M->33M(512M) 0.402ms',
    [
      { name: 'gc.pause', value: 0.402, labels: { kind: 'remark' } },
      { name: 'heap.after_gc', value: 33 * 1024 ** 2, labels: { kind: 'remark' } },
      { name: 'heap.max', value: 512 * 1024 ** 2 },
    ],
  ],
  [
    'JDK 17 unified "Pause Full (System.gc())" (nested parentheses in the cause)',
    '[2022-01-01T00:00:00.044+0000][info][gc] GC(8) Pause Full (System.gc()) 25M->1M(16M) 1.109ms',
    [
      { name: 'gc.pause', value: 1.109, labels: { kind: 'full', cause: 'System.gc()' } },
      { name: 'heap.after_gc', value: 1024 ** 2, labels: { kind: 'full' } },
      { name: 'heap.max', value: 16 * 1024 ** 2 },
    ],
  ],
  [
    'JDK 8 G1 PrintGCDetails: pause on the first line, heap on the "[Eden: … Heap:" line of the record',
    '2021-01-15T15:17:17.881+0800: 1.088: [GC pause (G1 Evacuation Pause) (mixed), 0.0057163 secs]\n' +
      '   [Parallel Time: 4.3 ms, GC Workers: 8]\n' +
      '   [Eden: 204.0M(204.0M)->0.0B(178.0M) Survivors: 0.0B->26.0M Heap: 204.0M(4096.0M)->65.2M(4096.0M)]\n' +
      ' [Times: user=0.00 sys=0.00, real=0.01 secs]',
    [
      { name: 'gc.pause', value: 5.7163, labels: { kind: 'mixed', cause: 'G1 Evacuation Pause', collector: 'G1' } },
      { name: 'heap.after_gc', value: Math.round(65.2 * 1024 ** 2), labels: { kind: 'mixed' } },
      { name: 'heap.max', value: 4096 * 1024 ** 2 },
    ],
  ],
  [
    'JDK 8 G1 "[Full GC (Allocation Failure)"',
    '2021-01-15T15:17:20.000+0800: 3.200: [Full GC (Allocation Failure)  18M->18M(20M), 0.0719656 secs]',
    [
      { name: 'gc.pause', value: 71.9656, labels: { kind: 'full', cause: 'Allocation Failure' } },
      { name: 'heap.after_gc', value: 18 * 1024 ** 2, labels: { kind: 'full' } },
      { name: 'heap.max', value: 20 * 1024 ** 2 },
    ],
  ],
  [
    'JDK 8 Parallel young, one line',
    '2020-10-25T10:57:51.647+0800: 0.512: [GC (Allocation Failure) [PSYoungGen: 131584K->21501K(153088K)] 131584K->43650K(502784K), 0.0073107 secs] [Times: user=0.00 sys=0.00, real=0.01 secs]',
    [
      { name: 'gc.pause', value: 7.3107, labels: { kind: 'young', cause: 'Allocation Failure', collector: 'Parallel' } },
      { name: 'heap.after_gc', value: 43650 * 1024, labels: { kind: 'young' } },
      { name: 'heap.max', value: 502784 * 1024 },
    ],
  ],
  [
    'JDK 8 Parallel Full GC with ParOldGen and Metaspace',
    '2020-10-25T10:57:52.000+0800: 0.900: [Full GC (System.gc()) [PSYoungGen: 1047K->0K(38400K)] [ParOldGen: 8K->937K(87552K)] 1055K->937K(125952K), [Metaspace: 2988K->2988K(1056768K)], 0.0050370 secs] [Times: user=0.01 sys=0.00, real=0.01 secs]',
    [
      { name: 'gc.pause', value: 5.037, labels: { kind: 'full', cause: 'System.gc()', collector: 'Parallel' } },
      { name: 'heap.after_gc', value: 937 * 1024, labels: { kind: 'full' } },
      { name: 'heap.max', value: 125952 * 1024 },
    ],
  ],
  [
    'JDK 8 CMS ParNew young with repeated date stamps',
    '2020-10-27T23:05:04.012-0800: 0.162: [GC (Allocation Failure) 2020-10-27T23:05:04.012-0800: 0.162: [ParNew: 139776K->17471K(157248K), 0.0244108 secs] 139776K->49466K(244672K), 0.0245300 secs] [Times: user=0.02 sys=0.04, real=0.02 secs] ',
    [
      { name: 'gc.pause', value: 24.53, labels: { kind: 'young', cause: 'Allocation Failure', collector: 'CMS' } },
      { name: 'heap.after_gc', value: 49466 * 1024, labels: { kind: 'young' } },
      { name: 'heap.max', value: 244672 * 1024 },
    ],
  ],
]

describe('adapters/logs/matchers', () => {
  it.each(kafkaRows)('%s', (_label, text, expected) => {
    const r = parse(text, { format: 'kafka' })
    expect(specific(r.signals).map(brief)).toEqual(expected)
    for (const s of r.signals) {
      expect(text.split('\n')).toContain(s.text?.split('\n')[0])
      expect(s.source).toMatch(/^log:test\.log:\d+$/)
    }
  })

  it.each(clientRows)('%s', (_label, text, expected) => {
    const r = parse(text, { format: 'client', start: Date.parse('2018-08-06T01:27:30Z') })
    expect(specific(r.signals).map(brief)).toEqual(expected)
    expect(r.signals.every((s) => s.broker === undefined)).toBe(true)
  })

  it.each(gcRows)('%s', (_label, text, expected) => {
    const r = parse(text, { format: 'gc' })
    expect(r.signals.map(brief)).toEqual(expected)
  })

  it('gives every signal a catalogue name and only catalogue labels', () => {
    const all = [
      ...kafkaRows.flatMap(([, text]) => parse(text, { format: 'kafka' }).signals),
      ...clientRows.flatMap(([, text]) => parse(text, { format: 'client', start: 0 }).signals),
      ...gcRows.flatMap(([, text]) => parse(text, { format: 'gc' }).signals),
    ]
    for (const s of all) {
      const entry = CATALOGUE[s.name as keyof typeof CATALOGUE]
      expect(entry, s.name).toBeDefined()
      for (const l of Object.keys(s.labels ?? {})) expect(entry.labels as readonly string[], `${s.name}.${l}`).toContain(l)
    }
  })

  it('prefers the configured broker over the one a line names', () => {
    const line = '[2018-03-24 13:43:00,285] INFO [Partition gnup.source.offset.storage.topic-5 broker=1001] Shrinking ISR from 1001,1002 to 1001 (kafka.cluster.Partition)'
    expect(parse(line, { broker: '7' }).signals[0].broker).toBe('7')
  })

  it('reads a log4j time in the source time zone and keeps the raw line as evidence', () => {
    const line = '[2018-08-06 01:28:02,562] WARN Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)'
    expect(parse(line, { timeZone: '+08:00' }).signals[0].at).toBe(Date.parse('2018-08-06T01:28:02.562+08:00'))
    expect(parse(line, { timeZone: 'Asia/Shanghai' }).signals[0].at).toBe(Date.parse('2018-08-06T01:28:02.562+08:00'))
    expect(parse(line).signals[0].at).toBe(Date.parse('2018-08-06T01:28:02.562Z'))
  })

  it('places a JDK 11 unified line with only the uptime decorator by the JVM start, and counts one with no time', () => {
    const line = '[0.182s][info][gc] GC(0) Pause Young (Concurrent Start) (G1 Humongous Allocation) 235M->4M(512M) 3.894ms'
    const jvmStart = Date.parse('2021-01-01T00:00:00Z')
    expect(parse(line, { format: 'gc', jvmStart }).signals.map((s) => s.at)).toEqual([jvmStart + 182, jvmStart + 182, jvmStart + 182])
    const bare = parse(line.replace('[0.182s]', ''), { format: 'gc', jvmStart })
    expect(bare.signals).toEqual([])
    expect(bare.stats.unparsed['no-timestamp']).toBe(1)
  })

  it('places uptime-only JVM lines by the configured JVM start (seed 000 statistics row)', () => {
    const row = '        488.188: no vm operation      [      73          1              1    ]      [     1     0  3301     0     0    ]  1'
    const jvmStart = Date.parse('2018-08-13T22:07:58.253-04:00')
    const r = parse(row, { format: 'gc', jvmStart })
    expect(r.signals.map(brief)).toEqual([{ name: 'safepoint.sync', value: 3301, labels: { operation: 'no vm operation' } }])
    // The row is stamped when the safepoint began; the sync is filed at its end (a pause is an interval).
    expect(r.signals[0].at).toBe(jvmStart + 488_188 + 3301)
    const unanchored = parse(row, { format: 'gc' })
    expect(unanchored.signals).toEqual([])
    expect(unanchored.stats.unparsed['no-timestamp']).toBe(1)
  })
})
