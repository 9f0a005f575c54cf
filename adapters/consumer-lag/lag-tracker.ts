import { lagSecondsAt, type LogEndPoint } from '../../engine/consumer-lag-status.js'
import type { Signal } from '../../signals/signal.js'
import type { ConsumerOffsetsRecord } from './offsets-codec.js'

/**
 * The consumer-lag adapter's state, with no Kafka client in it: the latest committed offset of
 * every group and partition (from `__consumer_offsets` records or the admin API), each group's
 * members, and each partition's recent log-end offsets. Every poll it turns that into signals:
 * the log ends, the commits made since the last poll, the lag in messages and in time, and the
 * group's member count. Bounded: at most `maxGroups` groups of at most `maxPartitionsPerGroup`
 * partitions are tracked (the rest are counted as dropped), and at most `historyPoints` log ends
 * per partition are kept.
 */
export type LagTrackerOptions = {
  cluster: string
  /** Default 2000. */
  maxGroups?: number
  /** Default 1000. */
  maxPartitionsPerGroup?: number
  /** Log-end samples kept per partition for the lag in time; default DEFAULT_HISTORY_POINTS. */
  historyPoints?: number
  /** The adapter's own group (it reads __consumer_offsets as a consumer): never tracked. */
  ownGroup?: string
  /** `source` of the signals; default "consumer-lag". */
  source?: string
}

/** Log-end samples kept per partition: an hour at a 30 s poll; an offset older than that is extrapolated at the hour's write rate. */
export const DEFAULT_HISTORY_POINTS = 120

type Commit = { offset: number; at: number; sent: boolean }
type GroupState = {
  /** "topic\0partition" → the latest commit. */
  commits: Map<string, Commit>
  /** Partition of __consumer_offsets the group's records live in: its leader is the coordinator. */
  offsetsPartition?: number
  /** Broker the admin API named as coordinator, when the records were not read. */
  coordinator?: number
  members?: number
  generation?: number
  protocolType?: string
}
type History = { points: LogEndPoint[]; leader?: number }

/** What the tracker holds and what it turned away. */
export type LagTrackerStats = { groups: number; partitions: number; droppedGroups: number; droppedPartitions: number; logEndPartitions: number; historyPoints: number }

/** A log-end offset read at a poll. */
export type LogEnd = { topic: string; partition: number; offset: number; leader?: number }

const tpKey = (topic: string, partition: number | string) => `${topic}\u0000${partition}`

export class LagTracker {
  private readonly groups = new Map<string, GroupState>()
  private readonly history = new Map<string, History>()
  private droppedGroups = new Set<string>()
  private droppedPartitions = 0
  private readonly maxGroups: number
  private readonly maxParts: number
  private readonly maxPoints: number
  private readonly source: string

  constructor(private readonly options: LagTrackerOptions) {
    this.maxGroups = options.maxGroups ?? 2000
    this.maxParts = options.maxPartitionsPerGroup ?? 1000
    this.maxPoints = options.historyPoints ?? DEFAULT_HISTORY_POINTS
    this.source = options.source ?? 'consumer-lag'
  }

  private group(id: string, create: boolean): GroupState | undefined {
    let g = this.groups.get(id)
    if (g || !create || id === this.options.ownGroup) return g
    if (this.groups.size >= this.maxGroups) {
      this.droppedGroups.add(id)
      return undefined
    }
    g = { commits: new Map() }
    this.groups.set(id, g)
    return g
  }

  /** One decoded record of `__consumer_offsets`, read from partition `offsetsPartition` of it. Tombstones delete. */
  applyRecord(rec: ConsumerOffsetsRecord, offsetsPartition?: number): void {
    if (rec.kind === 'other') return
    const id = rec.key.group
    if (rec.kind === 'offset') {
      const k = tpKey(rec.key.topic, rec.key.partition)
      if (!rec.value) {
        const g = this.groups.get(id)
        g?.commits.delete(k)
        if (g && g.commits.size === 0 && g.members === undefined) this.groups.delete(id)
        return
      }
      this.setCommit(id, k, rec.value.offset, rec.value.commitTimestamp, offsetsPartition)
      return
    }
    if (!rec.value) {
      this.groups.delete(id)
      return
    }
    const g = this.group(id, true)
    if (!g) return
    if (offsetsPartition !== undefined) g.offsetsPartition = offsetsPartition
    g.members = rec.value.members.length
    g.generation = rec.value.generation
    g.protocolType = rec.value.protocolType
  }

  /** A committed offset from the admin API (the fallback when __consumer_offsets cannot be read). */
  applyCommitted(group: string, topic: string, partition: number, offset: number, at: number, coordinator?: number): void {
    // The admin API answers -1 for a partition the group has no offset for.
    if (offset < 0) return
    const g = this.groups.get(group)
    const known = g?.commits.get(tpKey(topic, partition))
    // Unchanged offsets from a poll are no new commit: the commit time stays the first time seen.
    if (known && known.offset === offset) return
    this.setCommit(group, tpKey(topic, partition), offset, at)
    if (coordinator !== undefined) this.groups.get(group)!.coordinator = coordinator
  }

  /** Members of a group as describeGroups saw them (fallback mode). */
  applyMembers(group: string, members: number, coordinator?: number): void {
    const g = this.group(group, false)
    if (!g) return
    g.members = members
    if (coordinator !== undefined) g.coordinator = coordinator
  }

  private setCommit(group: string, k: string, offset: number, at: number, offsetsPartition?: number) {
    const g = this.group(group, true)
    if (!g) return
    if (offsetsPartition !== undefined) g.offsetsPartition = offsetsPartition
    const c = g.commits.get(k)
    if (c) {
      c.offset = offset
      c.at = at
      c.sent = false
      return
    }
    if (g.commits.size >= this.maxParts) {
      this.droppedPartitions++
      return
    }
    g.commits.set(k, { offset, at, sent: false })
  }

  /** Topics some tracked group has committed on: the ones whose log ends a poll reads. */
  topics(): string[] {
    const out = new Set<string>()
    for (const g of this.groups.values()) for (const k of g.commits.keys()) out.add(k.slice(0, k.indexOf('\u0000')))
    return [...out]
  }

  /** Group ids tracked. */
  groupIds(): string[] {
    return [...this.groups.keys()]
  }

  stats(): LagTrackerStats {
    let partitions = 0
    let historyPoints = 0
    for (const g of this.groups.values()) partitions += g.commits.size
    for (const h of this.history.values()) historyPoints += h.points.length
    return { groups: this.groups.size, partitions, droppedGroups: this.droppedGroups.size, droppedPartitions: this.droppedPartitions, logEndPartitions: this.history.size, historyPoints }
  }

  /**
   * One poll at `at`: records the log ends read, then returns the signals: every log end, each
   * commit not yet sent, the lag of every tracked group-partition whose log end is known, and each
   * group's member count. `offsetsLeaders` maps a partition of __consumer_offsets to its leader,
   * which is the coordinator of the groups stored there.
   */
  tick(at: number, logEnds: readonly LogEnd[], offsetsLeaders: ReadonlyMap<number, number> = new Map()): Signal[] {
    const cluster = this.options.cluster
    const out: Signal[] = []
    const sig = (name: string, when: number, broker: number | undefined, value: number, labels: Record<string, string>): Signal => {
      const s: Signal = { name, at: when, cluster, value, labels, source: this.source }
      if (broker !== undefined && broker >= 0) s.broker = String(broker)
      return s
    }
    for (const e of logEnds) {
      const k = tpKey(e.topic, e.partition)
      let h = this.history.get(k)
      if (!h) this.history.set(k, (h = { points: [] }))
      const last = h.points[h.points.length - 1]
      // A log end that went back is a recreated topic or a truncation: its history no longer applies.
      if (last && e.offset < last.offset) h.points.length = 0
      if (!last || at > last.at) h.points.push({ at, offset: e.offset })
      if (h.points.length > this.maxPoints) h.points.splice(0, h.points.length - this.maxPoints)
      h.leader = e.leader
      out.push(sig('partition.log_end', at, e.leader, e.offset, { topic: e.topic, partition: String(e.partition) }))
    }
    for (const [group, g] of this.groups) {
      const coordinator = g.offsetsPartition !== undefined ? offsetsLeaders.get(g.offsetsPartition) ?? g.coordinator : g.coordinator
      for (const [k, c] of g.commits) {
        const sep = k.indexOf('\u0000')
        const topic = k.slice(0, sep)
        const partition = k.slice(sep + 1)
        if (!c.sent) {
          out.push(sig('group.commit', c.at, coordinator, c.offset, { group, topic, partition }))
          c.sent = true
        }
        const h = this.history.get(k)
        const end = h?.points[h.points.length - 1]
        if (!end) continue
        const labels: Record<string, string> = { group, topic, partition }
        if (h!.leader !== undefined) labels.leader = String(h!.leader)
        out.push(sig('group.lag', at, coordinator, Math.max(0, end.offset - c.offset), labels))
        const seconds = lagSecondsAt(h!.points, c.offset, at)
        if (seconds !== undefined) out.push(sig('group.lag_time', at, coordinator, Math.round(seconds * 1000), labels))
      }
      if (g.members !== undefined) {
        const labels: Record<string, string> = { group, state: g.members > 0 ? 'Stable' : 'Empty' }
        if (g.generation !== undefined) labels.generation = String(g.generation)
        out.push(sig('group.members', at, coordinator, g.members, labels))
      }
    }
    return out
  }
}
