/**
 * Shared vocabulary of the log adapters: what a source is, which file formats and line layouts exist,
 * and how lines that yield nothing are counted. Kept apart so the parser, the tailer and the incident
 * reader agree on one shape.
 */

/** What kind of program wrote the file; decides which message matchers run. */
export type LogFormat = 'kafka' | 'gc' | 'client'

/**
 * How one line is laid out around its message.
 * - apache: Kafka's shipped log4j `[2018-08-06 01:28:02,562] WARN msg (logger)`
 * - strimzi: `2023-01-10 12:00:00,123 INFO msg (logger) [thread]` (also plain ISO date first)
 * - cloudera: `2019-02-01 10:00:00,123 INFO kafka.server.KafkaServer: msg`
 * - jvm: JDK 8 `-XX:+PrintGCDateStamps/TimeStamps` prefixes and JDK 9+ unified logging decorators
 * - none: no timestamp at all (kafka-producer-perf-test progress output, bare exception lines, a paste
 *   with the stamps cut off, kafka-python's default `ERROR:kafka.conn:…`)
 * - learned:…: a layout learned from the file itself (see LearnedLayoutName)
 */
export type LayoutName = 'apache' | 'strimzi' | 'cloudera' | 'jvm' | 'none' | LearnedLayoutName

/**
 * Where a learned layout's records carry their time: a full date-time (`2021-05-11 11:31:38.348`,
 * `2015/04/15 23:29:42`), a time of day only (`13:57:44.697`, the date cut off or never written), epoch
 * seconds or ms (`1571732798.712`), or inside a JSON object (kafkajs).
 */
export type LearnedTime = 'date-time' | 'time-of-day' | 'epoch' | 'json'

/**
 * A layout learned from a file's own lines rather than taken from the fixed list above
 * (adapters/logs/learned-layout.ts): `learned:<where the time is>`, and `:<client>` when the lines are a
 * client library's own layout. The level, thread and logger are found on each line around the time.
 */
export type LearnedLayoutName = `learned:${LearnedTime}` | `learned:${LearnedTime}:${ClientName}`

/**
 * The client library that wrote a record, when its layout says so (librdkafka's `%3|…|FAC|rdkafka#…|`,
 * sarama's `[sarama] `, kafkajs' JSON, franz-go's `[LEVEL] msg; key: value`, kafka-python's
 * `LEVEL:kafka.conn:`, the Java client's `org.apache.kafka.clients` loggers as Spring, Connect and
 * Streams print them). Read by client matchers from `Header.client`; the wrappers of librdkafka
 * (confluent-kafka-python/go/.NET, node-rdkafka) print its lines and are `librdkafka`.
 */
export type ClientName = 'java' | 'librdkafka' | 'sarama' | 'franz-go' | 'kafkajs' | 'kafka-python'

/** Container log wrappers that sit around a whole line and are removed before the layout is read. */
export type WrapperName = 'docker-compose' | 'kubernetes' | 'docker-json' | 'line-prefix'

/** One log file and what is known about it that the file itself may not say. */
export type LogSourceConfig = {
  /** The name used in each signal's `source` ("log:<path>:<line>"). */
  path: string
  cluster: string
  /** Broker the file belongs to; absent for client-side or cluster-wide files. */
  broker?: string
  /** Skip detection. */
  format?: LogFormat
  layout?: LayoutName
  /** Offset ("+08:00", "-0400", "Z") or IANA zone ("Asia/Shanghai") for timestamps written without one; default UTC. */
  timeZone?: string
  /** Epoch ms the JVM started, to place uptime-only GC lines ("491.491: …") on the clock. */
  jvmStart?: number
  /** Epoch ms of the first line of a file with no timestamps (perf-test output); progress lines are 5 s apart. */
  start?: number
  /**
   * Epoch ms standing in for the time of a file that has no timestamps at all (replay uses the file's
   * modification time). Its records keep their order, 1 ms apart, and carry the label `time_unknown`.
   */
  undatedAt?: number
}

/** Why a line produced no signal although it should have been read. Stable text: used as counter keys. */
export type UnparsedReason =
  | 'invalid-utf8'
  | 'line-too-long'
  | 'no-layout'
  | 'no-timestamp'
  | 'unknown-format'
  | 'unreadable'

/** Counters a caller can show after a replay or while tailing: nothing is dropped silently. */
export type ParseStats = {
  lines: number
  bytes: number
  records: number
  signals: number
  unparsed: Record<UnparsedReason, number>
}

/** A zeroed counter set. */
export function emptyStats(): ParseStats {
  return {
    lines: 0,
    bytes: 0,
    records: 0,
    signals: 0,
    unparsed: { 'invalid-utf8': 0, 'line-too-long': 0, 'no-layout': 0, 'no-timestamp': 0, 'unknown-format': 0, unreadable: 0 },
  }
}

/** Adds `from` into `into`, for totals over many files. */
export function addStats(into: ParseStats, from: ParseStats): void {
  into.lines += from.lines
  into.bytes += from.bytes
  into.records += from.records
  into.signals += from.signals
  for (const k of Object.keys(from.unparsed) as UnparsedReason[]) into.unparsed[k] += from.unparsed[k]
}
