import { describe, expect, it } from 'vitest'
import { readHeader } from '../../../adapters/logs/layout.js'
import { LogParser } from '../../../adapters/logs/parser.js'
import { TIME_UNKNOWN_LABEL } from '../../../adapters/logs/parser.js'
import type { ClientName, LayoutName } from '../../../adapters/logs/types.js'

// Layouts learned from the lines themselves. Every line is verbatim from the public thread named beside it;
// the formats are the clients' own (librdkafka src/rdkafka.c rd_kafka_log_print "%%%i|%u.%03u|%s|%s| %s",
// sarama's documented `log.New(os.Stdout, "[sarama] ", log.LstdFlags)`, kafkajs src/loggers/console.js
// JSON.stringify({level, timestamp, logger, message, …}), kafka-python's Python logging default
// "%(levelname)s:%(name)s:%(message)s"), and Spring Boot's, logback's, Quarkus', Akka's and Lagom's.

type Case = {
  name: string
  source: string
  lines: string[]
  layout: LayoutName
  client?: ClientName
  /** The first record's header as read. */
  header: { level?: string; logger?: string; thread?: string; message: string; at?: string; timeOfDayMs?: number }
}

const CASES: Case[] = [
  {
    name: "Ruby's standard Logger (ruby-kafka)",
    source: 'https://github.com/zendesk/ruby-kafka/issues/941',
    lines: [
      'I, [2022-05-18T04:25:31.174084 #67039]  INFO -- : kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --describe --group test',
      'E, [2022-05-18T04:25:31.804583 #67039] ERROR -- : [[test] {}:] [join_group] Timed out while waiting for response 2',
      'E, [2022-05-18T04:25:31.804929 #67039] ERROR -- : [[test] {}:] Connection error while trying to join group `test`; retrying...',
    ],
    layout: 'learned:date-time',
    header: { level: 'INFO', at: '2022-05-18T04:25:31.174Z', message: 'kafka-consumer-groups --bootstrap-server 127.0.0.1:9092 --describe --group test' },
  },
  {
    name: 'librdkafka on stderr (rdkafka_simple_producer)',
    source: 'https://github.com/confluentinc/librdkafka/issues/2580',
    lines: [
      '%3|1571732798.712|FAIL|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: No connection could be made because the target machine actively refused it... (after 2009ms in state CONNECT)',
      '%3|1571732798.712|ERROR|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: No connection could be made because the target machine actively refused it... (after 2009ms in state CONNECT)',
      '%3|1571732798.713|ERROR|rdkafka#producer-1| [thrd:localhost:9092/bootstrap]: 1/1 brokers are down.',
    ],
    layout: 'learned:epoch:librdkafka',
    client: 'librdkafka',
    header: {
      level: 'ERROR',
      logger: 'FAIL',
      thread: 'localhost:9092/bootstrap',
      at: '2019-10-22T08:26:38.712Z',
      message: '[thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: No connection could be made because the target machine actively refused it... (after 2009ms in state CONNECT)',
    },
  },
  {
    name: "librdkafka through an application's log callback",
    source: 'https://github.com/confluentinc/librdkafka/issues/1548',
    lines: [
      '1511418210.136 RDKAFKA-3-FAIL: rdkafka#producer-1: [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused',
      '1511418210.136 RDKAFKA-3-ERROR: rdkafka#producer-1: [thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused',
      '1511418210.137 RDKAFKA-3-ERROR: rdkafka#producer-1: [thrd:localhost:9092/bootstrap]: 1/1 brokers are down',
    ],
    layout: 'learned:epoch:librdkafka',
    client: 'librdkafka',
    header: { level: 'ERROR', logger: 'FAIL', thread: 'rdkafka#producer-1', at: '2017-11-23T06:23:30.136Z', message: '[thrd:localhost:9092/bootstrap]: localhost:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused' },
  },
  {
    name: "sarama's Logger with the std log prefix",
    source: 'https://github.com/IBM/sarama/issues/2215',
    lines: [
      '[sarama] 2022/04/15 19:31:59 client/metadata got error from broker -1 while fetching metadata: write tcp 172.31.32.204:32864->2.48.2.252:9093: write: broken pipe',
      '[sarama] 2022/04/15 19:31:59 client/metadata got error from broker 2 while fetching metadata: write tcp 172.31.32.204:32862->2.48.2.252:9093: write: broken pipe',
    ],
    layout: 'learned:date-time:sarama',
    client: 'sarama',
    header: { at: '2022-04-15T19:31:59.000Z', message: 'client/metadata got error from broker -1 while fetching metadata: write tcp 172.31.32.204:32864->2.48.2.252:9093: write: broken pipe' },
  },
  {
    name: "kafkajs' JSON logger",
    source: 'https://github.com/tulios/kafkajs/issues/1389',
    lines: [
      '{"level":"ERROR","timestamp":"2022-06-11T09:20:13.846Z","logger":"kafkajs","message":"[Connection] Connection timeout","broker":"kafka1.prod-ixigo.com:9092","clientId":"marketing-webhooks"}',
      '{"level":"ERROR","timestamp":"2022-06-11T09:20:13.847Z","logger":"kafkajs","message":"[BrokerPool] Failed to connect to seed broker, trying another broker from the list: Connection timeout","retryCount":0,"retryTime":301}',
    ],
    layout: 'learned:json:kafkajs',
    client: 'kafkajs',
    header: { level: 'ERROR', logger: 'kafkajs', at: '2022-06-11T09:20:13.846Z', message: '[Connection] Connection timeout' },
  },
  {
    name: 'kafka-python under Python logging defaults (no time)',
    source: 'https://github.com/dpkp/kafka-python/issues/1354',
    lines: [
      'WARNING:kafka.client:Node 0 connection failed -- refreshing metadata',
      "ERROR:kafka.conn:Connect attempt to <BrokerConnection node_id=0 host=INCT-Shailendras:9092 <connecting> [IPv4 ('127.0.1.1', 9092)]> returned error 111. Disconnecting.",
    ],
    layout: 'none',
    client: 'kafka-python',
    header: { level: 'WARNING', logger: 'kafka.client', message: 'Node 0 connection failed -- refreshing metadata' },
  },
  {
    name: 'the Java client as Spring Boot prints it',
    source: 'https://github.com/obsidiandynamics/kafdrop/issues/35',
    lines: [
      '2021-01-21 21:56:41.382  WARN 18 --- [ntainer#0-0-C-1] org.apache.kafka.clients.NetworkClient   : [Consumer clientId=consumer-email-1, groupId=email] Connection to node -1 (localhost/127.0.0.1:9092) could not be established. Broker may not be available.',
      '2021-01-21 21:56:41.382  WARN 18 --- [ntainer#0-0-C-1] org.apache.kafka.clients.NetworkClient   : [Consumer clientId=consumer-email-1, groupId=email] Bootstrap broker localhost:9092 (id: -1 rack: null) disconnected',
    ],
    layout: 'learned:date-time:java',
    client: 'java',
    header: {
      level: 'WARN',
      logger: 'org.apache.kafka.clients.NetworkClient',
      thread: 'ntainer#0-0-C-1',
      at: '2021-01-21T21:56:41.382Z',
      message: '[Consumer clientId=consumer-email-1, groupId=email] Connection to node -1 (localhost/127.0.0.1:9092) could not be established. Broker may not be available.',
    },
  },
  {
    name: 'Kafka Streams under Spring Boot',
    source: 'https://github.com/ControlSystemStudio/phoebus/issues/747',
    lines: ['2019-07-23 17:37:47.348 ERROR 24594 --- [-StreamThread-1] o.a.k.s.p.internals.StreamThread         : stream-thread [streams-alarm_local-alarm-messages-56ebbdd3-111e-4b2b-864e-28e59becbfc0-StreamThread-1] Encountered the following error during processing:'],
    layout: 'learned:date-time:java',
    client: 'java',
    header: {
      level: 'ERROR',
      logger: 'o.a.k.s.p.internals.StreamThread',
      thread: '-StreamThread-1',
      at: '2019-07-23T17:37:47.348Z',
      message: 'stream-thread [streams-alarm_local-alarm-messages-56ebbdd3-111e-4b2b-864e-28e59becbfc0-StreamThread-1] Encountered the following error during processing:',
    },
  },
  {
    name: 'the Java client under Quarkus (logger in brackets, thread in parentheses)',
    source: 'https://github.com/apache/incubator-kie-kogito-runtimes/pull/3046',
    lines: ['2023-06-09 08:18:58,118 WARN  [org.apa.kaf.cli.NetworkClient] (smallrye-kafka-consumer-thread-3) [Consumer clientId=kafka-consumer-visa_approved_in_transition, groupId=kogito-quarkus-serverless-workflow-integration-test] Connection to node 0 (localhost/127.0.0.1:33834) could not be established. Broker may not be available.'],
    layout: 'learned:date-time:java',
    client: 'java',
    header: {
      level: 'WARN',
      logger: 'org.apa.kaf.cli.NetworkClient',
      thread: 'smallrye-kafka-consumer-thread-3',
      at: '2023-06-09T08:18:58.118Z',
      message: '[Consumer clientId=kafka-consumer-visa_approved_in_transition, groupId=kogito-quarkus-serverless-workflow-integration-test] Connection to node 0 (localhost/127.0.0.1:33834) could not be established. Broker may not be available.',
    },
  },
  {
    name: "the Java client under Akka's logback pattern, behind a CI runner's time prefix",
    source: 'https://github.com/akka/akka-guide/issues/588',
    lines: [
      '2021-02-19T08:43:16.1664877Z [2021-02-19 08:43:16,165] [WARN] [org.apache.kafka.clients.NetworkClient] [] [] [kafka-producer-network-thread | producer-2] - [Producer clientId=producer-2] Connection to node -1 (localhost/127.0.0.1:9092) could not be established. Broker may not be available.',
      '2021-02-19T08:43:16.1667913Z [2021-02-19 08:43:16,166] [WARN] [org.apache.kafka.clients.NetworkClient] [] [] [kafka-producer-network-thread | producer-2] - [Producer clientId=producer-2] Bootstrap broker localhost:9092 (id: -1 rack: null) disconnected',
    ],
    layout: 'learned:date-time:java',
    client: 'java',
    header: {
      level: 'WARN',
      logger: 'org.apache.kafka.clients.NetworkClient',
      thread: 'kafka-producer-network-thread | producer-2',
      at: '2021-02-19T08:43:16.165Z',
      message: '[Producer clientId=producer-2] Connection to node -1 (localhost/127.0.0.1:9092) could not be established. Broker may not be available.',
    },
  },
  {
    name: 'a time-only logback pattern (HH:mm:ss.SSS [thread] LEVEL logger - msg)',
    source: 'https://github.com/eugenp/tutorials/issues/7197',
    lines: ['13:57:44.697 [main] INFO  o.a.k.c.consumer.ConsumerConfig - ConsumerConfig values: ', '\tauto.commit.interval.ms = 5000', '\tauto.offset.reset = latest'],
    layout: 'learned:time-of-day:java',
    client: 'java',
    header: { level: 'INFO', logger: 'o.a.k.c.consumer.ConsumerConfig', thread: 'main', timeOfDayMs: ((13 * 60 + 57) * 60 + 44) * 1000 + 697, message: 'ConsumerConfig values: ' },
  },
  {
    name: "a broker's lines in a time-only pattern (HH:mm:ss,SSS LEVEL || - [class] thread - msg)",
    source: 'https://github.com/hazelcast/hazelcast/pull/19773',
    lines: [
      '14:24:45,813  INFO || - [AppInfoParser] hz.gracious_antonelli.jet.blocking.thread-1 - Kafka commitId: 1d348535a0a747d1',
      '14:24:45,813  INFO || - [ReplicaFetcherManager] data-plane-kafka-request-handler-2 - [ReplicaFetcherManager on broker 0] Removed fetcher for partitions Set(8427e233-511e-41f7-a16c-2e9aee189bc7-3, 8427e233-511e-41f7-a16c-2e9aee189bc7-7)',
    ],
    layout: 'learned:time-of-day',
    header: { level: 'INFO', timeOfDayMs: ((14 * 60 + 24) * 60 + 45) * 1000 + 813, message: '[AppInfoParser] hz.gracious_antonelli.jet.blocking.thread-1 - Kafka commitId: 1d348535a0a747d1' },
  },
  {
    name: "librdkafka's own lines among a .NET application's Serilog lines (confluent-kafka-dotnet)",
    source: 'https://github.com/confluentinc/confluent-kafka-dotnet/issues/1662',
    lines: [
      '2021-08-02T06:26:32.7236789+00:00 [Information] (/our-service-container-8679964bc5-5bnp6/11) MappableDataCache [Starting the service] Received the initial list of the mapped entities in 71 ms',
      '2021-08-02T06:26:32.7242226+00:00 [Information] (/our-service-container-8679964bc5-5bnp6/11) MappableDataCache [Starting the service] The service is started',
      '%6|1627885721.057|FAIL|rdkafka#consumer-5| [thrd:GroupCoordinator]: GroupCoordinator: Disconnected (after 132202ms in state UP)   <-- how to suppress it?',
      '%3|1627885721.057|ERROR|rdkafka#consumer-5| [thrd:GroupCoordinator]: GroupCoordinator: Disconnected (after 132202ms in state UP)',
    ],
    // Half the dated lines are librdkafka's: the file is read as that client's; the application's own lines name none.
    layout: 'learned:date-time:librdkafka',
    // Serilog's "(source/thread)" after the level is left in the message: no separator says it is a field.
    header: { level: 'INFORMATION', at: '2021-08-02T06:26:32.723Z', message: '(/our-service-container-8679964bc5-5bnp6/11) MappableDataCache [Starting the service] Received the initial list of the mapped entities in 71 ms' },
  },
]

describe('adapters/logs/learned-layout', () => {
  it.each(CASES)('$name ($source)', (c) => {
    const p = new LogParser({ path: 'pasted.log', cluster: 'c1', undatedAt: Date.parse('2024-01-02T03:00:00Z') })
    p.push(`${c.lines.join('\n')}\n`)
    p.end()
    expect(p.layout).toBe(c.layout)
    if (c.client) expect(p.format).toBe('client')
    // Every line was read: nothing counted as unknown or without a layout.
    expect(Object.values(p.stats.unparsed).reduce((a, b) => a + b, 0)).toBe(0)
    // The wrapper a collector put around the lines is gone before the header is read.
    const first = p.wrapper ? c.lines[0].replace(/^\S+ /, '') : c.lines[0]
    const h = readHeader(first, p.layout!, () => 0)
    expect(h).toBeDefined()
    const { at, ...rest } = c.header
    expect(h).toMatchObject(rest)
    if (at) expect(new Date(h!.at!).toISOString()).toBe(at)
    else expect(h!.at).toBeUndefined()
    expect(h!.client).toBe(c.client)
  })

  it('keeps a time of day in file order on the stand-in date and marks its signals time_unknown', () => {
    // Verbatim from spring-projects/spring-kafka#252 (https://github.com/spring-projects/spring-kafka/issues/252):
    // "HH:mm:ss.SSS [thread] LEVEL logger - msg", the date never written.
    const text = [
      '20:21:44.111 [org.springframework.kafka.KafkaListenerEndpointContainer#0-0-kafka-consumer-1] DEBUG org.apache.kafka.clients.NetworkClient - Node -1 disconnected.',
      '20:21:44.114 [org.springframework.kafka.KafkaListenerEndpointContainer#0-0-kafka-consumer-1] DEBUG org.apache.kafka.clients.consumer.internals.ConsumerNetworkClient - Cancelled GROUP_COORDINATOR request ClientRequest(expectResponse=true, callback=org.apache.kafka.clients.consumer.internals.ConsumerNetworkClient$RequestFutureCompletionHandler@b03e9f, request=RequestSend(header={api_key=10,api_version=0,correlation_id=0,client_id=consumer-1}, body={group_id=helloworld}), createdTimeMs=1489321283073, sendTimeMs=0) with correlation id 0 due to node -1 being disconnected',
      '20:21:44.115 [org.springframework.kafka.KafkaListenerEndpointContainer#0-0-kafka-consumer-1] DEBUG org.apache.kafka.clients.NetworkClient - Give up sending metadata request since no node is available',
    ].join('\n')
    const dated = new LogParser({ path: 'pasted.log', cluster: 'c1', undatedAt: Date.parse('2024-01-02T23:00:00Z') })
    const signals = [...dated.push(`${text}\n`), ...dated.end()]
    expect(dated.layout).toBe('learned:time-of-day:java')
    expect(signals.length).toBeGreaterThan(0)
    for (const s of signals) {
      expect(s.labels?.[TIME_UNKNOWN_LABEL]).toBe('true')
      expect(new Date(s.at).toISOString().slice(0, 10)).toBe('2024-01-02')
      expect(new Date(s.at).toISOString().slice(11, 19)).toBe('20:21:44')
    }
    // Without a stand-in date the records cannot be placed: counted, not guessed.
    const undated = new LogParser({ path: 'pasted.log', cluster: 'c1' })
    expect([...undated.push(`${text}\n`), ...undated.end()]).toEqual([])
    expect(undated.stats.unparsed['no-timestamp']).toBe(signals.length)
  })

  it.each(CASES.filter((c) => c.client && c.client !== 'java'))("every error line of $name yields a signal, known wording or not", (c) => {
    const p = new LogParser({ path: 'pasted.log', cluster: 'c1', undatedAt: Date.parse('2024-01-02T03:00:00Z') })
    const signals = [...p.push(`${c.lines.join('\n')}\n`), ...p.end()]
    const errorLines = c.lines.flatMap((l, i) => (readHeader(l, p.layout!, () => 0)?.level === 'ERROR' ? [i + 1] : []))
    const signalled = new Set(signals.map((s) => Number(s.source.split(':').pop())))
    for (const n of errorLines) expect(signalled, `line ${n}`).toContain(n)
  })

  it("reads librdkafka's lines between another layout's as records of their own, with their client", () => {
    const c = CASES.find((x) => x.source.endsWith('confluent-kafka-dotnet/issues/1662'))!
    const p = new LogParser({ path: 'app.log', cluster: 'c1' })
    const signals = [...p.push(`${c.lines.join('\n')}\n`), ...p.end()]
    expect(readHeader(c.lines[3], p.layout!, () => 0)).toMatchObject({ level: 'ERROR', logger: 'ERROR', client: 'librdkafka', thread: 'GroupCoordinator' })
    expect(signals.some((s) => s.source === 'log:app.log:4')).toBe(true)
  })

  it("keeps Kafka's own layouts for Kafka's own lines", () => {
    // Seed 000's line: the fixed Apache layout reads it; a learned one would read it too and must not win the tie.
    const p = new LogParser({ path: 'server.log', cluster: 'c1' })
    p.push('[2018-08-13 22:16:09,762] WARN Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)\n')
    p.end()
    expect(p.layout).toBe('apache')
    expect(p.format).toBe('kafka')
  })
})
