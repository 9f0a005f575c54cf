import type { Draft, LogRecord, Matcher, MatchState } from './matchers.js'
import type { ClientName, LogFormat } from './types.js'

/**
 * Matcher rows for what Kafka clients log when something fails, in every library's own words: the Java
 * client (as Spring, Connect and Streams print it), librdkafka (and so confluent-kafka-python/go/.NET and
 * node-rdkafka), sarama, franz-go, kafkajs and kafka-python. The wording comes from each library's
 * source (the client tables in adapters/logs/wording/, mined by lab/wording/clients.ts) and from the
 * Kafka protocol's error texts as each library renders them (`Broker: Not leader for partition`,
 * `kafka server: …`, `This server is not the leader for that topic-partition`, NOT_LEADER_OR_FOLLOWER,
 * NotLeaderForPartitionError). Every signal carries `library`, and the broker the client was talking to
 * (`node`, `address`) when the line names it.
 */

/**
 * Client rows read client logs only: a broker's log quotes the same error names for its own replica
 * fetchers and coordinators, which are not a client's view. (Java client logs are told apart by
 * layout.ts's CLIENT_HINT.)
 */
const KAFKA_CLIENT: readonly LogFormat[] = ['client']


const LIBRDKAFKA_FACILITY = /^(?:FAIL|ERROR|FATAL|TXNERR|REQTMOUT|MAXPOLL|COMMITFAIL|THROTTLE|OFFSET|PARTCNT|TERMINATE|SSL|SASL|AUTH|BROKERFAIL|REQERR|COORD|CGRPCOORD|CGRPOP|HEARTBEAT|ASSIGN|REBALANCE|METADATA|TOPIC|MSGSET|CONFWARN)$/

/**
 * Which library wrote a record: the record's own `client` field when the layout read one, else its shape —
 * librdkafka's facility or `rdkafka#` handle, sarama's `area/part` tags, kafkajs' `[Namespace]` and JSON
 * keys, kafka-python's `kafka.*` module and `<BrokerConnection`, franz-go's `; key: value` tail, and
 * the Java client's `[Consumer clientId=` prefix or `org.apache.kafka` logger.
 */
export function libraryOf(rec: LogRecord): ClientName | undefined {
  if (rec.header.client) return rec.header.client
  const line = rec.lines[0] ?? ''
  const msg = rec.header.message
  const logger = rec.header.logger ?? ''
  // librdkafka's own layouts, and its wrappers' error values (confluent-kafka-python's KafkaError{code=…},
  // Confluent.Kafka's exceptions, kcat's "% …") with librdkafka's "Local: …" / "Broker: …" error texts.
  if (/rdkafka#|RDKAFKA-\d|librdkafka|\[thrd:|KafkaError\{code=|Confluent\.Kafka\.|: Local: /.test(line) || LIBRDKAFKA_FACILITY.test(logger)) return 'librdkafka'
  if (/"logger":"kafkajs"|^\[(?:Connection|BrokerPool|Consumer|ConsumerGroup|Runner|Producer|Admin|Cluster)\] /.test(msg) || /"logger":"kafkajs"/.test(line)) return 'kafkajs'
  if (/^kafka\.(?!server|controller|coordinator\.group|log|cluster\.Partition|network\.SocketServer|zk|utils)/.test(logger) || /<BrokerConnection |\bkafka\.(?:conn|client_async|coordinator|consumer\.fetcher|producer)\b/.test(line)) return 'kafka-python'
  if (/\[(?:Consumer|Producer|AdminClient|Admin|Worker|Share Consumer) clientId=|org\.apache\.kafka\.|\bo\.a\.k\.|\bConsumerCoordinator\b|\bNetworkClient\b/.test(line) || /^org\.apache\.kafka\./.test(logger)) return 'java'
  if (/\[sarama\]|^(?:client|consumer|producer|admin|consumergroup|txnmgr)\/\S+ |sarama/i.test(msg) || /\[sarama\]|\[Sarama/.test(line)) return 'sarama'
  if (/; (?:broker|addr|group|err|topic): |unable to dial: /.test(msg)) return 'franz-go'
  return undefined
}

/** A librdkafka broker name: `ssl://b-1.example.com:9093/1`, `kafka:9092/bootstrap`, `GroupCoordinator/3`. */
// Starts only where a name starts: a run of name characters is tried once, not from each of its
// characters (64 KiB of digits after a client's wording took seconds).
const RDK_BROKER = /(?<![\w.-])(?:(?:[a-z_]+):\/\/)?(\[[0-9a-f:]+\]:\d+|[\w.-]+:\d+)\/(bootstrap|-?\d+)\b/i

/**
 * The broker a client line names: librdkafka's broker name, the Java client's `node N (host/ip:port)`,
 * sarama's `broker N` / `broker at host:port`, franz-go's `broker: N` and `addr: h:p`, kafkajs' `broker`
 * field, kafka-python's `<BrokerConnection node_id=N host=h:p`. `node` is -1 for a bootstrap address.
 */
export function brokerOf(text: string): { node?: string; address?: string } {
  const rdk = RDK_BROKER.exec(text)
  if (rdk) return { address: rdk[1], node: rdk[2] === 'bootstrap' ? '-1' : rdk[2] }
  const java = /\bnode (-?\d+)(?: \(([^)\s]+)\))?/.exec(text)
  if (java) return { node: java[1], ...(java[2] ? { address: java[2] } : {}) }
  const py = /node_id=([\w-]+) host=([^\s<>]+)/.exec(text)
  if (py) return { ...(/^bootstrap/.test(py[1]) ? { node: '-1' } : /^-?\d+$/.test(py[1]) ? { node: py[1] } : {}), address: py[2].replace(/^([^:]+):(\d+).*$/, '$1:$2') }
  const js = /"broker":"([^"]+)"/.exec(text)
  if (js) return { address: js[1] }
  const franz = /\bbroker: (-?\d+|seed_\d+)/.exec(text)
  const addr = /\baddr: ([^\s,]+)/.exec(text)
  if (franz || addr) return { ...(franz && /^-?\d+$/.test(franz[1]) ? { node: franz[1] } : franz ? { node: '-1' } : {}), ...(addr ? { address: addr[1] } : {}) }
  const dial = /\bdial tcp (\[[0-9a-f:]+\]:\d+|[\w.-]+:\d+): /.exec(text)
  if (dial) return { address: dial[1] }
  const sar = /\bbroker (?:#)?(-?\d+)\b|\bbroker (?:at )?([\w.-]+:\d+)/.exec(text)
  if (sar) return sar[1] !== undefined ? { node: sar[1] } : { address: sar[2] }
  return {}
}

/**
 * The Kafka protocol error a text reports, as its error code name, from any library's rendering: the
 * code itself (Java, franz-go), Java exception and kafka-python Error class names, librdkafka's
 * `Broker: …`, sarama's `kafka server: …` and kafkajs' messages (each from the library's error table).
 */
const PROTOCOL_ERRORS: readonly [string, RegExp][] = [
  ['NOT_LEADER_OR_FOLLOWER', /NOT_LEADER_(?:FOR_PARTITION|OR_FOLLOWER)|NotLeader(?:ForPartition|OrFollower)(?:Exception|Error)|Broker: Not leader for partition|not the leader for (?:some|that) (?:topic-)?partition/],
  ['LEADER_NOT_AVAILABLE', /LEADER_NOT_AVAILABLE|LeaderNotAvailable(?:Exception|Error)|Broker: Leader not available|there is currently no leader for this partition|There is no leader for this topic-partition/],
  ['UNKNOWN_TOPIC_OR_PARTITION', /UNKNOWN_TOPIC_OR_PART(?:ITITON|ITION)?\b|UnknownTopicOrPartition(?:Exception|Error)|Broker: Unknown topic or partition|Received unknown topic or partition error|Local: Unknown (?:topic|partition)|topic or partition that does not exist on this broker|This server does not host this topic-partition/],
  ['MESSAGE_TOO_LARGE', /MESSAGE_TOO_LARGE|MSG_SIZE_TOO_LARGE|RecordTooLargeException|MessageSizeTooLarge(?:Error)?|Broker: Message size too large|Message was too large, server rejected it|message larger than the max message size the server will accept|bytes when serialized which is larger than|larger than configured Producer\.MaxMessageBytes/],
  ['OFFSET_OUT_OF_RANGE', /OFFSET_OUT_OF_RANGE|OffsetOutOfRange(?:Exception|Error)?\b|Broker: Offset out of range|offset is outside the range of offsets|offset is not within the range of offsets|is out of range for (?:topic-)?partition|Offset out of range, resetting/],
  ['REBALANCE_IN_PROGRESS', /REBALANCE_IN_PROGRESS|RebalanceInProgress(?:Exception|Error)|Broker: Group rebalance in progress|group is rebalancing|rebalance for the group is in progress/],
  ['ILLEGAL_GENERATION', /ILLEGAL_GENERATION|IllegalGeneration(?:Exception|Error)|Broker: Specified group generation id is not valid|generation id is not (?:valid|the current generation)/],
  ['UNKNOWN_MEMBER_ID', /UNKNOWN_MEMBER_ID|UnknownMemberId(?:Exception|Error)|Broker: Unknown member|coordinator is not aware of this member|member is not known in the current generation/],
  ['NOT_COORDINATOR', /NOT_COORDINATOR(?:_FOR_GROUP)?\b|NotCoordinator(?:ForGroup)?(?:Exception|Error)|Broker: Not coordinator|not the correct coordinator|not coordinated by this broker/],
  ['COORDINATOR_NOT_AVAILABLE', /(?:GROUP_)?COORDINATOR_NOT_AVAILABLE|(?:Group)?CoordinatorNotAvailable(?:Exception|Error)|Broker: (?:Group )?[Cc]oordinator not available|Local: Waiting for coordinator|coordinator is not available|coordinator unavailable|Group coordinator \S+ .*is unavailable/],
  ['COORDINATOR_LOAD_IN_PROGRESS', /COORDINATOR_LOAD_IN_PROGRESS|GROUP_LOAD_IN_PROGRESS|CoordinatorLoadInProgress(?:Exception|Error)|Broker: Coordinator load in progress|coordinator is (?:still )?loading/],
  ['REQUEST_TIMED_OUT', /REQUEST_TIMED_OUT|RequestTimedOut(?:Error)?|Broker: Request timed out|Request exceeded the user-specified time limit|The request timed out/],
  ['PRODUCER_FENCED', /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|ProducerFenced(?:Exception|Error)|InvalidProducerEpoch(?:Exception|Error)|Producer attempted an operation with an old epoch|newer producer with the same transactionalId|producer id which is not currently assigned to its transactional id/],
  ['OUT_OF_ORDER_SEQUENCE_NUMBER', /OUT_OF_ORDER_SEQUENCE_NUMBER|OutOfOrderSequence(?:Exception|Error)|out of order sequence number/],
  ['UNKNOWN_PRODUCER_ID', /UNKNOWN_PRODUCER_ID|UnknownProducerId(?:Exception|Error)|Broker: Unknown Producer Id|could not locate the producer metadata/],
  ['SASL_AUTHENTICATION_FAILED', /SASL_AUTHENTICATION_FAILED|SaslAuthentication(?:Exception|Failed)|SASL Authentication failed|SASL authentication (?:error|failure|failed)|failed SASL authentication|Authentication failed:? (?:during authentication )?due to invalid credentials/],
]

/** Literals (8+ characters, so the prefilter stays a literal scan) one of which every PROTOCOL_ERRORS text holds. */
const PROTOCOL_LITERALS: readonly string[] = [
  'Broker: ', 'kafka server: ', 'NOT_LEADER', 'NotLeader', 'LEADER_NOT_AVAILABLE', 'LeaderNotAvailable', 'not the leader for', 'no leader for this',
  'UNKNOWN_TOPIC', 'UnknownTopicOrPartition', 'Local: Unknown', 'unknown topic or partition error', 'does not host this topic', 'does not exist on this broker',
  'TOO_LARGE', 'TooLarge', 'RecordTooLarge', 'too large, server', 'max message size', 'bytes when serialized', 'MaxMessageBytes',
  'OUT_OF_RANGE', 'OutOfRange', 'out of range', 'range of offsets', 'REBALANCE_IN_PROGRESS', 'RebalanceInProgress', 'is rebalancing', 'rebalance for the group',
  'ILLEGAL_GENERATION', 'IllegalGeneration', 'generation id', 'UNKNOWN_MEMBER_ID', 'UnknownMemberId', 'Unknown member', 'aware of this member', 'member is not known',
  'COORDINATOR', 'Coordinator', 'coordinator', 'coordinated by this broker',
  'PRODUCER_FENCED', 'ProducerFenced', 'INVALID_PRODUCER_EPOCH', 'InvalidProducerEpoch', 'old epoch', 'transactionalId', 'transactional id',
  'OUT_OF_ORDER_SEQUENCE', 'OutOfOrderSequence', 'sequence number', 'UNKNOWN_PRODUCER_ID', 'UnknownProducerId', 'Unknown Producer Id', 'producer metadata',
]

/** The first protocol error code the text names, if any. */
export function protocolError(text: string): string | undefined {
  for (const [code, re] of PROTOCOL_ERRORS) if (re.test(text)) return code
  return undefined
}

/** The text a matcher reads: the message, and for a JSON record (kafkajs) its other fields (`broker`, `error`). */
function textOf(rec: LogRecord): string {
  // librdkafka's thread name (`[thrd:kafka:9092/bootstrap]: `) names the thread's broker, not the one the
  // line is about: the broker name after it is.
  const m = rec.header.message.replace(/^\[thrd:[^\]]*\]: /, '')
  const line = rec.lines[0] ?? m
  return line.length > m.length && /"(?:error|broker)":"/.test(line) ? `${m} ${line}` : m
}

/** `topic [p]` (librdkafka), `t-p` after "partition", `topic/p` (sarama), `TopicPartition(topic='t', partition=p)` (kafka-python). */
function partitionOf(text: string): { topic: string; partition: string } | undefined {
  // The name starts where a name starts: a run of name characters is tried once (quadratic before).
  const rdk = /(?:Topic )?(?<![\w.-])([\w.-]+) \[(\d+)\]/.exec(text)
  if (rdk) return { topic: rdk[1], partition: rdk[2] }
  const py = /TopicPartition\(topic=u?'([^']+)', partition=(\d+)\)/.exec(text)
  if (py) return { topic: py[1], partition: py[2] }
  // The partition number ends the name ("connect-configs-8.1.0-0", "test-0." at a sentence's end).
  const java = /(?:topic-)?partition (\S+)-(\d+)(?=\.?(?:\s|$)|[,:;)\]])/.exec(text)
  if (java) return { topic: java[1], partition: java[2] }
  const sar = /(?:subscription to |consumer\/(?!broker\/)|producer\/leader\/)([\w.-]+)\/(\d+)\b/.exec(text)
  if (sar) return { topic: sar[1], partition: sar[2] }
  return undefined
}

const groupOf = (text: string) => /groupId=([^\]\s,]+)|[Gg]roup "?([\w.-]+)"?|"groupId":"([^"]+)"|group: ([^\s,]+)/.exec(text)?.slice(1).find((g) => g !== undefined)

/** A draft with the library, the broker and the partition the record names. */
function draft(name: string, rec: LogRecord, text: string, extra: Record<string, string | undefined> = {}, opts: { partition?: boolean; broker?: boolean; group?: boolean; value?: number; fileUnderNode?: boolean } = {}): Draft {
  const labels: Record<string, string> = {}
  const lib = libraryOf(rec)
  if (lib) labels.library = lib
  if (opts.broker !== false) Object.assign(labels, brokerOf(text))
  if (opts.partition) Object.assign(labels, partitionOf(text) ?? {})
  if (opts.group) {
    const g = groupOf(text)
    if (g) labels.group = g
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) labels[k] = v
  // A failure toward one broker joins that broker's evaluation, where its own pause or halt can explain it.
  const under = opts.fileUnderNode && labels.node !== undefined && /^\d+$/.test(labels.node) ? { broker: labels.node } : {}
  return { name, labels, ...under, ...(opts.value !== undefined ? { value: opts.value } : {}) }
}

/** The last librdkafka FAIL line of a file, per client handle, to tell its ERROR echo apart. */
const lastFail = new WeakMap<MatchState, Map<string, { text: string; at: number | undefined }>>()

/**
 * librdkafka logs a broker failure twice: under FAIL, and again under ERROR when the application set no
 * error callback ("…|FAIL|rdkafka#consumer-1| … Connect to … failed" then "…|ERROR|rdkafka#consumer-1| …
 * the same text", 2.x with the handle's name in front). The echo is the same event: true for it.
 */
function librdkafkaEcho(rec: LogRecord, st: MatchState, at: number | undefined): boolean {
  const line = rec.lines[0] ?? ''
  const fac = rec.header.logger ?? /\|([A-Z]+)\|[^|]*\| |RDKAFKA-\d-([A-Z]+): /.exec(line)?.slice(1).find((g) => g !== undefined)
  if (fac !== 'FAIL' && fac !== 'ERROR') return false
  const handle = /rdkafka#\w+-\d+|[\w.-]+#(?:producer|consumer)-\d+/.exec(line)?.[0] ?? ''
  const text = rec.header.message.replace(/^\[thrd:[^\]]*\]: /, '')
  let byHandle = lastFail.get(st)
  if (!byHandle) lastFail.set(st, (byHandle = new Map()))
  if (fac === 'FAIL') {
    byHandle.set(handle, { text, at })
    return false
  }
  const prev = byHandle.get(handle)
  return prev !== undefined && text.endsWith(prev.text) && (at === undefined || prev.at === undefined || Math.abs(at - prev.at) <= 1000)
}

/**
 * A row's build that counts librdkafka's ERROR echo of a FAIL line once: the echo is `client.error_repeat`,
 * which the rules explaining the FAIL line's signal also explain (so it is neither counted twice nor left
 * as an unexplained error).
 */
function failOnce(build: Matcher['build']): Matcher['build'] {
  return (m, rec, st, at) => (librdkafkaEcho(rec, st, at) ? { name: 'client.error_repeat', labels: { library: 'librdkafka' } } : build(m, rec, st, at))
}

/** How a transport failure reads: its kind from the library's words and the OS error it quotes. */
function transportKind(text: string): string {
  if (/timed out|timeout|i\/o timeout/i.test(text)) return 'timeout'
  if (/resolve|ENOTFOUND|no such host|getaddrinfo|Name or service not known/i.test(text)) return 'resolve'
  if (/Send failed|broken pipe|EPIPE|write:/i.test(text)) return 'send'
  if (/Receive failed|ECONNRESET|reset by peer|\bEOF\b|Error receiving/i.test(text)) return 'receive'
  return 'disconnect'
}

/** A connection that was never made: connection refused, unreachable, unresolvable, or a connect timeout. */
const CONNECT_FAILED = /Connection refused|ECONNREFUSED|No route to host|EHOSTUNREACH|Network is unreachable|ENETUNREACH|ENOTFOUND|no such host|Failed to resolve|getaddrinfo/i

export const CLIENT_MATCHERS: readonly Matcher[] = [
  // C1. Connections that could not be made. librdkafka 0.11-2.x rdkafka_transport.c "<broker>: Connect to
  //     ipv4#10.0.0.1:9092 failed: Connection refused" (0.9-: "Failed to connect to broker at h:p: …"),
  //     rdkafka_broker.c "Failed to resolve 'h:p': …"; sarama "Failed to connect to broker h:p: dial tcp …";
  //     franz-go "unable to open connection to broker; addr: …, broker: …, err: …"; kafkajs connection.js
  //     "[Connection] Connection error: connect ECONNREFUSED …", "[Connection] Connection timeout",
  //     "[Connection] Failed to connect: …"; franz-go's error "unable to dial: dial tcp h:p: connect: connection
  //     refused" as applications print it; kafka-python conn.py "Connect attempt to <BrokerConnection …>
  //     returned error 111. Disconnecting.", "… Connection attempt timed out". (The Java client's "Connection
  //     to node N … could not be established" is F16 of failure-matchers.ts.)
  {
    literals: ['Connect to ', 'Failed to connect to broker', 'Failed to resolve', 'unable to open connection to broker', 'unable to dial: ', '[Connection] Connection error', '[Connection] Connection timeout', '[Connection] Failed to connect', 'Connect attempt', 'Connection attempt'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Connect to \S+ failed: (.*)|Failed to connect to broker(?: at)? \S+?:? (.*)|Failed to resolve '[^']*': (.*)|unable to open connection to broker; (.*)|unable to dial: (.*)|\[Connection\] (?:Connection error|Failed to connect): (.*)|\[Connection\] Connection timeout|Connect attempt (?:to \S+(?: [^>]*>)* )?returned error (\S+)\. Disconnecting|Connection attempt (?:to \S+ )?timed out/,
    build: failOnce((m, r) => {
      const text = textOf(r)
      const reason = m.slice(1).find((g) => g !== undefined) ?? 'timed out'
      const b = brokerOf(text)
      return draft('client.connect_failed', r, text, { via: b.node === '-1' || b.node === undefined ? 'bootstrap' : 'advertised', from: 'client', reason: CONNECT_FAILED.test(reason) || /^(?:111|61|10061)$/.test(reason) ? 'refused' : transportKind(reason) }, { fileUnderNode: true })
    }),
  },
  // C2. Established connections that broke. librdkafka rdkafka_broker.c/rdkafka_transport.c "<broker>:
  //     Disconnected" (1.x adds "(after Nms in state UP)"), "Receive failed: …", "Send failed: …", "Connection
  //     setup timed out in state …"; sarama client.go "client/metadata got error from broker N while fetching
  //     metadata: EOF|write: broken pipe|…", consumer.go "consumer/broker/N disconnecting due to error processing
  //     FetchRequest: …", "client/brokers close broker #N at h:p due to socket error: …"; kafkajs
  //     "[Connection] Connection closed by the server", "[Connection] Closed connection"; kafka-python
  //     "<BrokerConnection …>: socket disconnected", "Error receiving network data closing socket",
  //     "KafkaConnectionError attempting to send request …"; the Java client's NetworkClient "Cancelled in-flight
  //     … request with correlation id N due to node N being disconnected".
  {
    literals: ['Disconnected', 'Receive failed', 'Send failed', 'Connection setup timed out', 'got error from broker', 'disconnecting due to error processing', 'due to socket error', 'Connection closed by the server', '[Connection] Closed connection', 'socket disconnected', 'Error receiving network data', 'KafkaConnectionError attempting to send', 'being disconnected'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /: Disconnected\b|Receive failed: |Send failed: |Connection setup timed out|got error from broker (?:-?\d+ )?while fetching metadata: |disconnecting due to error processing \w+: |due to socket error: |\[Connection\] Connection closed by the server|\[Connection\] Closed connection|socket disconnected|Error receiving network data|KafkaConnectionError attempting to send|due to node -?\d+ being disconnected/,
    build: failOnce((m, r) => {
      const text = textOf(r)
      // librdkafka's "SASL authentication failure: Disconnected" is the authentication failing (C5).
      if (/SASL|SSL handshake/.test(text)) return undefined
      if (CONNECT_FAILED.test(text)) return draft('client.connect_failed', r, text, { via: /bootstrap|broker -1\b/.test(text) ? 'bootstrap' : 'advertised', from: 'client', reason: 'refused' }, { fileUnderNode: true })
      return draft('client.transport_failure', r, text, { kind: /Disconnected|Closed connection|closed by the server|disconnected/.test(m[0]) ? 'disconnect' : transportKind(text) }, { fileUnderNode: true })
    }),
  },
  // C3. No broker left. librdkafka "N/N brokers are down" (ERROR, ALL_BROKERS_DOWN); sarama "client/metadata
  //     no available broker to send metadata request to", "client has run out of available brokers to talk to";
  //     kafka-python "No node available for metadata refresh", "Unable to bootstrap from …", NoBrokersAvailable.
  {
    literals: ['brokers are down', 'no available broker to send', 'run out of available brokers', 'No node available', 'Unable to bootstrap from', 'NoBrokersAvailable', 'All broker connections are down'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /(?<!\d)(\d+)\/(\d+) brokers are down|no available broker to send|run out of available brokers|No node available|Unable to bootstrap from|NoBrokersAvailable|All broker connections are down/,
    build: (m, r) => {
      if (m[1] !== undefined && m[1] !== m[2]) return undefined
      return draft('client.all_brokers_down', r, textOf(r), m[1] !== undefined ? { brokers: m[2] } : {}, { broker: false })
    },
  },
  // C4. Requests that got no answer in time. librdkafka "Timed out ProduceRequest in flight (after 60000ms,
  //     timeout #0)", "N request(s) timed out: disconnect (average rtt …)"; the Java client's NetworkClient
  //     "Disconnecting from node N due to request timeout." and "Request … timed out"; kafka-python "<Request>
  //     timed out after N ms. Closing connection."; kafkajs KafkaJSRequestTimeoutError "Request … timed out";
  //     the REQUEST_TIMED_OUT error code in any library's words.
  {
    // The request name and what follows it are bounded and start where a word starts: a run of
    // "RequestTimedOut1" repeated over 64 KiB took 0.9 s when each of its words restarted the scan.
    literals: ['Timed out ', 'request(s) timed out', 'due to request timeout', 'timed out after', 'REQUEST_TIMED_OUT', 'RequestTimedOut', 'Request timed out', 'Request exceeded the user-specified time limit', 'The request timed out'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Timed out (\w+Request) in flight|(?<!\d)(\d+) request\(s\) timed out: disconnect|Disconnecting from node -?\d+ due to request timeout|(?<!\w)(\w{1,64}Request)\S{0,256} timed out after \d+ ms|REQUEST_TIMED_OUT|RequestTimedOut|Broker: Request timed out|Request exceeded the user-specified time limit|The request timed out/,
    build: failOnce((m, r) => draft('client.request_timeout', r, textOf(r), { request: m[1] ?? m[3] }, { fileUnderNode: true })),
  },
  // C5. Authentication and TLS. librdkafka rdkafka_ssl.c "SSL handshake failed: …", "Failed to verify broker
  //     certificate: …", rdkafka_sasl*.c "SASL authentication error: …", "SASL … mechanism handshake failed";
  //     the Java client's NetworkClient "Connection to node N (h/ip:p) failed authentication due to: …",
  //     SslAuthenticationException; sarama "client/metadata failed SASL authentication", "Error returned from
  //     broker during SASL flow"; kafka-python "SaslAuthenticate error", "Failed to wrap socket in
  //     SSLContext", CERTIFICATE_VERIFY_FAILED; kafkajs "[SaslAuthenticator-…]" errors; SASL_AUTHENTICATION_FAILED.
  {
    literals: ['SSL handshake failed', 'Failed to verify broker certificate', 'SASL authentication', 'SASL Authentication', 'mechanism handshake failed', 'failed SASL authentication', 'during SASL flow', 'SaslAuthenticat', 'SASL_AUTHENTICATION', 'failed authentication due to', 'SslAuthenticationException', 'CERTIFICATE_VERIFY_FAILED', 'SSLContext', 'Broker did not provide a certificate', 'certificate verify failed'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /SSL handshake failed|Failed to verify broker certificate|Broker did not provide a certificate|certificate verify failed|CERTIFICATE_VERIFY_FAILED|SslAuthenticationException|Failed to wrap socket in SSLContext|failed authentication due to: (.*)|SASL (?:authentication (?:error|failure|failed)|\S+ mechanism handshake failed)|failed SASL authentication|Error returned from broker during SASL flow|SaslAuthenticate error|SASL_AUTHENTICATION_FAILED|SaslAuthenticationException|SASL Authentication failed|\[SaslAuthenticator-[^\]]+\] .*(?:failed|error)/i,
    build: failOnce((m, r) => {
      const text = textOf(r)
      const tls = /SSL|certificate|TLS/i.test(m[0]) || (m[1] !== undefined && /SSL|certificate/i.test(m[1]))
      return draft('client.auth_failed', r, text, { kind: tls ? 'tls' : 'sasl' }, { fileUnderNode: true })
    }),
  },
  // C5b. librdkafka's debug-level broker failure (rdkafka_broker.c rd_kafka_broker_fail, facility BROKERFAIL, debug
  //      contexts broker/protocol): "<broker>: failed: err: Local: SSL error: (errno: Success)", "… failed: err: Local:
  //      Broker transport failure: (errno: Connection refused)". With `debug=` set it is often the only line that
  //      says why a connection died; the error text names the class.
  {
    literals: ['failed: err: Local: '],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /failed: err: Local: ([^:(]{1,80}?):? \(errno: ([^)]{0,80})\)/,
    build: failOnce((m, r) => {
      const text = textOf(r)
      const err = m[1]
      const errno = m[2]
      if (/SSL/.test(err)) return draft('client.auth_failed', r, text, { kind: 'tls' }, { fileUnderNode: true })
      if (/Authentication|SASL/i.test(err)) return draft('client.auth_failed', r, text, { kind: 'sasl' }, { fileUnderNode: true })
      if (CONNECT_FAILED.test(errno)) {
        const b = brokerOf(text)
        return draft('client.connect_failed', r, text, { via: b.node === '-1' || b.node === undefined ? 'bootstrap' : 'advertised', from: 'client', reason: 'refused' }, { fileUnderNode: true })
      }
      return draft('client.transport_failure', r, text, { kind: transportKind(`${err} ${errno}`) }, { fileUnderNode: true })
    }),
  },
  // C5c. Writes refused for too few in-sync replicas, in each client's words: the Java producer's Sender "Got error
  //      produce response with correlation id N on topic-partition t-p, retrying (…). Error: NOT_ENOUGH_REPLICAS"
  //      (and _AFTER_APPEND), Errors' "Messages are rejected since there are fewer in-sync replicas than required."
  //      (sarama's and kafkajs' tables carry the same text), librdkafka's "Broker: Not enough in-sync replicas" /
  //      "Broker: Message(s) written to insufficient number of in-sync replicas", kafka-go's "[19] Not Enough Replicas".
  //      The broker-side NotEnoughReplicasException record is matcher 29's (matchers.ts).
  {
    literals: ['NOT_ENOUGH_REPLICAS', 'fewer in-sync replicas than required', 'Not enough in-sync replicas', 'insufficient number of in-sync replicas', 'Not Enough Replicas'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /NOT_ENOUGH_REPLICAS(?:_AFTER_APPEND)?\b|fewer in-sync replicas than required|Broker: Not enough in-sync replicas|insufficient number of in-sync replicas|\[19\] Not Enough Replicas/,
    build: failOnce((_m, r) => {
      const text = textOf(r)
      // The exception itself (broker or client side) is matcher 29's in matchers.ts; one signal per record.
      if (/NotEnoughReplicas(?:AfterAppend)?Exception|Error processing append operation|below required minimum/.test(text)) return undefined
      const named = /on topic-partition (\S+?),/.exec(text)?.[1]
      const split = named ? /^(.+)-(\d+)$/.exec(named) : null
      const tp = split ? { topic: split[1], partition: split[2] } : partitionOf(text)
      return tp ? { name: 'produce.not_enough_replicas', labels: tp } : { name: 'produce.not_enough_replicas' }
    }),
  },
  // C6. The Java client's metadata: "Error while fetching metadata with correlation id N : {t=UNKNOWN_TOPIC_OR_PARTITION}"
  //     (NetworkClient, WARN, 0.10-3.6), "The metadata response from the cluster reported a recoverable issue with
  //     correlation id N : {t=…}" (3.7+), and "Topic t not present in metadata after N ms." (KafkaProducer, 2.x-4.x).
  {
    literals: ['Error while fetching metadata with correlation id', 'reported a recoverable issue with correlation id', 'not present in metadata after'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /(?:Error while fetching metadata|The metadata response from the cluster reported a recoverable issue) with correlation id \d+ : \{([^=}]+)=(\w+)|Topic (\S+) not present in metadata after (\d+) ms/,
    build: (m, r) => {
      const topic = m[1] ?? m[3]
      const error = m[2] ?? 'METADATA_TIMEOUT'
      if (error === 'LEADER_NOT_AVAILABLE') return draft('client.not_leader', r, textOf(r), { topic, error }, { broker: false })
      return draft('client.unknown_topic', r, textOf(r), { topic, error }, { broker: false })
    },
  },
  // C7. Protocol errors named in any library's words (PROTOCOL_ERRORS): the not-leader family (beyond the
  //     Java wording of row 26), unknown topics, oversized messages, offsets out of range, group and
  //     coordinator errors, fenced and out-of-sequence producers. One record gives one signal.
  {
    literals: PROTOCOL_LITERALS,
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /^/,
    build: (_m, r) => protocolDraft(r),
  },
  // C8. Consumer poll stalls in librdkafka's and kafka-python's words: "Application maximum poll interval
  //     (300000ms) exceeded by 226ms (adjust max.poll.interval.ms …): leaving group" (MAXPOLL, 1.0-2.x) and
  //     "Heartbeat poll expired, leaving group" (kafka-python coordinator/base.py). The Java client's wording
  //     is F-row group.member_poll_timeout of failure-matchers.ts.
  {
    literals: ['Application maximum poll interval', 'Heartbeat poll expired', 'Maximum application poll interval'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /Application maximum poll interval \((\d+)ms\) exceeded by (\d+)ms|Maximum application poll interval \(max\.poll\.interval\.ms\) exceeded|Heartbeat poll expired/,
    build: (_m, r) => draft('group.member_poll_timeout', r, textOf(r), {}, { broker: false, group: true }),
  },
  // C9. Commits that failed. The Java client's ConsumerCoordinator "Offset commit failed on partition t-p at
  //     offset N: …", "Asynchronous auto-commit of offsets {…} failed: …", "Synchronous auto-commit of offsets
  //     {…} failed: …", CommitFailedException; librdkafka rdkafka_cgrp.c "Offset commit (manual) failed for 1/1
  //     partition(s) in join-state …: …" (COMMITFAIL) and "Offset commit failed: …"; franz-go "default commit
  //     failed; group: …, err: …", "unable to commit offsets for topic partition"; kafka-python "Offset commit
  //     failed: …", "Group g failed to commit partition …".
  {
    literals: ['commit failed', 'Offset commit (', 'auto-commit of offsets', 'CommitFailed', 'failed to commit', 'unable to commit offsets', 'Commit cannot be completed', 'commit cannot be completed'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Offset commit failed on partition (\S+) at offset \d+: (.*)|(?:A|Syncrhonous|Synchronous)s?(?:ynchronous)? auto-commit of offsets .* failed: (.*)|Offset commit \(\w+\) failed for .*: (.*)|Offset commit failed: (.*)|commit failed; group: |unable to commit offsets|failed to commit|CommitFailedException|[Cc]ommit cannot be completed/,
    build: (m, r) => {
      const text = textOf(r)
      const why = m.slice(2).find((g) => g !== undefined) ?? text
      return draft('client.commit_failed', r, text, { error: protocolError(why) }, { broker: false, partition: true, group: true })
    },
  },
  // C10. Throttling: librdkafka "<broker>: ProduceRequest throttled by broker Nms"-family (THROTTLE), sarama
  //      "consumer/broker/N FetchResponse throttled 100ms" / ProduceResponse, kafka-python "<conn>: <Request>
  //      throttled by broker (N ms)", franz-go "broker is throttling us in response; …, throttle_millis: N".
  {
    literals: ['throttled', 'throttling us'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    re: /throttled by broker (?:\()?(\d+)\s?ms|(?:Fetch|Produce)Response throttled (\d+(?:\.\d+)?)(ms|s)\b|throttling us in response.*throttle_millis: (\d+)/,
    build: (m, r) => {
      const ms = m[1] ?? m[4] ?? (m[2] !== undefined ? String(Number(m[2]) * (m[3] === 's' ? 1000 : 1)) : undefined)
      return ms !== undefined && Number(ms) > 0 ? draft('client.throttled', r, textOf(r), {}, { value: Number(ms), fileUnderNode: true }) : undefined
    },
  },
  // C11. Producer requests that failed for good: the Java client's "Expiring N record(s) for t-p:N ms has passed
  //      since batch creation" (TimeoutException) and ErrorLoggingCallback "Error when sending message to topic
  //      t with key: …"; librdkafka "Local: Message timed out" / _MSG_TIMED_OUT delivery reports; kafka-python
  //      "Expired N records …", "KafkaTimeoutError: Batch for TopicPartition(…) containing N record(s) expired".
  {
    literals: ['Expiring ', 'Error when sending message to topic', 'Message timed out', 'MSG_TIMED_OUT', 'record(s) expired', 'Failed to send messages', 'records failed'],
    scope: 'record',
    formats: KAFKA_CLIENT,
    re: /Expiring \d+ record\(s\) for (\S+?):\s?\d+ ms has passed|Error when sending message to topic (\S+)|Local: Message timed out|MSG_TIMED_OUT|record\(s\) expired|\[Producer\] Failed to send messages/,
    build: (m, r) => {
      const text = r.lines.join('\n')
      const expired = /Expiring|timed out|TIMED_OUT|expired|TimeoutException/.test(text)
      const d = draft('client.produce_failed', r, textOf(r), { kind: expired ? 'expired' : 'error', topic: m[2] }, { broker: false, partition: true })
      if (m[1]) {
        const p = /^(.+)-(\d+)$/.exec(m[1])
        if (p) Object.assign(d.labels as Record<string, string>, { topic: p[1], partition: p[2] })
      }
      return d
    },
  },
  // C12. Fatal producer errors: librdkafka "Fatal error: …" (FATAL) and "Fatal transaction error: …" (TXNERR);
  //      the Java client's TransactionManager "Transiting to fatal error state due to …" and KafkaProducer's
  //      ProducerFencedException; franz-go "fatal InitProducerID error …", "fatal AddPartitionsToTxn error …".
  {
    literals: ['Fatal error: ', 'Fatal transaction error', 'Transiting to fatal error state', 'fatal InitProducerID error', 'fatal AddPartitionsToTxn error'],
    scope: 'message',
    formats: KAFKA_CLIENT,
    // The text before franz-go's "err: " is bounded: each repeat of the wording would rescan the line.
    re: /Fatal (?:transaction )?error: (.*)|Transiting to fatal error state due to (.*)|fatal (?:InitProducerID|AddPartitionsToTxn) error.{0,512}?err: (.*)/,
    build: (m, r) => fatalDraft(r, m.slice(1).find((g) => g !== undefined) ?? ''),
  },
]

/** The kind of a fatal producer error, from the error it names. */
function fatalDraft(rec: LogRecord, why: string): Draft {
  const code = protocolError(why)
  const kind = code === 'PRODUCER_FENCED' ? 'fenced' : code === 'OUT_OF_ORDER_SEQUENCE_NUMBER' ? 'sequence' : code === 'UNKNOWN_PRODUCER_ID' ? 'unknown_producer' : /authoriz/i.test(why) ? 'authorization' : 'other'
  return draft('client.fatal_error', rec, textOf(rec), { kind, error: code }, { broker: false })
}

/** Row C7: the protocol error of a record, as the signal of its class. */
function protocolDraft(rec: LogRecord): Draft | undefined {
  const text = textOf(rec)
  const whole = rec.lines.length > 1 ? `${text}\n${rec.lines.slice(1, 40).join('\n')}` : text
  const code = protocolError(whole)
  if (!code) return undefined
  // Lines other rows already read as their own class.
  if (/Fatal (?:transaction )?error: |Transiting to fatal error state|Offset commit failed|auto-commit of offsets|Offset commit \(|CommitFailedException|Error while fetching metadata with correlation id|reported a recoverable issue with correlation id|NotLeaderForPartition|NOT_LEADER_FOR_PARTITION|NOT_LEADER_OR_FOLLOWER|NotLeaderOrFollower/.test(whole)) return undefined
  switch (code) {
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'LEADER_NOT_AVAILABLE':
      return draft('client.not_leader', rec, text, { error: code }, { partition: true })
    case 'UNKNOWN_TOPIC_OR_PARTITION':
      return draft('client.unknown_topic', rec, text, { error: code }, { partition: true })
    case 'MESSAGE_TOO_LARGE':
      return draft('client.message_too_large', rec, text, {}, { partition: true })
    case 'OFFSET_OUT_OF_RANGE':
      return draft('client.offset_out_of_range', rec, text, {}, { partition: true, broker: false })
    case 'REBALANCE_IN_PROGRESS':
    case 'ILLEGAL_GENERATION':
    case 'UNKNOWN_MEMBER_ID':
      return draft('client.rebalance', rec, text, { error: code }, { group: true, broker: false })
    case 'NOT_COORDINATOR':
    case 'COORDINATOR_NOT_AVAILABLE':
    case 'COORDINATOR_LOAD_IN_PROGRESS':
      return draft('client.coordinator_unavailable', rec, text, { error: code }, { group: true })
    case 'REQUEST_TIMED_OUT':
      return undefined
    default:
      // Fenced, out-of-sequence and unknown-producer codes show up in retried produce responses too ("Got
      // error produce response … retrying"); only a client's own fatal line (C12) makes them fatal.
      return undefined
  }
}
