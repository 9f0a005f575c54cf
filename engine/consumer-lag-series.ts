import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'
import { DEFAULT_COMMIT_WINDOW, evaluatePartition, LAG_STATUS_RANK, type CommitPoint, type LagStatus, type StatusRule } from './consumer-lag-status.js'

/**
 * The derived series a rule reads to see a consumer group's health: `group.partition_status` per
 * group and partition and `group.status` per group, worked out from the recorded commits
 * (`group.commit`, value = committed offset) and log-end offsets (`partition.log_end`) with
 * Burrow's evaluation. Statuses are judged at every log-end sample (the steady interval the
 * adapter polls at) and at the end of the range; an event is kept at the range's first judgement,
 * whenever a status changes and at the end, so a rule over any window sees the status then.
 * A commit's broker is the group's coordinator (the leader of its `__consumer_offsets`
 * partition): the derived events are filed there, beside the coordinator's own group events,
 * with the partition's leader as a label.
 */

export const PARTITION_STATUS_SERIES = 'group.partition_status'
export const GROUP_STATUS_SERIES = 'group.status'
export const CONSUMER_LAG_SOURCES = ['group.commit', 'partition.log_end'] as const

/** How far before a range the sources are read: the commit window must be full at the range's start (10 commits at up to 3 min apart). */
export const CONSUMER_LAG_HISTORY_MS = 30 * 60_000

/** True for the series deriveConsumerLagStatus computes. */
export function isConsumerLagSeries(name: string): boolean {
  return name === PARTITION_STATUS_SERIES || name === GROUP_STATUS_SERIES
}

/**
 * The recorded events a set of derived status events is worked out from: the commits of each
 * claimed group (of its claimed partition, for a `group.partition_status`) and the log ends of the
 * partitions those commits are on. Without them the group has no status left to derive; what other
 * groups commit is kept. `claimed` are derived events (or evidence) with their labels.
 */
export function consumerLagInputsOf(claimed: readonly { signal?: string; name?: string; labels?: Record<string, string> }[], recorded: readonly Signal[]): (s: Signal) => boolean {
  const groups = new Set<string>()
  const parts = new Set<string>()
  for (const c of claimed) {
    const l = c.labels
    if (!l?.group) continue
    if ((c.signal ?? c.name) === PARTITION_STATUS_SERIES && l.topic !== undefined && l.partition !== undefined) parts.add(`${l.group}\u0000${l.topic}\u0000${l.partition}`)
    else groups.add(l.group)
  }
  const isClaimedCommit = (s: Signal): boolean => {
    const l = s.labels
    if (s.name !== 'group.commit' || !l?.group) return false
    return groups.has(l.group) || parts.has(`${l.group}\u0000${l.topic}\u0000${l.partition}`)
  }
  const partitions = new Set<string>()
  for (const s of recorded) if (isClaimedCommit(s)) partitions.add(`${s.labels!.topic}\u0000${s.labels!.partition}`)
  return (s) => isClaimedCommit(s) || (s.name === 'partition.log_end' && partitions.has(`${s.labels?.topic}\u0000${s.labels?.partition}`))
}

export type ConsumerLagOptions = {
  /** Commits per partition window (Burrow `intervals`, default 10). */
  window?: number
  /** Messages of lag counted as none (Burrow `allowed-lag`, default 0). */
  allowedLag?: number
  /** Only this group (the answer to `why --group`). */
  group?: string
}

type PartKey = { group: string; topic: string; partition: string }
type Judgement = { at: number; status: LagStatus; rule: StatusRule; lag: number; broker?: string; leader?: string }

/** Per topic-partition log-end samples, time-sorted. */
function logEndsByPartition(logEnds: readonly Signal[]): Map<string, Signal[]> {
  const out = new Map<string, Signal[]>()
  for (const s of logEnds) {
    if (s.value === undefined || !s.labels) continue
    const k = `${s.labels.topic}\u0000${s.labels.partition}`
    let l = out.get(k)
    if (!l) out.set(k, (l = []))
    l.push(s)
  }
  for (const l of out.values()) l.sort((a, b) => a.at - b.at)
  return out
}

/** Per group-partition commits, time-sorted. */
function commitsByPartition(commits: readonly Signal[], only?: string): Map<string, { key: PartKey; list: Signal[] }> {
  const out = new Map<string, { key: PartKey; list: Signal[] }>()
  for (const s of commits) {
    const l = s.labels
    if (s.value === undefined || !l?.group || l.topic === undefined || l.partition === undefined) continue
    if (only !== undefined && l.group !== only) continue
    const k = `${l.group}\u0000${l.topic}\u0000${l.partition}`
    let e = out.get(k)
    if (!e) out.set(k, (e = { key: { group: l.group, topic: l.topic, partition: l.partition }, list: [] }))
    e.list.push(s)
  }
  for (const e of out.values()) e.list.sort((a, b) => a.at - b.at)
  return out
}

/**
 * Judges one group-partition at each instant of `instants` (ascending). Linear in commits plus
 * log ends plus instants times the window: two cursors advance, the window is a slice.
 */
function judgePartition(commits: readonly Signal[], logEnds: readonly Signal[], instants: readonly number[], window: number, allowedLag: number): Judgement[] {
  const out: Judgement[] = []
  // Lag at each commit: the latest log end at or before it, as Burrow computes it on receipt.
  const points: CommitPoint[] = []
  let e = -1
  for (const c of commits) {
    while (e + 1 < logEnds.length && logEnds[e + 1].at <= c.at) e++
    const p: CommitPoint = { at: c.at, offset: c.value! }
    if (e >= 0) p.lag = Math.max(0, logEnds[e].value! - c.value!)
    points.push(p)
  }
  let ci = -1
  let li = -1
  for (const t of instants) {
    while (ci + 1 < commits.length && commits[ci + 1].at <= t) ci++
    while (li + 1 < logEnds.length && logEnds[li + 1].at <= t) li++
    if (ci < 0) continue
    const last = points[ci]
    const latestEnd = li >= 0 ? logEnds[li].value! : undefined
    const currentLag = latestEnd === undefined ? 0 : Math.max(0, latestEnd - last.offset)
    // Burrow's ring of recent broker offsets, taken as the log ends seen since the last commit: one
    // at or below that commit means the consumer was caught up after it (data that arrived since
    // has not had its commit yet). Older log ends are always below a later commit and say nothing.
    const recent: number[] = []
    for (let j = li; j >= 0 && recent.length < window && logEnds[j].at > last.at; j--) recent.push(logEnds[j].value!)
    const v = evaluatePartition({ commits: points.slice(Math.max(0, ci - window + 1), ci + 1), recentLogEnds: recent, currentLag }, t, allowedLag)
    out.push({ at: t, status: v.status, rule: v.rule, lag: currentLag, broker: commits[ci].broker, leader: li >= 0 ? logEnds[li].broker : undefined })
  }
  return out
}

/** Why a status holds, in words, for the evidence line. */
export const STATUS_RULE_TEXT: Readonly<Record<StatusRule, string>> = {
  'no-commits': 'no commit yet',
  'too-few-commits': 'too few commits to judge',
  'no-current-lag': 'caught up',
  stopped: 'no commit for longer than its last commits spanned',
  rewind: 'its committed offset went back and has not returned',
  'lag-was-zero': 'its lag was zero within its last commits',
  stalled: 'it commits the same offset while lag grows',
  'lag-not-decreasing': 'its offsets move but its lag never went down',
  'lag-decreasing': 'its lag is going down',
}

/**
 * The derived status series of a cluster over [from, to] from its commits and log ends (read from
 * `from - CONSUMER_LAG_HISTORY_MS`). Returns `group.partition_status` and `group.status` events,
 * each time-sorted.
 */
export function deriveConsumerLagStatus(
  cluster: string,
  commits: readonly Signal[],
  logEnds: readonly Signal[],
  from: number,
  to: number,
  opts: ConsumerLagOptions = {},
): { partitions: Signal[]; groups: Signal[] } {
  const window = opts.window ?? DEFAULT_COMMIT_WINDOW
  const allowedLag = opts.allowedLag ?? 0
  const ends = logEndsByPartition(logEnds)
  const partitions: Signal[] = []
  // Per group: judgement instants → partition judgements, for the group's worst status at each.
  const byGroup = new Map<string, Map<number, { worst: Judgement; lag: number; bad: number; parts: number }>>()
  for (const { key, list } of commitsByPartition(commits, opts.group).values()) {
    const le = ends.get(`${key.topic}\u0000${key.partition}`) ?? []
    const instants: number[] = []
    for (const s of le) if (s.at >= from && s.at <= to) instants.push(s.at)
    if (!instants.length) for (const c of list) if (c.at >= from && c.at <= to) instants.push(c.at)
    if (instants[instants.length - 1] !== to) instants.push(to)
    const judged = judgePartition(list, le, instants, window, allowedLag)
    let prev: LagStatus | undefined
    judged.forEach((j, i) => {
      let g = byGroup.get(key.group)
      if (!g) byGroup.set(key.group, (g = new Map()))
      const slot = g.get(j.at)
      if (!slot) g.set(j.at, { worst: j, lag: j.lag, bad: j.status === 'OK' ? 0 : 1, parts: 1 })
      else {
        if (LAG_STATUS_RANK[j.status] > LAG_STATUS_RANK[slot.worst.status]) slot.worst = j
        slot.lag += j.lag
        slot.parts++
        if (j.status !== 'OK') slot.bad++
      }
      if (j.status + j.rule === prev && i !== judged.length - 1) return
      prev = j.status + j.rule
      const labels: Record<string, string> = { group: key.group, topic: key.topic, partition: key.partition, status: j.status, rule: j.rule }
      if (j.leader !== undefined) labels.leader = j.leader
      partitions.push({
        name: PARTITION_STATUS_SERIES,
        at: j.at,
        cluster,
        ...(j.broker !== undefined ? { broker: j.broker } : {}),
        value: j.lag,
        labels,
        source: 'derived:consumer-lag',
        text: `${key.group} on ${key.topic}-${key.partition}: ${j.status} (${STATUS_RULE_TEXT[j.rule]}), lag ${formatValue(j.lag, 'count')} messages`,
      })
    })
  }
  const groups: Signal[] = []
  for (const [group, slots] of byGroup) {
    let prev: string | undefined
    const ats = [...slots.keys()].sort((a, b) => a - b)
    ats.forEach((at, i) => {
      const s = slots.get(at)!
      // Partitions judged at other instants (their own log-end polls) are not in this slot: a group
      // is judged at its partitions' shared instants and at the range's end.
      const key = `${s.worst.status}/${s.bad}`
      if (key === prev && i !== ats.length - 1) return
      prev = key
      groups.push({
        name: GROUP_STATUS_SERIES,
        at,
        cluster,
        ...(s.worst.broker !== undefined ? { broker: s.worst.broker } : {}),
        value: s.lag,
        labels: { group, status: s.worst.status, partitions: String(s.bad) },
        source: 'derived:consumer-lag',
        text: `${group}: ${s.worst.status}, ${s.bad} of ${s.parts} partitions not OK, total lag ${formatValue(s.lag, 'count')} messages`,
      })
    })
  }
  const byAt = (a: Signal, b: Signal) => a.at - b.at
  return { partitions: partitions.sort(byAt), groups: groups.sort(byAt) }
}
