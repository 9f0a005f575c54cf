import { describe, expect, it } from 'vitest'
import { foreignProtocol, GOTCHA_IDS, GOTCHA_MATCHERS, javaOfClassVersion } from '../../../adapters/logs/gotcha-matchers.js'
import { CATALOGUE } from '../../../signals/catalogue.js'
import { parse } from './helpers.js'

// Each row: a record verbatim from the public report named, and the setup.mistake it must give. The
// wording of each mechanism is cited per row in adapters/logs/gotcha-matchers.ts.

type Row = [source: string, text: string, labels: Record<string, string>]

const rows: Row[] = [
  [
    'quarkusio/quarkus-quickstarts#1088: a browser on the Kafka port, the report wrapping the size',
    'kafka_1      | [2022-03-21 13:19:45,515] WARN [SocketServer brokerId=0] Unexpected error from /172.21.0.1; closing\n' +
      'connection (org.apache.kafka.common.network.Selector)\n' +
      'kafka_1      | org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 1195725856 larger t\n' +
      'han 104857600)\n' +
      'kafka_1      |  at org.apache.kafka.common.network.NetworkReceive.readFrom(NetworkReceive.java:105)\n' +
      'kafka_1      |  at org.apache.kafka.common.network.KafkaChannel.receive(KafkaChannel.java:448)',
    { id: 'http-client-on-kafka-listener', detail: '1195725856' },
  ],
  [
    'confluentinc/cp-docker-images#869: a TLS ClientHello on a PLAINTEXT listener',
    '[2020-08-11 01:49:34,315] WARN [SocketServer brokerId=0] Unexpected error from /172.20.0.220; closing connection (org.apache.kafka.common.network.Selector)\n' +
      'org.apache.kafka.common.network.InvalidReceiveException: Invalid receive (size = 369295616 larger than 104857600)',
    { id: 'tls-client-on-plaintext-listener', detail: '369295616' },
  ],
  [
    'HomeAdvisor/Kafdrop#61: Kafka 3.2 SaslServerAuthenticator',
    '[2022-09-25 23:14:12,390] INFO [SocketServer listenerType=ZK_BROKER, nodeId=0] Failed authentication with /127.0.0.1 (channelId=127.0.0.1:9092-127.0.0.1:51704-68) (Unexpected Kafka request of type METADATA during SASL handshake.) (org.apache.kafka.common.network.Selector)',
    { id: 'plaintext-client-on-sasl-listener', detail: 'METADATA' },
  ],
  [
    'kafka-dev/kafka#107: Kafka 4.0 MetaPropertiesEnsemble',
    '[2025-07-01 15:23:17,398] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)\n' + 'java.lang.RuntimeException: No readable meta.properties files found.',
    { id: 'kraft-storage-not-formatted' },
  ],
  [
    'voxpupuli/puppet-kafka#117: Kafka 0.10 InconsistentBrokerIdException',
    '[2016-11-18 13:25:28,138] FATAL Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n' +
      "kafka.common.InconsistentBrokerIdException: Configured broker.id 3 doesn't match stored broker.id 1 in meta.properties. If you moved your data, make sure your configured broker.id matches. If you intend to create a new broker, you should remove all data in your data directories (log.dirs).",
    { id: 'stored-node-id-mismatch', detail: 'configured 3, stored 1' },
  ],
  [
    'getsentry/snuba#6562: KRaft InconsistentNodeIdException behind a compose prefix',
    'kafka-1  | [2024-11-12 17:32:18,344] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)\n' +
      "kafka-1  | kafka.common.InconsistentNodeIdException: Configured node.id `1001` doesn't match stored node.id `1389' in meta.properties. If you moved your data, make sure your configured controller.id matches. If you intend to create a new broker, you should remove all data in your data directories (log.dirs).",
    { id: 'stored-node-id-mismatch', detail: 'configured 1001, stored 1389' },
  ],
  [
    'mesos/kafka#135: Kafka 0.8 Acceptor bind failure',
    '[2015-10-15 19:57:16,258] FATAL [Kafka Server 1], Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n' +
      'kafka.common.KafkaException: Socket server failed to bind to 10.203.53.13:31000: Cannot assign requested address.',
    { id: 'listener-address-not-local', detail: '10.203.53.13:31000' },
  ],
  [
    'streamnative/kop#1569: clients SaslClientAuthenticator on a listener without SASL',
    '[2022-11-16 04:24:49,490] ERROR [Producer clientId=console-producer] Connection to node -1 failed authentication due to: Unexpected handshake request with client mechanism PLAIN, enabled mechanisms are [] (org.apache.kafka.clients.NetworkClient)',
    { id: 'sasl-client-on-plaintext-listener', detail: 'PLAIN', subject: '[]' },
  ],
  [
    'ramhiser/kafka-kubernetes#5: an advertised host that does not resolve',
    '[2021-03-30 08:46:32,929] WARN [Controller id=1001, targetBrokerId=1001] Error connecting to node kubernetes-master:9092 (id: 1001 rack: null) (org.apache.kafka.clients.NetworkClient)\n' +
      'java.net.UnknownHostException: kubernetes-master\n' +
      '        at java.net.InetAddress.getAllByName0(InetAddress.java:1281)',
    { id: 'broker-host-unresolvable', detail: 'kubernetes-master:9092', subject: '1001' },
  ],
  [
    'bitnami/containers#67247: a KRaft voter host that does not resolve',
    '[2024-05-25 15:54:03,255] WARN [RaftManager id=0] Error connecting to node kafka-1:9093 (id: 1 rack: null) (org.apache.kafka.clients.NetworkClient)\n' +
      'java.net.UnknownHostException: kafka-1\n' +
      '\tat java.base/java.net.InetAddress$CachedAddresses.get(InetAddress.java:801)',
    { id: 'quorum-voter-host-unresolvable', detail: 'kafka-1:9093', subject: '1' },
  ],
  [
    'banzaicloud/koperator#816: clients 2.x ClientUtils bootstrap DNS failure',
    "[2022-05-19 15:22:13,767] WARN Couldn't resolve server kafka-myname-headless.mynamespace.svc.cluster.local:29092 from bootstrap.servers as DNS resolution failed for kafka-myname-headless.mynamespace.svc.cluster.local (org.apache.kafka.clients.ClientUtils)",
    { id: 'bootstrap-host-unresolvable', detail: 'kafka-myname-headless.mynamespace.svc.cluster.local:29092', subject: 'kafka-myname-headless.mynamespace.svc.cluster.local' },
  ],
  [
    'dpkp/kafka-python#2063: the authorizer logger denying a principal',
    '[2020-06-03 14:25:26,298] INFO Principal = User:skyDriveProducer is Denied Operation = Describe from host = 10.16.19.213 on resource = Topic:LITERAL:test (kafka.authorizer.logger)',
    { id: 'acl-denied', detail: 'User:skyDriveProducer', subject: 'Describe Topic:LITERAL:test' },
  ],
  [
    'apache/kafka#5933: LogDirFailureChannel on a Windows log dir',
    '[2018-11-20 09:18:43,525] ERROR Error while renaming dir for test-2 in log dir C:\\tmp\\kafka-logs (kafka.server.LogDirFailureChannel)',
    { id: 'log-dir-on-windows', detail: 'C:\\tmp\\kafka-logs' },
  ],
  [
    'EthVM/EthVM#546: clients 2.x KafkaProducer RecordTooLargeException in a Connect task',
    '[2019-06-03 08:29:04,403] ERROR WorkerSourceTask{id=parity-source-0} failed to send record to canonical_traces: {} (org.apache.kafka.connect.runtime.WorkerSourceTask)\n' +
      'org.apache.kafka.common.errors.RecordTooLargeException: The message is 4794004 bytes when serialized which is larger than the maximum request size you have configured with the max.request.size configuration.',
    { id: 'producer-record-over-max-request-size', detail: '4794004' },
  ],
  [
    'helm/charts#14132: Kafka 2.x LogManager cannot lock its log dir',
    '[2019-05-25 09:11:33,980] ERROR [KafkaServer id=0] Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n' +
      'org.apache.kafka.common.KafkaException: Failed to acquire lock on file .lock in /opt/kafka/data/logs. A Kafka instance in another process or thread is using this directory.',
    { id: 'log-dir-locked', detail: '/opt/kafka/data/logs' },
  ],
  [
    'tchiotludo/akhq#256: a directory that is no partition in the log dir',
    'kafka_1            | [2020-04-01 09:53:35,990] ERROR [KafkaServer id=1001] Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n' +
      "kafka_1            | org.apache.kafka.common.KafkaException: Found directory /var/lib/kafka/data/data, 'data' is not in the form of topic-partition or topic-partition.uniqueId-delete (if marked for deletion).\n" +
      "kafka_1            | Kafka's log directories (and children) should only contain Kafka topic data.\n" +
      'kafka_1            | \tat kafka.log.Log$.exception$1(Log.scala:2611)',
    { id: 'log-dir-foreign-entry', detail: 'data', subject: '/var/lib/kafka/data/data' },
  ],
  [
    'confluentinc/common#304: ZooKeeperServer refusing a client ahead of it',
    '[2020-10-29 00:29:20,852] INFO Refusing session request for client /10.244.4.86:47054 as it has seen zxid 0xd00000000 our last zxid is 0xc00000004 client must try another server (org.apache.zookeeper.server.ZooKeeperServer)',
    { id: 'zk-server-behind-clients', detail: '0xd00000000 > 0xc00000004', subject: '10.244.4.86:47054' },
  ],
  [
    'confluentinc/common#785: clients 3.7+ NetworkClient metadata error wording',
    '[2025-05-14 11:51:14,700] WARN [Consumer clientId=console-consumer, groupId=mygroup] The metadata response from the cluster reported a recoverable issue with correlation id 2 : {Topic25=TOPIC_AUTHORIZATION_FAILED} (org.apache.kafka.clients.NetworkClient)',
    { id: 'metadata-topic-error', detail: 'TOPIC_AUTHORIZATION_FAILED', subject: 'Topic25' },
  ],
  [
    'confluentinc/ksql#3653: clients 2.x KafkaProducer metadata wait, joined to the record above it',
    '[2019-10-23 03:58:58,952] INFO AvroDataConfig values:\n' +
      '        schemas.cache.config = 1\n' +
      " (io.confluent.connect.avro.AvroDataConfig:179)\n" +
      "Error when sending message to topic: 'pageviews', with key: '1', and value: '[ 1571817539097 | 'User_2' | 'Page_81' ]'\n" +
      'org.apache.kafka.common.errors.TimeoutException: Topic pageviews not present in metadata after 60000 ms.',
    { id: 'producer-metadata-timeout', detail: '60000', subject: 'pageviews' },
  ],
  [
    'OpenBMP/obmp-docker#13: ZooKeeper 3.5 FileTxnSnapLog without a snapshot',
    '[2022-03-30 19:46:14,859] ERROR Unexpected exception, exiting abnormally (org.apache.zookeeper.server.ZooKeeperServerMain)\n' +
      'java.io.IOException: No snapshot found, but there are log entries. Something is broken!',
    { id: 'zk-snapshot-missing' },
  ],
  [
    'confluentinc/cp-ansible#1765: Kafka 3.x ZooKeeperClient timeout behind a journald prefix',
    'Aug 05 17:28:43 kafka-1 kafka-server-start[105343]: [2024-08-05 17:28:43,538] ERROR Exiting Kafka due to fatal exception during startup. (kafka.Kafka$)\n' +
      'Aug 05 17:28:43 kafka-1 kafka-server-start[105343]: kafka.zookeeper.ZooKeeperClientTimeoutException: Timed out waiting for connection while in state: CONNECTING\n' +
      'Aug 05 17:28:43 kafka-1 kafka-server-start[105343]:         at kafka.zookeeper.ZooKeeperClient.$anonfun$waitUntilConnected$3(ZooKeeperClient.scala:258)',
    { id: 'zk-connect-timeout', detail: 'CONNECTING' },
  ],
  [
    'strimzi/strimzi-kafka-operator#1216: Kafka 2.0 ApiVersion refusing a newer version string',
    '2019-01-10 12:55:07,924 ERROR Exiting Kafka due to fatal exception (kafka.Kafka$) [main]\n' +
      'java.lang.IllegalArgumentException: Version `2.1` is not a valid version\n' +
      '\tat kafka.api.ApiVersion$.$anonfun$apply$1(ApiVersion.scala:91)',
    { id: 'protocol-version-unknown', detail: '2.1' },
  ],
  [
    'getsentry/sentry#19337: MemoryRecordsBuilder converting a batch with headers down to v0',
    '[2020-06-12 18:54:16,760] ERROR [ReplicaManager broker=1] Error processing append operation on partition events-0 (kafka.server.ReplicaManager)\n' +
      'java.lang.IllegalArgumentException: Magic v0 does not support record headers',
    { id: 'message-format-without-headers', detail: 'v0', subject: 'events-0' },
  ],
  [
    'bitnami/charts#3572: ZooKeeper NoAuthException at broker start-up',
    '[2021-11-24 11:06:08,859] ERROR Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)\n' +
      'org.apache.zookeeper.KeeperException$NoAuthException: KeeperErrorCode = NoAuth for /consumers',
    { id: 'zk-acl-denies-client', detail: '/consumers' },
  ],
  [
    'Yolean/kubernetes-kafka#298: ZooKeeper QuorumCnxManager cannot resolve a peer',
    '[2019-12-30 08:27:13,695] WARN Cannot open channel to 2 at election address pzoo-1.pzoo:3888 (org.apache.zookeeper.server.quorum.QuorumCnxManager)\n' +
      'java.net.UnknownHostException: pzoo-1.pzoo\n' +
      '        at java.base/java.net.AbstractPlainSocketImpl.connect(AbstractPlainSocketImpl.java:220)',
    { id: 'zk-peer-host-unresolvable', detail: 'pzoo-1.pzoo:3888', subject: '2' },
  ],
  [
    'strimzi/strimzi-kafka-operator#10735: FeatureControlManager replaying a newer metadata.version',
    '2024-10-18 12:35:14,302 ERROR Encountered fatal fault: Unable to apply FeatureLevelRecord record at offset 1609 on standby controller, from the batch with baseOffset 1609 (org.apache.kafka.server.fault.ProcessTerminatingFaultHandler) [quorum-controller-0-event-handler]\n' +
      "java.lang.RuntimeException: Tried to apply FeatureLevelRecord FeatureLevelRecord(name='metadata.version', featureLevel=20), but this controller only supports versions 1-19",
    { id: 'metadata-version-newer-than-binaries', detail: '20', subject: '1-19' },
  ],
  [
    'birdayz/kaf#105: sarama relays UNSUPPORTED_SASL_MECHANISM',
    '[sarama] 2020/04/21 09:51:05 broker.go:913: Invalid SASL Mechanism : kafka server: The broker does not support the requested SASL mechanism.',
    { id: 'sasl-mechanism-not-enabled' },
  ],
  [
    'confluentinc/librdkafka#1404: librdkafka cannot verify a self-signed chain',
    '%3|1504216637.876|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://internal-kafka-logs-devOps-1284087905.us-east-1.elb.]: sasl_ssl://<broker_url>:9092/bootstrap: Failed to verify broker certificate: self signed certificate in certificate chain',
    { id: 'tls-untrusted-certificate', detail: 'self signed certificate in certificate chain' },
  ],
  [
    'confluentinc/librdkafka#2758: OpenSSL certificate verify failed, no CA location on Windows',
    '%3|1583954693.318|ERROR|rdkafka#producer-2| [thrd:ssl://localhost:9092/bootstrap]: ssl://localhost:9092/bootstrap: SSL handshake failed: ssl\\statem\\statem_clnt.c:1915: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed:  (after 6ms in state CONNECT)',
    { id: 'tls-untrusted-certificate', detail: 'certificate verify failed' },
  ],
  [
    'control-center/serviced#594: ZooKeeper 3.4 NIOServerCnxnFactory over maxClientCnxns',
    '2014-06-17 16:24:57,887 [myid:] - WARN  [NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:NIOServerCnxnFactory@193] - Too many connections from /172.17.42.1 - max is 60',
    { id: 'zk-client-connection-limit', detail: '60', subject: '172.17.42.1' },
  ],
  [
    'sitewhere/sitewhere#966: a slow fsync of ZooKeeper\'s transaction log, quoted without its date',
    'WARN fsync-ing the write ahead log in SyncThread:2 took 3932ms which will adversely effect operation latency. File size is 67108880 bytes',
    { id: 'zk-slow-fsync', detail: '3932', subject: 'SyncThread:2', time_unknown: 'true' },
  ],
  [
    'd2iq-archive/dcos-commons#3147: the ZooKeeper server\'s Len error behind journald\'s prefix',
    'Sep 27 12:21:00 vm-t1rb java[5140]: [myid:1] WARN  [NIOServerCxn.Factory:0.0.0.0/0.0.0.0:2181:NIOServerCnxn@383] - Exception causing close of session 0x2000008b09600fa: Len error 2163858',
    { id: 'zk-packet-over-jute-maxbuffer', detail: '2163858', time_unknown: 'true' },
  ],
  [
    'tchiotludo/akhq#116: a stack trace quoted from its tail, its Caused-by the only record',
    '\tat java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:617)\n' +
      '\tat java.lang.Thread.run(Thread.java:748)\n' +
      'Caused by: org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [Topic authorization failed.]',
    { id: 'metadata-topic-error', detail: 'TOPIC_AUTHORIZATION_FAILED', time_unknown: 'true' },
  ],
  [
    'confluentinc/cp-docker-images#142: ZooKeeper refuses "5)" as a number',
    '[2016-09-29 01:58:16,602] ERROR Invalid config, exiting abnormally (org.apache.zookeeper.server.quorum.QuorumPeerMain)\n' +
      'org.apache.zookeeper.server.quorum.QuorumPeerConfig$ConfigException: Error processing /etc/kafka/zookeeper.properties\n' +
      '\tat org.apache.zookeeper.server.quorum.QuorumPeerConfig.parse(QuorumPeerConfig.java:123)\n' +
      'Caused by: java.lang.NumberFormatException: For input string: "5)"',
    { id: 'zk-config-invalid', detail: 'For input string: "5)"', subject: '/etc/kafka/zookeeper.properties' },
  ],
  [
    'confluentinc/confluent-kafka-go#730: librdkafka without snappy, as the application printed it',
    'Consumer error: Decompression (codec 0x2) of message at 75475171 of 2725 bytes failed: Local: Not implemented (<nil>)',
    { id: 'client-codec-unsupported', detail: 'snappy', time_unknown: 'true' },
  ],
  [
    'strimzi/strimzi-kafka-operator#3716: a user topic asking for three replicas on one broker',
    "2020-09-29 00:58:10,120 INFO [Admin Manager on Broker 0]: Error processing create topic request CreatableTopic(name='sales', numPartitions=10, replicationFactor=3, assignments=[], configs=[]) (kafka.server.AdminManager) [data-plane-kafka-request-handler-6]\n" +
      'org.apache.kafka.common.errors.InvalidReplicationFactorException: Replication factor: 3 larger than available brokers: 1.',
    { id: 'topic-replication-factor-exceeds-brokers', detail: '3 replicas, 1 broker(s)', subject: 'sales' },
  ],
  [
    'axel-sirota/getting-started-kafka#1: the Confluent image\'s preflight check',
    'Command [/usr/local/bin/dub path /var/lib/kafka/data writable] FAILED !',
    { id: 'data-dir-not-writable', detail: '/var/lib/kafka/data', time_unknown: 'true' },
  ],
]

describe('gotcha matchers on published lines', () => {
  it.each(rows)('%s', (_source, text, labels) => {
    // Undated lines (a paste without its stamp) are placed at a stand-in time, as a replay places them.
    const got = parse(text, { undatedAt: Date.UTC(2024, 0, 1) }).signals.filter((s) => s.name === 'setup.mistake')
    expect(got.map((s) => s.labels)).toEqual([labels])
  })

  it('reads a frame size as the protocol its bytes spell: TLS records, HTTP verbs, or neither', () => {
    expect(foreignProtocol(369295616)).toBe('tls')
    expect(foreignProtocol(369296129)).toBe('tls')
    expect(foreignProtocol(1195725856)).toBe('http')
    expect(foreignProtocol(1213486160)).toBe('http')
    expect(foreignProtocol(104857601)).toBeUndefined()
    expect(foreignProtocol(-1)).toBeUndefined()
  })

  it('gives no jute.maxbuffer mistake for a ZooKeeper packet length that spells HTTP (yahoo/CMAK#885, verbatim)', () => {
    const row = GOTCHA_MATCHERS.find((m) => m.literals.includes('is out of range!'))
    if (!row) throw new Error('no ZooKeeper packet-length row')
    const line = 'java.io.IOException: Packet len1213486160 is out of range!'
    const m = row.re.exec(line)
    expect(m).not.toBeNull()
    const rec = { header: { message: line }, lines: [line] } as unknown as Parameters<typeof row.build>[1]
    expect(row.build(m as RegExpExecArray, rec, { isr: new Map(), progressLines: 0 }, undefined)).toBeUndefined()
  })

  it('leaves an expired certificate and a host-name mismatch to their own rows, not an untrusted CA', () => {
    const row = GOTCHA_MATCHERS.find((m) => m.literals.includes('certificate signed by unknown authority'))
    if (!row) throw new Error('no untrusted-certificate row')
    // OpenSSL's verify texts for an expired certificate and a name mismatch, as librdkafka prints them.
    for (const line of ['ssl://b-1:9093/1: SSL handshake failed: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed: certificate has expired', 'ssl://b-1:9093/1: SSL handshake failed: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed: Hostname mismatch']) {
      const m = row.re.exec(line)
      expect(m).not.toBeNull()
      const rec = { header: { message: line }, lines: [line] } as unknown as Parameters<typeof row.build>[1]
      expect(row.build(m as RegExpExecArray, rec, { isr: new Map(), progressLines: 0 }, undefined)).toBeUndefined()
    }
  })

  it('names the Java release a class-file version needs', () => {
    expect([52, 55, 61, 65].map(javaOfClassVersion)).toEqual([8, 11, 17, 21])
  })

  it('emits only catalogued ids, and the signal is in the catalogue with its labels', () => {
    expect(CATALOGUE['setup.mistake'].labels).toEqual(['id', 'detail', 'subject'])
    expect(GOTCHA_MATCHERS.length).toBeGreaterThan(0)
    const ids = new Set<string>(GOTCHA_IDS)
    for (const [, text] of rows) for (const s of parse(text).signals) if (s.name === 'setup.mistake') expect(ids.has(s.labels?.id ?? '')).toBe(true)
  })
})
