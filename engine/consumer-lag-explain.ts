import type { Rule } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'
import { readConsumerLagSources } from './consumer-lag-load.js'
import { deriveConsumerLagStatus, STATUS_RULE_TEXT } from './consumer-lag-series.js'
import { LAG_STATUS_RANK, type LagStatus, type StatusRule } from './consumer-lag-status.js'
import { diagnose } from './diagnose.js'
import type { Store } from './store/store.js'

/**
 * "Why is group G behind?": the group's status now (Burrow's, per partition), then its likely
 * cause, ranked among three places to look: the group's own consumers (members gone, stuck, expired,
 * a rebalance loop, client errors), the brokers that lead its lagging partitions (each one's own
 * diagnosis: a pause, a slow disk, throttling, under-replication), and its producers (the log-end
 * rate jumped: a burst, not a slower consumer). Each cause carries the signals it rests on.
 */

export type PartitionReport = {
  topic: string
  partition: string
  status: LagStatus
  /** Why Burrow's rules gave that status, in words. */
  why: string
  lag: number
  /** Lag in time (kafka-lag-exporter's estimate), ms, when recorded. */
  lagTimeMs?: number
  leader?: string
}

export type GroupCauseKind = 'consumers' | 'brokers' | 'producers'

export type GroupCause = {
  kind: GroupCauseKind
  /** 0–100: how strongly the evidence points here for this status. */
  score: number
  title: string
  advise: string
  evidence: Signal[]
  /** The broker whose own diagnosis this cause quotes (kind brokers). */
  broker?: string
  /** That diagnosis's top rule. */
  ruleId?: string
}

export type GroupDiagnosis = {
  cluster: string
  group: string
  from: number
  to: number
  at: number
  /** The group's worst partition status; undefined when nothing was recorded for the group. */
  status?: LagStatus
  partitions: PartitionReport[]
  totalLag: number
  maxLagTimeMs?: number
  members?: number
  coordinator?: string
  causes: GroupCause[]
  /** Signals read for the group (commits and log ends), so "no data" differs from "healthy". */
  signalsSeen: number
}

export type GroupDiagnoseOptions = { cluster: string; group: string; from: number; to: number; now: number }

/** Consumer-side signals of a group, read from every broker (its coordinator logged them) and the broker-less client logs. */
const CONSUMER_SIGNALS = ['group.member_poll_timeout', 'group.member_expired', 'group.member_failed', 'group.rebalance', 'group.stable', 'group.members', 'group.coordinator_error', 'client.error'] as const

const byAt = (a: Signal, b: Signal) => a.at - b.at
/** How long before a group first went bad its members' events count as its cause. */
const CAUSE_LOOKBACK_MS = 30 * 60_000
const latest = (list: readonly Signal[]) => list.reduce<Signal | undefined>((m, s) => (!m || s.at >= m.at ? s : m), undefined)

/** Diagnoses one consumer group over [from, to], its status judged at `to`. */
export async function diagnoseGroup(rules: readonly Rule[], store: Store, o: GroupDiagnoseOptions): Promise<GroupDiagnosis> {
  const { commits, logEnds } = await readConsumerLagSources(store, { cluster: o.cluster, from: o.from, to: o.to, group: o.group })
  const out: GroupDiagnosis = { cluster: o.cluster, group: o.group, from: o.from, to: o.to, at: o.now, partitions: [], totalLag: 0, causes: [], signalsSeen: commits.length }
  if (!commits.length) return out
  const topics = new Set(commits.map((c) => c.labels!.topic))
  const ownEnds = logEnds.filter((s) => topics.has(s.labels?.topic ?? ''))
  out.signalsSeen += ownEnds.length
  // The status now: judged at `to` alone, with the history before it as the commit window.
  const now = deriveConsumerLagStatus(o.cluster, commits, ownEnds, o.to, o.to, { group: o.group })
  // And over the window, for when the trouble started.
  const history = deriveConsumerLagStatus(o.cluster, commits, ownEnds, o.from, o.to, { group: o.group })
  const brokers = (await store.brokers()).filter((b) => b.cluster === o.cluster).map((b) => b.broker)
  const read = async (names: readonly string[]) => {
    const lists = await Promise.all([store.querySeries({ cluster: o.cluster, names: [...names], from: o.from, to: o.to }), ...brokers.map((broker) => store.querySeries({ cluster: o.cluster, broker, names: [...names], from: o.from, to: o.to }))])
    const m = new Map<string, Signal[]>()
    for (const byName of lists) for (const [n, l] of byName) m.set(n, [...(m.get(n) ?? []), ...l.filter((s) => s.labels?.group === o.group)])
    for (const l of m.values()) l.sort(byAt)
    return m
  }
  const [lagTimes, consumerSide] = await Promise.all([read(['group.lag_time']), read(CONSUMER_SIGNALS)])
  const lagTimeOf = new Map<string, number>()
  for (const s of lagTimes.get('group.lag_time') ?? []) lagTimeOf.set(`${s.labels!.topic}\u0000${s.labels!.partition}`, s.value ?? 0)
  for (const s of now.partitions) {
    const l = s.labels!
    const k = `${l.topic}\u0000${l.partition}`
    const why = STATUS_RULE_TEXT[l.rule as StatusRule] ?? ''
    const p: PartitionReport = { topic: l.topic, partition: l.partition, status: l.status as LagStatus, why, lag: s.value ?? 0, leader: l.leader }
    if (lagTimeOf.has(k)) p.lagTimeMs = lagTimeOf.get(k)
    out.partitions.push(p)
    out.totalLag += p.lag
    if (p.lagTimeMs !== undefined) out.maxLagTimeMs = Math.max(out.maxLagTimeMs ?? 0, p.lagTimeMs)
    out.coordinator ??= s.broker
  }
  out.partitions.sort((a, b) => LAG_STATUS_RANK[b.status] - LAG_STATUS_RANK[a.status] || b.lag - a.lag || a.topic.localeCompare(b.topic) || Number(a.partition) - Number(b.partition))
  out.status = out.partitions.reduce<LagStatus>((w, p) => (LAG_STATUS_RANK[p.status] > LAG_STATUS_RANK[w] ? p.status : w), 'OK')
  const members = latest(consumerSide.get('group.members') ?? [])
  if (members) out.members = members.value
  // When the group first went bad in the window: causes are looked for around it.
  const firstBad = history.groups.find((g) => g.labels!.status !== 'OK')?.at ?? o.to
  out.causes = rankCauses(out, consumerSide, firstBad, lagGrowthStart(out, commits, ownEnds, o.from), ownEnds, o)
  const leaders = [...new Set(out.partitions.filter((p) => p.status !== 'OK' && p.leader !== undefined).map((p) => p.leader!))]
  for (const broker of leaders) {
    const d = await diagnose(rules, store, { cluster: o.cluster, broker, from: o.from, to: o.to, now: o.now, record: false })
    // The broker's own problems: not the group rules, which describe this very group.
    const own = d.causes.filter((c) => !c.explainedBy?.length && c.severity !== 'info' && !c.evidence.every((e) => e.signal.startsWith('group.')))
    const top = own[0]
    if (!top) continue
    const led = out.partitions.filter((p) => p.leader === broker && p.status !== 'OK').map((p) => `${p.topic}-${p.partition}`)
    out.causes.push({
      kind: 'brokers',
      score: (top.severity === 'critical' ? 75 : 55) + (out.status === 'STALLED' || out.status === 'STOPPED' ? 5 : 0),
      title: `Broker ${broker}, which leads ${led.join(', ')}, is itself unwell: ${top.cause}`,
      advise: top.advise ?? `Run kafka-why why ${broker} for the broker's own diagnosis.`,
      evidence: top.evidence.slice(0, 4).map((e) => ({ name: e.signal, at: e.at, cluster: o.cluster, broker: e.broker, value: e.value, labels: e.labels, source: e.source, text: e.text })),
      broker,
      ruleId: top.ruleId,
    })
  }
  out.causes.sort((a, b) => b.score - a.score)
  return out
}

/**
 * When the lag that is there now began to build: the last commit, on the partitions that are not OK,
 * made with no lag (the log end then at or below it); the window's start when there was none.
 * Burrow's status trails it by up to a window of commits.
 */
function lagGrowthStart(d: GroupDiagnosis, commits: readonly Signal[], logEnds: readonly Signal[], from: number): number {
  const bad = new Set(d.partitions.filter((p) => p.status !== 'OK').map((p) => `${p.topic}\u0000${p.partition}`))
  const ends = new Map<string, Signal[]>()
  for (const e of logEnds) {
    const k = `${e.labels?.topic}\u0000${e.labels?.partition}`
    if (!bad.has(k)) continue
    let l = ends.get(k)
    if (!l) ends.set(k, (l = []))
    l.push(e)
  }
  for (const l of ends.values()) l.sort(byAt)
  let start = Infinity
  for (const k of bad) {
    const list = ends.get(k) ?? []
    let lastZero = from
    let j = -1
    for (const c of [...commits].filter((c) => `${c.labels?.topic}\u0000${c.labels?.partition}` === k).sort(byAt)) {
      while (j + 1 < list.length && list[j + 1].at <= c.at) j++
      if (j >= 0 && (list[j].value ?? 0) <= (c.value ?? 0)) lastZero = c.at
    }
    start = Math.min(start, lastZero)
  }
  return Number.isFinite(start) ? start : from
}

/** Log-end offsets written per second over [from, to] on the group's partitions, from the samples (first and last per partition). */
function writeRate(logEnds: readonly Signal[], from: number, to: number): number | undefined {
  const byPart = new Map<string, { first: Signal; last: Signal }>()
  for (const s of logEnds) {
    if (s.at < from || s.at > to) continue
    const k = `${s.labels?.topic}\u0000${s.labels?.partition}`
    const e = byPart.get(k)
    if (!e) byPart.set(k, { first: s, last: s })
    else {
      if (s.at < e.first.at) e.first = s
      if (s.at > e.last.at) e.last = s
    }
  }
  let rate = 0
  let any = false
  for (const { first, last } of byPart.values()) {
    if (last.at <= first.at) continue
    rate += ((last.value ?? 0) - (first.value ?? 0)) / ((last.at - first.at) / 1000)
    any = true
  }
  return any ? rate : undefined
}

function rankCauses(d: GroupDiagnosis, side: Map<string, Signal[]>, firstBad: number, growthStart: number, logEnds: readonly Signal[], o: GroupDiagnoseOptions): GroupCause[] {
  const causes: GroupCause[] = []
  const status = d.status ?? 'OK'
  // Burrow's statuses trail the event that caused them by up to a window of commits (10 of them), so
  // member events are looked for well before the first bad status.
  const near = (name: string, beforeMs = CAUSE_LOOKBACK_MS) => (side.get(name) ?? []).filter((s) => s.at >= firstBad - beforeMs && s.at <= o.to)
  const stuck = near('group.member_poll_timeout')
  if (stuck.length)
    causes.push({
      kind: 'consumers',
      score: status === 'OK' ? 20 : 90,
      title: `A member of ${d.group} stopped polling for longer than max.poll.interval.ms (${stuck.length} time${stuck.length === 1 ? '' : 's'}): its processing is stuck, and its partitions went unconsumed until it left the group`,
      advise: 'Take a thread dump of that consumer: its poll loop waits on something (a blocked write, a slow downstream call, a lock).',
      evidence: stuck.slice(-4),
    })
  const expired = near('group.member_expired')
  if (expired.length)
    causes.push({
      kind: 'consumers',
      score: status === 'OK' ? 20 : 85,
      title: `The coordinator removed ${expired.length} member${expired.length === 1 ? '' : 's'} of ${d.group} that stopped heartbeating (session.timeout.ms): the consumer process died, froze or lost the network`,
      advise: "Look at that consumer's host and process: a crash, a long GC pause, a process stopped (SIGSTOP, a debugger, a frozen container) or a network cut to the coordinator.",
      evidence: expired.slice(-4),
    })
  const rebalances = near('group.rebalance')
  if (rebalances.length >= 3)
    causes.push({
      kind: 'consumers',
      score: status === 'OK' ? 15 : 70 + Math.min(15, rebalances.length),
      title: `${d.group} rebalanced ${rebalances.length} times around the time it fell behind: every rebalance stops all its members`,
      advise: 'Find the member that keeps joining and leaving (crash loop, poll timeouts, session timeouts); static membership and the cooperative assignor cut the cost of each.',
      evidence: rebalances.slice(-4),
    })
  if (d.members === 0 && (status === 'STOPPED' || status === 'STALLED'))
    causes.push({
      kind: 'consumers',
      score: 80,
      title: `${d.group} has no members: no consumer is running in the group, so nothing commits and its lag only grows`,
      advise: 'Start the group\'s consumers again (a deploy scaled them to zero, they crashed at start-up, or they use another group id now).',
      evidence: (side.get('group.members') ?? []).slice(-1),
    })
  else if (!stuck.length && !expired.length) {
    const left = near('group.member_failed')
    if (left.length)
      causes.push({
        kind: 'consumers',
        score: status === 'OK' ? 10 : 60,
        title: `${left.length} member${left.length === 1 ? '' : 's'} of ${d.group} left or failed around the time it fell behind`,
        advise: 'See why the members left (a deploy, a crash, a scale-in) and whether the remaining ones took their partitions.',
        evidence: left.slice(-4),
      })
  }
  // Producers: the write rate on the group's partitions since its lag began to grow (at most the
  // second half of the log ends recorded in the window), against the rate before that.
  const dataFrom = Math.max(o.from, logEnds.reduce((m, s) => Math.min(m, s.at), Infinity))
  const span = Math.max(30_000, Math.min(o.to - growthStart, (o.to - dataFrom) / 2))
  const during = writeRate(logEnds, o.to - span, o.to)
  const before = writeRate(logEnds, dataFrom, o.to - span)
  if (during !== undefined && before !== undefined && before > 0 && during >= 2 * before) {
    const ratio = during / before
    causes.push({
      kind: 'producers',
      score: status === 'WARNING' ? 88 : status === 'OK' ? 15 : 35,
      title: `Producers write ${ratio.toFixed(1)}x faster than before (${formatValue(during, 'rate')} against ${formatValue(before, 'rate')} on ${d.group}'s partitions): a burst, not a slower consumer`,
      advise: 'If the burst is expected the lag drains once it ends; if it lasts, the group needs more consumers (up to its partition count) or faster processing.',
      evidence: logEnds.filter((s) => s.at >= o.to - span).slice(-3),
    })
  }
  if (!causes.length && status !== 'OK') {
    const text: Record<LagStatus, string> = {
      OK: '',
      WARNING: `${d.group}'s consumers are slower than its producers and nothing else recorded explains it (producers write at their usual rate, no member left): the consumers slowed down`,
      STALLED: `${d.group}'s consumers keep committing the same offsets without progress, and no member event was recorded: a consumer stuck on one record or paused`,
      STOPPED: `${d.group} stopped committing and no member event was recorded: look at the consumers' hosts and their connection to the coordinator`,
      REWIND: `${d.group}'s committed offsets went back: someone reset them, or a consumer committed old positions`,
    }
    causes.push({ kind: 'consumers', score: 40, title: text[status], advise: 'kafka-consumer-groups --describe --group ' + d.group + ' --members shows who holds which partition.', evidence: [] })
  }
  return causes
}

/** One line per partition for people: "payments-0 STALLED, lag 1,234 (2m10s): it commits the same offset while lag grows". */
export function describePartition(p: PartitionReport): string {
  const time = p.lagTimeMs !== undefined ? ` (${formatValue(p.lagTimeMs, 'duration')})` : ''
  return `${p.topic}-${p.partition} ${p.status}, lag ${p.lag.toLocaleString('en-US')}${time}${p.why ? `: ${p.why}` : ''}${p.leader !== undefined ? ` · leader ${p.leader}` : ''}`
}

