import type { Admin, Consumer, Kafka as KafkaClient } from 'kafkajs'
import type { Signal } from '../../signals/signal.js'
import { groupPartition, kafkaClientOf, type KafkaAdminOptions } from '../admin/kafka-admin.js'
import { LagTracker, type LagTrackerOptions, type LagTrackerStats, type LogEnd } from './lag-tracker.js'
import { decodeRecord, RecordDecodeError } from './offsets-codec.js'

/** Polls between attempts to read __consumer_offsets after it could not be read. */
const READER_RETRY_POLLS = 10
/** Tries at start before the admin API is used instead. */
const READER_START_TRIES = 3

/**
 * Consumer lag of one cluster, live: a kafkajs consumer reads `__consumer_offsets` from the
 * beginning (its own group commits nothing and is never tracked), every record decoded into the
 * tracker; on a steady interval the admin API reads the log-end offsets of every topic a group
 * commits on and the leaders of their partitions and of `__consumer_offsets` (whose leaders are
 * the groups' coordinators). When the topic cannot be read (no ACL for it, a cluster that refuses
 * internal topics) the committed offsets come from the admin API instead (`fetchOffsets` per
 * group, describeGroups for members): no commit history between polls then, so a group that
 * commits the same offset over and over looks STOPPED rather than STALLED.
 */
export type ConsumerLagSourceOptions = LagTrackerOptions & {
  kafka: KafkaAdminOptions
  sink: (signals: Signal[]) => Promise<void> | void
  /** Epoch ms; the adapter's only clock. */
  now?: () => number
  /** 'topic' reads __consumer_offsets (falling back to the admin API when it cannot), 'admin' only the admin API. Default 'topic'. */
  offsets?: 'topic' | 'admin'
  /** How long one try of the reader may take to start (three tries before the admin API is used instead); default 20 000 ms. */
  readerStartTimeoutMs?: number
  /** Called with what the source could not do (the reader's failure, a poll's error); never thrown. */
  onWarning?: (message: string) => void
}

export type ConsumerLagPollOutcome = { ok: boolean; at: number; signals: number; mode: 'topic' | 'admin'; error?: string; stats: LagTrackerStats }

export class ConsumerLagSource {
  readonly tracker: LagTracker
  private readonly kafka: KafkaClient
  private admin: Admin | undefined
  private consumer: Consumer | undefined
  private mode: 'topic' | 'admin'
  /** Polls until the next attempt to read __consumer_offsets after a failed one (0: no retry pending). */
  private readerRetryIn = 0
  private readonly now: () => number
  private readonly ownGroup: string
  decodeErrors = 0

  constructor(private readonly options: ConsumerLagSourceOptions) {
    this.ownGroup = options.ownGroup ?? `kafka-why-lag-${options.cluster}`
    this.tracker = new LagTracker({ ...options, ownGroup: this.ownGroup })
    this.now = options.now ?? Date.now
    this.mode = options.offsets ?? 'topic'
    this.kafka = kafkaClientOf(options.kafka, 'kafka-why-lag')
  }

  /** Connects the admin client and, in topic mode, starts reading __consumer_offsets; falls back to the admin API when that fails. */
  async start(): Promise<void> {
    this.admin = this.kafka.admin()
    await this.admin.connect()
    if (this.mode !== 'topic') return
    // The topic may be moments old (the first group's request creates it) and not led yet: a few
    // tries, a couple of seconds apart, before falling back.
    let last: Error | undefined
    for (let i = 0; i < READER_START_TRIES; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 2_000))
      try {
        await withTimeout(this.startReader(), this.options.readerStartTimeoutMs ?? 20_000, 'reading __consumer_offsets')
        return
      } catch (err) {
        last = err as Error
        await this.consumer?.disconnect().catch(() => undefined)
        this.consumer = undefined
      }
    }
    this.options.onWarning?.(`consumer lag: cannot read __consumer_offsets (${last?.message}); committed offsets come from the admin API`)
    this.mode = 'admin'
    this.readerRetryIn = READER_RETRY_POLLS
  }

  /** Tries the topic again after a failed start (it may not have existed yet: the first group creates it). */
  private async retryReader(): Promise<void> {
    if (this.readerRetryIn === 0 || --this.readerRetryIn > 0) return
    try {
      await withTimeout(this.startReader(), this.options.readerStartTimeoutMs ?? 20_000, 'reading __consumer_offsets')
      this.mode = 'topic'
      this.options.onWarning?.('consumer lag: reading __consumer_offsets now')
    } catch {
      this.readerRetryIn = READER_RETRY_POLLS
      await this.consumer?.disconnect().catch(() => undefined)
      this.consumer = undefined
    }
  }

  private async startReader(): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: this.ownGroup, allowAutoTopicCreation: false, sessionTimeout: 30_000 })
    this.consumer = consumer
    await consumer.connect()
    await consumer.subscribe({ topics: ['__consumer_offsets'], fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          try {
            this.tracker.applyRecord(decodeRecord(m.key, m.value), batch.partition)
          } catch (err) {
            if (!(err instanceof RecordDecodeError)) throw err
            this.decodeErrors++
          }
        }
      },
    })
  }

  /** One poll: leaders, log ends, (admin mode) committed offsets and members; then the tracker's signals to the sink. */
  async pollOnce(): Promise<ConsumerLagPollOutcome> {
    const at = this.now()
    const admin = this.admin
    if (!admin) return { ok: false, at, signals: 0, mode: this.mode, error: 'not started', stats: this.tracker.stats() }
    try {
      await this.retryReader()
      if (this.mode === 'admin') await this.readCommittedOffsets(admin, at)
      const topics = this.tracker.topics()
      const meta = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets', ...topics] })
      const leaderOf = new Map<string, number>()
      const offsetsLeaders = new Map<number, number>()
      for (const t of meta.topics)
        for (const p of t.partitions) {
          leaderOf.set(`${t.name}\u0000${p.partitionId}`, p.leader)
          if (t.name === '__consumer_offsets') offsetsLeaders.set(p.partitionId, p.leader)
        }
      const logEnds: LogEnd[] = []
      const answers = await Promise.all(topics.map((topic) => admin.fetchTopicOffsets(topic).then((ps) => ({ topic, ps }), () => ({ topic, ps: [] }))))
      for (const { topic, ps } of answers)
        for (const p of ps) logEnds.push({ topic, partition: p.partition, offset: Number(p.high), leader: leaderOf.get(`${topic}\u0000${p.partition}`) })
      const signals = this.tracker.tick(at, logEnds, offsetsLeaders)
      await this.options.sink(signals)
      return { ok: true, at, signals: signals.length, mode: this.mode, stats: this.tracker.stats() }
    } catch (err) {
      const error = (err as Error).message
      this.options.onWarning?.(`consumer lag: poll failed: ${error}`)
      return { ok: false, at, signals: 0, mode: this.mode, error, stats: this.tracker.stats() }
    }
  }

  /** The admin API's committed offsets of every group (the fallback). */
  private async readCommittedOffsets(admin: Admin, at: number): Promise<void> {
    const groups = (await admin.listGroups()).groups.filter((g) => g.groupId !== this.ownGroup && (g.protocolType === 'consumer' || g.protocolType === ''))
    const meta = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] }).catch(() => undefined)
    const offsetsParts = meta?.topics[0]?.partitions ?? []
    const coordinatorOf = (id: string) => offsetsParts.find((p) => p.partitionId === groupPartition(id, offsetsParts.length))?.leader
    for (const { groupId } of groups.slice(0, this.options.maxGroups ?? 2000)) {
      const byTopic = await admin.fetchOffsets({ groupId }).catch(() => [])
      for (const t of byTopic) for (const p of t.partitions) this.tracker.applyCommitted(groupId, t.topic, p.partition, Number(p.offset), at, coordinatorOf(groupId))
    }
    const described = await admin.describeGroups(groups.map((g) => g.groupId).slice(0, this.options.maxGroups ?? 2000)).catch(() => undefined)
    for (const g of described?.groups ?? []) this.tracker.applyMembers(g.groupId, g.members.length, coordinatorOf(g.groupId))
  }

  get offsetsMode(): 'topic' | 'admin' {
    return this.mode
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => undefined)
    await this.admin?.disconnect().catch(() => undefined)
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not start within ${ms} ms`)), ms)
  })
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}
