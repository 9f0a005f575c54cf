import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { brokerOf, libraryOf, protocolError } from '../../../adapters/logs/client-matchers.js'
import { matchersFor, mayMatch, newMatchState, type Draft, type LogRecord } from '../../../adapters/logs/matchers.js'
import { CATALOGUE } from '../../../signals/catalogue.js'
import { parse } from './helpers.js'

// Client lines verbatim from the public reports named on each row. The record is built the way a client
// layout hands it to the matchers: `message` is the verbatim part of the line after the library's own
// prefix (librdkafka's `%3|…|FAC|name| [thrd:…]: `, sarama's `[sarama] date time `, a JSON log's
// "message"), `logger` the facility/component the line names, `lines[0]` the whole line.

type Case = { source: string; line: string; message: string; logger?: string; signal: string; labels?: Record<string, string>; broker?: string }

const client = matchersFor('client')

function run(c: Pick<Case, 'line' | 'message' | 'logger'>, st = newMatchState()): Draft[] {
  expect(c.line.includes(c.message), 'message must be a verbatim part of the line').toBe(true)
  const rec: LogRecord = { header: { message: c.message, ...(c.logger ? { logger: c.logger } : {}) }, lines: [c.line] }
  const out: Draft[] = []
  const add = (r: Draft[] | Draft | undefined) => {
    if (r) out.push(...(Array.isArray(r) ? r : [r]))
  }
  for (const mt of client.message) {
    if (!mayMatch(mt, rec.lines[0])) continue
    const m = mt.re.exec(rec.header.message)
    if (m) add(mt.build(m, rec, st, undefined))
  }
  for (const mt of client.record) {
    if (!mayMatch(mt, rec.lines[0])) continue
    const m = mt.re.exec(rec.header.message)
    if (m) add(mt.build(m, rec, st, undefined))
  }
  return out
}

const after = (line: string, mark: string) => line.slice(line.indexOf(mark) + mark.length)

const L1 = '%3|1597742901.053|FAIL|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Connect to ipv4#172.19.0.10:9092 failed: Connection refused'
const L2 = '%3|1597742901.053|ERROR|rdkafka#consumer-2| [thrd:kafka:9092/bootstrap]: 1/1 brokers are down'
const L3 = '%3|1597743224.187|FAIL|rdkafka#consumer-2| [thrd:kafka:9092/bootstrap]: kafka:9092/1001: Disconnected'
const L4 = '%3|1523954416.323|FAIL|rdkafka#producer-1| [thrd:KAFKAIP:9092/bootstrap]: KAFKAIP:9092/2: 10 request(s) timed out: disconnect (average rtt 0.463ms)'
const L5 =
  '%3|1583954693.318|ERROR|rdkafka#producer-2| [thrd:ssl://localhost:9092/bootstrap]: ssl://localhost:9092/bootstrap: SSL handshake failed: ssl\\statem\\statem_clnt.c:1915: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed:  (after 6ms in state CONNECT)'
const L6 = '%4|1583796667.962|MAXPOLL|rdkafka#consumer-1| [thrd:main]: Application maximum poll interval (300000ms) exceeded by 226ms (adjust max.poll.interval.ms for long-running message processing): leaving group'
const L7 = '08:28:20 [Warn  ] [KAFKA_PRODUCER] [anonymous] [5] [REQTMOUT] [thrd:sasl_plaintext://kafka1:9093/1]: sasl_plaintext://kafka1:9093/1: Timed out MetadataRequest in flight (after 60659ms, timeout #0)'
const L8 =
  '19:08:27.215617745 [Error ] [KAFKA_PRODUCER] [anonymous] [0] [FATAL] [thrd:main]: Fatal error: Broker: Producer attempted an operation with an old epoch: Failed to add offsets to transaction: Broker: Producer attempted an operation with an old epoch'
const S1 = '[sarama] 2022/04/15 16:11:59 client/metadata got error from broker 2 while fetching metadata: write tcp 172.31.32.204:60914->2.48.2.252:9093: write: broken pipe'
const S2 = '[sarama] 2018/11/20 09:43:29 client/metadata no available broker to send metadata request to'
const S3 =
  '{"level":"info","msg":"consumer/broker/1 abandoned subscription to core.v1/10 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date.\\n","time":"2017-07-15T15:30:14.451+0000"}'
const J1 =
  '{"level":"ERROR","timestamp":"2021-10-21T09:27:19.691Z","logger":"kafkajs","message":"[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092","broker":"localhost:9092","clientId":"my-client","stack":"Error: connect ECONNREFUSED 127.0.0.1:9092\\n    at TCPConnectWrap.afterConnect [as oncomplete] (net.js:1148:16)"}'
const J2 = '{"level":"ERROR","timestamp":"2022-06-11T09:20:13.846Z","logger":"kafkajs","message":"[Connection] Connection timeout","broker":"kafka1.prod-ixigo.com:9092","clientId":"marketing-webhooks"}'
const J3 =
  '{"level":"ERROR","timestamp":"2022-05-24T11:45:51.191Z","logger":"kafkajs","message":"[Connection] Response Heartbeat(key: 12, version: 3)","broker":"kafka:9092","clientId":"1503bb242f7f","error":"The group is rebalancing, so a rejoin is needed","correlationId":10,"size":10}'
const J4 =
  '[Nest] 11164   - 01/12/2021, 8:41:08 AM   [ExceptionHandler] ERROR [Connection] Response Metadata(key: 3, version: 6) {"timestamp":"2021-01-12T08:41:08.547Z","logger":"kafkajs","broker":"localhost:9092","clientId":"nestjs-consumer-server","error":"There is no leader for this topic-partition as we are in the middle of a leadership election","correlationId":1,"size":101} +6237ms'
const K1 =
  '[main] WARN org.apache.kafka.clients.consumer.internals.ConsumerCoordinator - [Consumer clientId=consumer-my-group-1, groupId=my-group] Offset commit failed on partition test-2 at offset 0: This is not the correct coordinator.'
const K2 =
  '[main] INFO org.apache.kafka.clients.consumer.internals.ConsumerCoordinator - [Consumer clientId=consumer-my-group-1, groupId=my-group] Group coordinator rack2.paris-kafka-psc-test.instaclustr.com:9091 (id: 2147483645 rack: null) is unavailable or invalid due to cause: coordinator unavailable. isDisconnected: false. Rediscovery will be attempted.'
const K3 =
  'ERROR [org.springframework.kafka.KafkaListenerEndpointContainer#1-0-C-1] ConsumerCoordinator: [Consumer clientId=consumer-6, groupId=mysearchapp] Offset commit failed on partition recruiter_entity-0 at offset 6535: This is not the correct coordinator.'
const P1 =
  "ERROR    kafka.conn:conn.py:798 <BrokerConnection client_id=relation-4, node_id=bootstrap-0 host=10.110.85.56:9092 <authenticating> [IPv4 ('10.110.85.56', 9092)]>: SaslAuthenticate error: SaslAuthenticationFailedError (Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512)"
const P2 = "fetcher->_handle_fetch_response():750 - Fetch offset 17250 is out of range for topic-partition TopicPartition(topic=u'<TOPIC_NAME>', partition=0)"
const L9 = '%3|1484821767.327|FAIL|rdkafka#producer-1| sasl_plaintext://hdfs500.host.mobistar.be:9093/bootstrap: SASL authentication failure: Disconnected'
const L10 =
  '[2017-06-29 00:47:45.312676] (0x00007fde7f1ea700) [info] (src/kafka/subscriber.h, 36) event severity => 7, fact() => OFFSET, str => asup-post [1]: offset reset (at offset INVALID) to END: Fetch response: Broker: Offset out of range'
const K4 =
  'INFO [Consumer clientId=consumer-console-consumer-28016-1, groupId=console-consumer-28016] Fetch offset 0 is out of range for partition test-0. We only have log segments in the range from 0 to 40. Resetting offset (org.apache.kafka.clients.consumer.internals.Fetcher)'
const F1 = '2024/05/11 01:10:36 [{ 0 unable to join group session: unable to dial: dial tcp 127.0.0.1:9012: connect: connection refused}]'
const W1 = 'cimpl.KafkaException: KafkaError{code=MSG_SIZE_TOO_LARGE,val=10,str="Unable to produce message: Broker: Message size too large"}'
const W2 = '% Delivery failed for message: Local: Message timed out'

const cases: Case[] = [
  { source: 'getsentry/self-hosted#633', line: L1, message: after(L1, ']: '), logger: 'FAIL', signal: 'client.connect_failed', labels: { library: 'librdkafka', node: '-1', address: 'kafka:9092', via: 'bootstrap', reason: 'refused' } },
  { source: 'getsentry/self-hosted#633', line: L2, message: after(L2, ']: '), logger: 'ERROR', signal: 'client.all_brokers_down', labels: { library: 'librdkafka', brokers: '1' } },
  { source: 'getsentry/self-hosted#633', line: L3, message: after(L3, ']: '), logger: 'FAIL', signal: 'client.transport_failure', labels: { library: 'librdkafka', node: '1001', kind: 'disconnect' }, broker: '1001' },
  { source: 'confluentinc/librdkafka#1771', line: L4, message: after(L4, ']: '), logger: 'FAIL', signal: 'client.request_timeout', labels: { library: 'librdkafka', node: '2', address: 'KAFKAIP:9092' }, broker: '2' },
  { source: 'confluentinc/librdkafka#2758', line: L5, message: after(L5, ']: '), logger: 'ERROR', signal: 'client.auth_failed', labels: { library: 'librdkafka', kind: 'tls', node: '-1' } },
  { source: 'SahilKang/cl-rdkafka#57', line: L6, message: after(L6, ']: '), logger: 'MAXPOLL', signal: 'group.member_poll_timeout', labels: { library: 'librdkafka' } },
  { source: 'confluentinc/librdkafka#2845', line: L7, message: after(L7, ']: '), logger: 'REQTMOUT', signal: 'client.request_timeout', labels: { library: 'librdkafka', node: '1', request: 'MetadataRequest' }, broker: '1' },
  { source: 'confluentinc/librdkafka#3003', line: L8, message: after(L8, '[thrd:main]: '), logger: 'FATAL', signal: 'client.fatal_error', labels: { library: 'librdkafka', kind: 'fenced', error: 'PRODUCER_FENCED' } },
  { source: 'IBM/sarama#2215', line: S1, message: after(S1, '16:11:59 '), signal: 'client.transport_failure', labels: { library: 'sarama', node: '2', kind: 'send' }, broker: '2' },
  { source: 'danielqsj/kafka_exporter#83', line: S2, message: after(S2, '09:43:29 '), signal: 'client.all_brokers_down', labels: { library: 'sarama' } },
  { source: 'IBM/sarama#913', line: S3, message: 'consumer/broker/1 abandoned subscription to core.v1/10 because kafka server: Tried to send a message to a replica that is not the leader for some partition. Your metadata is out of date.', signal: 'client.not_leader', labels: { library: 'sarama', topic: 'core.v1', partition: '10', error: 'NOT_LEADER_OR_FOLLOWER' } },
  { source: 'tomasAlabes/graphql-kafkajs-subscriptions#13', line: J1, message: '[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092', signal: 'client.connect_failed', labels: { library: 'kafkajs', address: 'localhost:9092', reason: 'refused' } },
  { source: 'tulios/kafkajs#1389', line: J2, message: '[Connection] Connection timeout', signal: 'client.connect_failed', labels: { library: 'kafkajs', address: 'kafka1.prod-ixigo.com:9092', reason: 'timeout' } },
  { source: 'tulios/kafkajs#1371', line: J3, message: '[Connection] Response Heartbeat(key: 12, version: 3)', signal: 'client.rebalance', labels: { library: 'kafkajs', error: 'REBALANCE_IN_PROGRESS' } },
  { source: 'nestjs/nest#5654', line: J4, message: after(J4, 'ERROR '), signal: 'client.not_leader', labels: { library: 'kafkajs', error: 'LEADER_NOT_AVAILABLE', address: 'localhost:9092' } },
  { source: 'canonical/kafka-operator#493', line: P1, message: after(P1, 'conn.py:798 '), logger: 'kafka.conn', signal: 'client.auth_failed', labels: { library: 'kafka-python', kind: 'sasl', node: '-1', address: '10.110.85.56:9092' } },
  { source: 'dpkp/kafka-python#972', line: P2, message: after(P2, '- '), logger: 'kafka.consumer.fetcher', signal: 'client.offset_out_of_range', labels: { library: 'kafka-python', topic: '<TOPIC_NAME>', partition: '0' } },
  { source: 'confluentinc/librdkafka#1013', line: L9, message: after(L9, 'rdkafka#producer-1| '), logger: 'FAIL', signal: 'client.auth_failed', labels: { library: 'librdkafka', kind: 'sasl', node: '-1', address: 'hdfs500.host.mobistar.be:9093' } },
  { source: 'confluentinc/librdkafka#1291', line: L10, message: after(L10, 'str => '), logger: 'OFFSET', signal: 'client.offset_out_of_range', labels: { library: 'librdkafka', topic: 'asup-post', partition: '1' } },
  { source: 'apache/kafka#8152', line: K4, message: after(K4, 'INFO ').replace(' (org.apache.kafka.clients.consumer.internals.Fetcher)', ''), logger: 'org.apache.kafka.clients.consumer.internals.Fetcher', signal: 'client.offset_out_of_range', labels: { library: 'java', topic: 'test', partition: '0' } },
  { source: 'confluentinc/librdkafka#3125 (confluent-kafka-python)', line: W1, message: W1, signal: 'client.message_too_large', labels: { library: 'librdkafka' } },
  { source: 'edenhill/kcat#137', line: W2, message: W2, signal: 'client.produce_failed', labels: { library: 'librdkafka', kind: 'expired' } },
  { source: 'twmb/franz-go#728', line: F1, message: after(F1, '01:10:36 '), signal: 'client.connect_failed', labels: { library: 'franz-go', address: '127.0.0.1:9012', reason: 'refused' } },
  { source: 'shotover/shotover-proxy#1687', line: K1, message: after(K1, 'ConsumerCoordinator - '), logger: 'org.apache.kafka.clients.consumer.internals.ConsumerCoordinator', signal: 'client.commit_failed', labels: { library: 'java', group: 'my-group', topic: 'test', partition: '2', error: 'NOT_COORDINATOR' } },
  { source: 'shotover/shotover-proxy#1687', line: K2, message: after(K2, 'ConsumerCoordinator - '), logger: 'org.apache.kafka.clients.consumer.internals.ConsumerCoordinator', signal: 'client.coordinator_unavailable', labels: { library: 'java', group: 'my-group', error: 'COORDINATOR_NOT_AVAILABLE' } },
  { source: 'spring-projects/spring-kafka#1223', line: K3, message: after(K3, 'ConsumerCoordinator: '), logger: 'ConsumerCoordinator', signal: 'client.commit_failed', labels: { library: 'java', group: 'mysearchapp', topic: 'recruiter_entity', partition: '0', error: 'NOT_COORDINATOR' } },
]

describe('client matchers on published client lines', () => {
  for (const c of cases) {
    it(`${c.source}: ${c.signal}`, () => {
      // A setup mistake the same line names (gotcha-matchers.test.ts) comes beside the client signal.
      const drafts = run(c).filter((d) => d.name !== 'setup.mistake')
      expect(drafts.map((d) => d.name)).toEqual([c.signal])
      expect(drafts[0].labels).toMatchObject(c.labels ?? {})
      expect(drafts[0].broker).toBe(c.broker)
      for (const k of Object.keys(drafts[0].labels ?? {})) expect((CATALOGUE as Record<string, { labels: readonly string[] }>)[c.signal].labels, `label ${k}`).toContain(k)
    })
  }
})

describe("librdkafka's ERROR echo of a FAIL line", () => {
  // getsentry/self-hosted#633: each failure logged under FAIL, then again under ERROR (no error callback).
  const fail = '%3|1597743224.190|FAIL|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/1001: Disconnected'
  const echo = '%3|1597743224.190|ERROR|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/1001: Disconnected'
  const other = '%3|1597743224.187|ERROR|rdkafka#consumer-2| [thrd:kafka:9092/bootstrap]: kafka:9092/1001: Disconnected'
  it('is counted once, as client.error_repeat; another handle\'s line is its own event', () => {
    const st = newMatchState()
    expect(run({ line: fail, message: after(fail, ']: '), logger: 'FAIL' }, st).map((d) => d.name)).toEqual(['client.transport_failure'])
    expect(run({ line: echo, message: after(echo, ']: '), logger: 'ERROR' }, st).map((d) => d.name)).toEqual(['client.error_repeat'])
    expect(run({ line: other, message: after(other, ']: '), logger: 'ERROR' }, st).map((d) => d.name)).toEqual(['client.transport_failure'])
  })
})

describe('look-alikes stay quiet', () => {
  // Healthy lines of the same libraries, verbatim from the same reports.
  const quiet: [string, string, string][] = [
    ['IBM/sarama#3037: a healthy connect', '2024/12/23 12:37:28 [Sarama[] Connected to broker at b-1.t1devkafka.u91w03.c17.kafka.us-east-1.amazonaws.com:9094 (unregistered)', 'Connected to broker at b-1.t1devkafka.u91w03.c17.kafka.us-east-1.amazonaws.com:9094 (unregistered)'],
    ['twmb/franz-go#716: a connection opened (franz-go debug through an application logger)', 'PRODUCER[DEBUG] connection opened to broker; addr: redpanda-2.redpanda.redpanda.svc.cluster.local.:9093, broker: 2', 'connection opened to broker; addr: redpanda-2.redpanda.redpanda.svc.cluster.local.:9093, broker: 2'],
    ['danielqsj/kafka_exporter#83: the retry after a failure', '[sarama] 2018/11/20 09:43:29 client/brokers resurrecting 1 dead seed brokers', 'client/brokers resurrecting 1 dead seed brokers'],
    ['ballerina-platform/ballerina-library#8911: coordinator found', 'INFO: [Consumer clientId=consumer-order-group-id-1, groupId=order-group-id] Discovered group coordinator localhost:9092 (id: 2147483646 rack: null)', '[Consumer clientId=consumer-order-group-id-1, groupId=order-group-id] Discovered group coordinator localhost:9092 (id: 2147483646 rack: null)'],
    ['tulios/kafkajs#1361: a member joined', '{"duration":33,"groupId":"consumer-group-id","groupProtocol":"RoundRobinAssigner","isLeader":true,"level":"INFO","message":"[ConsumerGroup] Consumer has joined the group","timestamp":"2022-05-16T12:22:16.517Z"}}', '[ConsumerGroup] Consumer has joined the group'],
    ['confluentinc/librdkafka#299: 0/1 brokers down is recovery', '1433288006.756 RDKAFKA-3-ERROR: rdkafka#producer-0: 0/1 brokers are down', '0/1 brokers are down'],
  ]
  for (const [source, line, message] of quiet) {
    it(source, () => expect(run({ line, message }).map((d) => d.name)).toEqual([]))
  }
})

describe('client helpers', () => {
  it('reads the broker a line names in each library', () => {
    expect(brokerOf('sasl_ssl://b-1.example.com:9096/3: Disconnected')).toEqual({ address: 'b-1.example.com:9096', node: '3' })
    expect(brokerOf('Connection to node 2 (kafka-2/10.0.0.2:9092) could not be established.')).toEqual({ node: '2', address: 'kafka-2/10.0.0.2:9092' })
    expect(brokerOf('client/metadata got error from broker 16 while fetching metadata: EOF')).toEqual({ node: '16' })
  })
  it("names a protocol error in every library's words", () => {
    expect(protocolError('Broker: Not leader for partition')).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(protocolError('kafka server: Request was for a consumer group that is not coordinated by this broker')).toBe('NOT_COORDINATOR')
    expect(protocolError('The coordinator is not aware of this member')).toBe('UNKNOWN_MEMBER_ID')
    expect(protocolError('all good')).toBeUndefined()
  })
  it('keeps client logs on the literal-scanner prefilter (every client trigger is 8+ characters)', () => {
    expect(matchersFor('client').scanner).toBeDefined()
  })
  it("takes the library the record's layout declares before guessing from its shape", () => {
    expect(libraryOf({ header: { message: 'Connection timeout', client: 'kafkajs' }, lines: ['Connection timeout'] })).toBe('kafkajs')
  })
  it('tells the library from the line shape', () => {
    expect(libraryOf({ header: { message: 'x' }, lines: ['%3|1597742901.053|FAIL|rdkafka#consumer-1| [thrd:main]: x'] })).toBe('librdkafka')
    expect(libraryOf({ header: { message: 'client/metadata fetching metadata' }, lines: ['[sarama] 2018/11/20 09:43:29 client/metadata fetching metadata'] })).toBe('sarama')
  })
})

describe('writes refused for too few in-sync replicas, in the clients\' words', () => {
  // Verbatim: provectus/kafka-ui#2625 (the Java producer's Sender in Spring's layout) and the kafkactl line of
  // test/corpus/not-enough-replicas-kafkactl-acks-all-msk (sarama's error table).
  it.each([
    ['2022-09-22 14:36:24,344 WARN  [kafka-producer-network-thread | producer-6] o.a.k.c.p.i.Sender: [Producer clientId=producer-6] Got error produce response with correlation id 1179 on topic-partition New_TOPIC-0, retrying (2147482474 attempts left). Error: NOT_ENOUGH_REPLICAS', { topic: 'New_TOPIC', partition: '0' }],
    ['Failed to produce message: kafka server: Messages are rejected since there are fewer in-sync replicas than required.', undefined],
  ])('%s', (line, labels) => {
    const got = parse(line, { format: 'client', undatedAt: Date.UTC(2024, 0, 1) }).signals.filter((s) => s.name === 'produce.not_enough_replicas')
    expect(got).toHaveLength(1)
    if (labels) expect(got[0].labels).toMatchObject(labels)
  })

  it('counts the exception once, whether a broker or a client logged it (Yolean/kubernetes-kafka#134, the corpus case)', () => {
    const text = readFileSync(new URL('../../corpus/not-enough-replicas-scaled-to-two-brokers-3acks/producer.log', import.meta.url), 'utf8')
    const got = parse(text, { format: 'client', undatedAt: Date.UTC(2024, 0, 1) }).signals.filter((s) => s.name === 'produce.not_enough_replicas')
    // The orphan exception line once, and each of the three retries.
    expect(got).toHaveLength(4)
  })
})
