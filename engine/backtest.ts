import type { Rule } from '../dsl/ast.js'
import { signalsOfRule } from '../dsl/signals-of-rule.js'
import type { AlertEvent } from './alerts.js'
import type { Evidence } from './diagnosis.js'
import { DataEnds } from './data-span.js'
import { labelKey } from './eval-data.js'
import { DEFAULT_KEEP_FIRING_MS } from './alerts.js'
import { AlertOverlay, replayAlerts } from './replay-alerts.js'
import { lookbackMs } from './rule-signals.js'
import { MemoryStore } from './store/memory-store.js'
import type { BrokerRef, SignalQuery, Store } from './store/store.js'
import { firstAtOrAfter } from './time-sorted.js'
import type { Signal } from '../signals/signal.js'

/**
 * What a rule change would have done to the alerts of a stretch of history: two rule sets (the
 * versions before and after a change) stepped through the same stored signals by the replay
 * machinery, and their alerts compared per rule. History is read in time order one window at a
 * time, so a month of a busy store never sits in memory at once.
 */

/** One alert from its firing to its resolution (open at the end of the history when `resolvedAt` is absent). */
export type AlertEpisode = {
  /** The rule's name, else its id: how a rule is recognised across its two versions. */
  rule: string
  cluster: string
  broker?: string
  labels: Record<string, string>
  severity: Rule['severity']
  /** When the evaluation fired it (a tick: up to a step after the evidence). */
  firedAt: number
  /** When its evidence happened: the earliest signal of the match that raised it. */
  evidenceAt: number
  resolvedAt?: number
  cause: string
  evidence: Evidence[]
}

/** How to step through history; every duration in ms. */
export type BacktestOptions = {
  from: number
  to: number
  /** How much history is read at a time (rounded up to a multiple of `stepMs`). */
  windowMs: number
  stepMs: number
  lagMs?: number
}

/** Both rule sets' alerts, and what reading the history cost. */
export type BacktestRun = { base: AlertEpisode[]; head: AlertEpisode[]; windows: number; signalsRead: number }

/** The key two versions of a rule share. */
export function ruleKey(rule: Rule): string {
  return rule.name ?? rule.id
}

/**
 * Steps both rule sets through [from, to] of `store`. Each window's signals (only the names the rules
 * read) are read once to find the times worth a tick; each rule set then ticks through the window
 * with its alert state kept in its own in-memory overlay across windows.
 */
export async function backtestRules(store: Store, base: readonly Rule[], head: readonly Rule[], opts: BacktestOptions): Promise<BacktestRun> {
  const stepMs = opts.stepMs
  const windowMs = Math.max(stepMs, Math.ceil(opts.windowMs / stepMs) * stepMs)
  const lagMs = opts.lagMs ?? 0
  const names = [...new Set([...base, ...head].flatMap((r) => signalsOfRule(r)))]
  // What a tick reads reaches back by the longest look-back plus the keep-firing window.
  const marginMs = Math.max(0, ...[...base, ...head].map((r) => lookbackMs(r.when))) + DEFAULT_KEEP_FIRING_MS + lagMs + stepMs
  const reads = new WindowReads(store)
  const sides = [
    { rules: base, overlay: new AlertOverlay(reads), episodes: [] as AlertEpisode[], open: new Map<string, AlertEpisode>() },
    { rules: head, overlay: new AlertOverlay(reads), episodes: [] as AlertEpisode[], open: new Map<string, AlertEpisode>() },
  ]
  const start = Math.floor(opts.from / stepMs) * stepMs
  // No tick reaches past a cluster's last record: an alert open there stays open, never resolved (or
  // fired) by the absence of data that was simply not recorded, as in a replay. A broker whose own
  // data stops earlier is evaluated at its last record from then on (DataEnds).
  const { clusters: dataEnd, brokers: dataEnds } = await lastRecords(store, names, opts.from - marginMs, opts.to, windowMs)
  const lastOfAll = Math.max(-Infinity, ...dataEnd.values())
  let windows = 0
  let signalsRead = 0
  for (let w = start; w <= opts.to && w <= lastOfAll; w += windowMs) {
    const end = Math.min(w + windowMs - 1, opts.to)
    // Every signal of this window gets its tick (its time plus the lag) before the next window starts.
    const until = Math.ceil((end + 1 + lagMs) / stepMs) * stepMs
    signalsRead += await reads.load(names, w - marginMs, until)
    const times = new Map<string, Set<number>>()
    for (const { cluster, signals } of reads.loaded()) {
      const last = dataEnd.get(cluster)
      if (last === undefined || last < w) continue
      let set = times.get(cluster)
      if (!set) times.set(cluster, (set = new Set([w])))
      for (const s of signals) if (s.at >= w && s.at <= end) set.add(Math.floor(s.at / stepMs) * stepMs)
    }
    for (const [cluster, set] of times) {
      const ticks = new Map([[cluster, [...set].sort((a, b) => a - b)]])
      const clusterUntil = Math.min(until, dataEnd.get(cluster)! + lagMs)
      // The two sides share nothing but the store: their reads overlap.
      await Promise.all(
        sides.filter((side) => side.rules.length > 0).map((side) => replayAlerts(side.overlay, side.rules, ticks, { stepMs, lagMs, until: clusterUntil, alertsInStore: true, dataEnds }, (e) => record(side, e))),
      )
    }
    windows++
  }
  return { base: sides[0].episodes, head: sides[1].episodes, windows, signalsRead }
}

/**
 * Each cluster's last record at or before `to` among `names` (the signals the rules read), and where
 * each broker's own data ends (every record, see DataEnds), found by reading back from `to` a window
 * at a time: one window when the history runs up to `to` and every broker's data with it.
 */
async function lastRecords(store: Store, names: string[], from: number, to: number, windowMs: number): Promise<{ clusters: Map<string, number>; brokers: DataEnds }> {
  const out = new Map<string, number>()
  const ends = new DataEnds()
  if (names.length === 0) return { clusters: out, brokers: ends }
  const brokers = await store.brokers()
  const clusters = [...new Set(brokers.map((b) => b.cluster))]
  const ended = () => out.size === clusters.length && brokers.every((b) => ends.of(b.cluster, b.broker) !== undefined)
  for (let hi = to; hi >= from && !ended(); hi -= windowMs) {
    const lo = Math.max(from, hi - windowMs + 1)
    // The newest window holding a cluster's rule signals gives its end; older ones only brokers' ends.
    const found = new Map<string, number>()
    for (const cluster of clusters) {
      for (const scope of [...brokers.filter((b) => b.cluster === cluster), { cluster }]) {
        // Every name: whose data a file is, and where it stops, rests on all of its records.
        for (const [name, list] of await store.querySeries({ ...scope, from: lo, to: hi })) {
          ends.add(list)
          const t = list[list.length - 1]?.at
          if (t === undefined || out.has(cluster) || !names.includes(name)) continue
          if (t > (found.get(cluster) ?? -Infinity)) found.set(cluster, t)
        }
      }
    }
    for (const [cluster, t] of found) out.set(cluster, t)
  }
  return { clusters: out, brokers: ends }
}

function record(side: { rules: readonly Rule[]; episodes: AlertEpisode[]; open: Map<string, AlertEpisode> }, e: AlertEvent): void {
  const fp = e.alert.fingerprint
  if (e.type === 'firing') {
    if (side.open.has(fp)) return
    const rule = side.rules.find((r) => r.id === e.alert.ruleId)
    const episode: AlertEpisode = {
      rule: rule ? ruleKey(rule) : e.alert.ruleId,
      cluster: e.alert.cluster,
      ...(e.alert.broker !== undefined ? { broker: e.alert.broker } : {}),
      labels: { ...e.alert.labels },
      severity: e.cause.severity,
      firedAt: e.alert.firedAt ?? e.alert.activeAt,
      evidenceAt: e.alert.firstEvidenceAt ?? e.alert.activeAt,
      cause: e.cause.cause,
      evidence: e.cause.evidence,
    }
    side.open.set(fp, episode)
    side.episodes.push(episode)
  } else if (e.type === 'resolved') {
    const episode = side.open.get(fp)
    if (episode) episode.resolvedAt = e.alert.resolvedAt
    side.open.delete(fp)
  }
}

/** Per rule, how the head version's alerts differ from the base version's over the same history. */
export type RuleBacktest = {
  rule: string
  base: number
  head: number
  /** Head alerts with no base alert for the same rule, broker and labels overlapping them in time. */
  newlyFiring: AlertEpisode[]
  /** Base alerts with no overlapping head alert. */
  stoppedFiring: AlertEpisode[]
  /** Overlapping pairs whose severity differs. */
  severityChanged: { base: AlertEpisode; head: AlertEpisode }[]
}

/** Compares the two sides' alerts for each rule key named in `rules`. */
export function compareBacktest(run: BacktestRun, rules: readonly string[]): RuleBacktest[] {
  return rules.map((rule) => {
    const base = run.base.filter((e) => e.rule === rule)
    const head = run.head.filter((e) => e.rule === rule)
    const matchedBase = new Set<AlertEpisode>()
    const out: RuleBacktest = { rule, base: base.length, head: head.length, newlyFiring: [], stoppedFiring: [], severityChanged: [] }
    for (const h of head) {
      const b = base.find((x) => !matchedBase.has(x) && sameScope(x, h) && overlaps(x, h))
      if (!b) {
        out.newlyFiring.push(h)
        continue
      }
      matchedBase.add(b)
      if (b.severity !== h.severity) out.severityChanged.push({ base: b, head: h })
    }
    for (const b of base) if (!matchedBase.has(b)) out.stoppedFiring.push(b)
    return out
  })
}

function sameScope(a: AlertEpisode, b: AlertEpisode): boolean {
  return a.cluster === b.cluster && a.broker === b.broker && labelKey(a.labels) === labelKey(b.labels)
}

function overlaps(a: AlertEpisode, b: AlertEpisode): boolean {
  return a.firedAt <= (b.resolvedAt ?? Infinity) && b.firedAt <= (a.resolvedAt ?? Infinity)
}

/**
 * One window of the store held in memory: the rules' signals of every broker (and the clusters'
 * broker-less ones) from the window's start minus the rules' look-back to its last tick, the facts and
 * the broker list, read once per window. Ticks inside the window read from here; anything outside it
 * (another name, an earlier time) goes to the store.
 */
class WindowReads extends MemoryStore {
  private span = { from: 0, to: -1, names: new Set<string>() }
  private series = new Map<string, Map<string, Signal[]>>()
  private factsOf = new Map<string, Signal[]>()
  private brokerList: BrokerRef[] = []

  constructor(private readonly base: Store) {
    super()
  }

  /** Reads [from, to] of `names` for every scope; gives how many signals came. */
  async load(names: string[], from: number, to: number): Promise<number> {
    this.brokerList = await this.base.brokers()
    const scopes: { cluster: string; broker?: string }[] = [...this.brokerList, ...[...new Set(this.brokerList.map((b) => b.cluster))].map((cluster) => ({ cluster }))]
    this.series = new Map()
    this.factsOf = new Map()
    let count = 0
    for (const scope of scopes) {
      const key = scopeKey(scope.cluster, scope.broker)
      const byName = names.length ? await this.base.querySeries({ ...scope, names, from, to }) : new Map<string, Signal[]>()
      for (const list of byName.values()) count += list.length
      this.series.set(key, byName)
      this.factsOf.set(key, await this.base.facts(scope.cluster, scope.broker))
    }
    this.span = { from, to, names: new Set(names) }
    return count
  }

  /** Every loaded scope's signals, for finding the window's tick times. */
  *loaded(): Iterable<{ cluster: string; signals: Signal[] }> {
    for (const [key, byName] of this.series) for (const list of byName.values()) yield { cluster: JSON.parse(key)[0] as string, signals: list }
  }

  private covers(q: SignalQuery): boolean {
    return q.from >= this.span.from && q.to <= this.span.to && q.names !== undefined && q.names.every((n) => this.span.names.has(n)) && this.series.has(scopeKey(q.cluster, q.broker))
  }

  override async querySeries(q: SignalQuery): Promise<Map<string, Signal[]>> {
    if (!this.covers(q)) return this.base.querySeries(q)
    const byName = this.series.get(scopeKey(q.cluster, q.broker))!
    const out = new Map<string, Signal[]>()
    for (const name of [...new Set(q.names)].sort()) {
      const list = byName.get(name)
      if (!list) continue
      const part = list.slice(firstAtOrAfter(list, q.from), firstAtOrAfter(list, q.to + 1))
      if (part.length) out.set(name, part)
    }
    return out
  }

  override async query(q: SignalQuery): Promise<Signal[]> {
    if (!this.covers(q)) return this.base.query(q)
    return [...(await this.querySeries(q)).values()].flat().sort((a, b) => a.at - b.at)
  }

  override async facts(cluster: string, broker?: string): Promise<Signal[]> {
    return this.factsOf.get(scopeKey(cluster, broker)) ?? this.base.facts(cluster, broker)
  }

  override async brokers(): Promise<BrokerRef[]> {
    return this.brokerList.length ? this.brokerList : this.base.brokers()
  }
}

function scopeKey(cluster: string, broker: string | undefined): string {
  return JSON.stringify([cluster, broker ?? null])
}

