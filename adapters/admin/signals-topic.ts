import kafkajs, { type Consumer, type KafkaConfig, type Producer } from 'kafkajs'
import { validateSignal } from '../../signals/jsonl.js'
import type { Signal } from '../../signals/signal.js'
import { parseLogLines } from '../logs/parser.js'

const { Kafka, logLevel } = kafkajs

/**
 * The signals topic: how agents and log shippers hand signals to many engine processes. Messages
 * are keyed by `cluster:broker`, so one broker's signals stay in one partition, in order, and the
 * engine processes of one consumer group split the brokers between them. A message is either a
 * Signal as JSON, or a raw log line `{"line": "...", "cluster": "c", "broker": "1", "path": "server.log"}`
 * parsed here. Offsets are committed only after the store holds a batch's signals.
 */
export type SignalsTopicOptions = {
  brokers: string[]
  topic: string
  clientId?: string
  ssl?: KafkaConfig['ssl']
  sasl?: KafkaConfig['sasl']
}

/** A raw log line as a shipper sends it. */
export type RawLogLine = { line: string; cluster: string; broker?: string; path?: string }

/** The partition key of a signal: its broker's identity. */
export function signalKey(s: { cluster: string; broker?: string }): string {
  return `${s.cluster}:${s.broker ?? ''}`
}

function kafkaOf(opts: SignalsTopicOptions, role: string) {
  return new Kafka({
    clientId: opts.clientId ?? `kafka-why-${role}`,
    brokers: opts.brokers,
    ssl: opts.ssl,
    sasl: opts.sasl,
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5000 },
  })
}

/** Ships signals (and raw log lines) to the topic. */
export class SignalsTopicProducer {
  private readonly producer: Producer
  private connected: Promise<void> | undefined

  constructor(private readonly opts: SignalsTopicOptions) {
    this.producer = kafkaOf(opts, 'shipper').producer({ allowAutoTopicCreation: false })
  }

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((err: unknown) => {
      this.connected = undefined
      throw err
    })
    return this.connected
  }

  /** Sends signals; resolves once the brokers acknowledged them (acks=all). */
  async send(signals: Signal[]): Promise<void> {
    if (signals.length === 0) return
    await this.connect()
    await this.producer.send({ topic: this.opts.topic, acks: -1, messages: signals.map((s) => ({ key: signalKey(s), value: JSON.stringify(s) })) })
  }

  /** Sends raw log lines for the consumer to parse. */
  async sendLines(lines: RawLogLine[]): Promise<void> {
    if (lines.length === 0) return
    await this.connect()
    await this.producer.send({ topic: this.opts.topic, acks: -1, messages: lines.map((l) => ({ key: signalKey(l), value: JSON.stringify(l) })) })
  }

  async close(): Promise<void> {
    if (this.connected) await this.producer.disconnect()
    this.connected = undefined
  }
}

/** Counts of what the consumer read. */
export type TopicConsumerStats = { messages: number; signals: number; lines: number; invalid: Record<string, number> }

/** Decodes one batch of message values into signals; bad messages are counted, never thrown. */
export function decodeMessages(values: (Buffer | null)[], stats: TopicConsumerStats): Signal[] {
  const out: Signal[] = []
  const lines = new Map<string, { cfg: RawLogLine; lines: string[] }>()
  const bad = (reason: string) => void (stats.invalid[reason] = (stats.invalid[reason] ?? 0) + 1)
  for (const value of values) {
    stats.messages++
    if (!value) {
      bad('empty message')
      continue
    }
    let x: unknown
    try {
      x = JSON.parse(value.toString('utf8'))
    } catch {
      bad('not JSON')
      continue
    }
    const raw = x as Partial<RawLogLine>
    if (raw && typeof raw === 'object' && typeof raw.line === 'string') {
      if (typeof raw.cluster !== 'string' || raw.cluster === '') {
        bad('log line without cluster')
        continue
      }
      // Lines of one file within a batch are parsed together so a stack trace stays one record.
      const k = `${raw.cluster}\u0000${raw.broker ?? ''}\u0000${raw.path ?? ''}`
      let group = lines.get(k)
      if (!group) lines.set(k, (group = { cfg: raw as RawLogLine, lines: [] }))
      group.lines.push(raw.line)
      stats.lines++
      continue
    }
    const v = validateSignal(x)
    if (v.ok) out.push(v.signal)
    else bad(v.reason)
  }
  for (const { cfg, lines: ls } of lines.values()) {
    const r = parseLogLines(ls, { path: cfg.path ?? 'signals-topic', cluster: cfg.cluster, broker: cfg.broker })
    for (const s of r.signals) out.push(s)
  }
  stats.signals += out.length
  return out
}

/** A running consumer. */
export type SignalsTopicConsumer = {
  stats: TopicConsumerStats
  consumer: Consumer
  /** The partitions of the topic this engine was given at its last group join, ascending; [] before the first. */
  partitions(): number[]
  /**
   * Reads again, on this engine's partitions, what was produced since `sinceMs` (message time) and is
   * already committed: for a store that may have lost acknowledged writes (a Redis Cluster failover).
   * Uncommitted messages are read anyway, so a partition is only moved back, never forward. Gives the
   * partitions moved and how many committed messages they read again.
   */
  rewind(sinceMs: number): Promise<{ partitions: number[]; messages: number }>
  stop(): Promise<void>
}

/** kafkajs' (and Kafka's) default session timeout. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000

/** Heartbeats well inside the session timeout: 3 s (Kafka's default) or a third of a shorter session. */
export function heartbeatIntervalFor(sessionTimeoutMs: number): number {
  return Math.max(100, Math.min(3000, Math.floor(sessionTimeoutMs / 3)))
}

/**
 * Joins `groupId` and writes every message's signals through `write` (a SignalWriter's write, or a
 * store's append), committing a batch's offsets only after `write` resolved for it; a batch the
 * writer refused ('buffer full', 'writer closed') is not committed, so it is read again.
 */
export async function consumeSignalsTopic(
  opts: SignalsTopicOptions & {
    groupId: string
    fromBeginning?: boolean
    /** Default 30 s. */
    sessionTimeoutMs?: number
    /** Called at each group join with the partitions this engine now reads. */
    onAssign?: (partitions: number[]) => void
  },
  write: (signals: Signal[]) => Promise<unknown>,
): Promise<SignalsTopicConsumer> {
  const stats: TopicConsumerStats = { messages: 0, signals: 0, lines: 0, invalid: {} }
  const sessionTimeout = opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS
  const consumer = kafkaOf(opts, 'engine').consumer({ groupId: opts.groupId, sessionTimeout, heartbeatInterval: heartbeatIntervalFor(sessionTimeout) })
  let assigned: number[] = []
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    assigned = [...(e.payload.memberAssignment[opts.topic] ?? [])].sort((a, b) => a - b)
    opts.onAssign?.([...assigned])
  })
  await consumer.connect()
  await consumer.subscribe({ topic: opts.topic, fromBeginning: opts.fromBeginning ?? true })
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale }) => {
      if (!isRunning() || isStale()) return
      const signals = decodeMessages(
        batch.messages.map((m) => m.value),
        stats,
      )
      if (signals.length) {
        const outcome = (await write(signals)) as { rejected?: Record<string, number> } | undefined
        const refused = (outcome?.rejected?.['buffer full'] ?? 0) + (outcome?.rejected?.['writer closed'] ?? 0)
        // Not stored for now: leave the offsets alone so the batch is delivered again.
        if (refused > 0) throw new Error(`store refused ${refused} signals; the batch will be read again`)
      }
      const last = batch.messages[batch.messages.length - 1]
      if (last) resolveOffset(last.offset)
      await commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: String(Number(batch.lastOffset()) + 1) }] }] })
      await heartbeat()
    },
  })
  const kafka = kafkaOf(opts, 'engine-rewind')
  const rewind = async (sinceMs: number) => {
    const mine = [...assigned]
    const moved = { partitions: [] as number[], messages: 0 }
    if (mine.length === 0) return moved
    const admin = kafka.admin()
    await admin.connect()
    try {
      const [byTime, [committed]] = await Promise.all([admin.fetchTopicOffsetsByTimestamp(opts.topic, sinceMs), admin.fetchOffsets({ groupId: opts.groupId, topics: [opts.topic] })])
      for (const p of mine) {
        const from = Number(byTime.find((x) => x.partition === p)?.offset ?? -1)
        const done = Number(committed.partitions.find((x) => x.partition === p)?.offset ?? -1)
        if (from < 0 || done <= from) continue
        consumer.seek({ topic: opts.topic, partition: p, offset: String(from) })
        moved.partitions.push(p)
        moved.messages += done - from
      }
    } finally {
      await admin.disconnect()
    }
    return moved
  }
  return { stats, consumer, partitions: () => [...assigned], rewind, stop: () => consumer.disconnect() }
}
