import type { Rule } from '../dsl/ast.js'
import { buildCause } from './cause.js'
import { addConsequences } from './consequences.js'
import { markExplained } from './diagnose.js'
import type { Cause } from './diagnosis.js'
import { labelKey } from './eval-data.js'
import { evaluateRules } from './evaluate.js'
import { alertFingerprint } from './fingerprint.js'
import { lateDataCanUndo } from './late-data.js'
import { withinPeersData, type DataEnds } from './data-span.js'
import { loadForRules } from './load-data.js'
import type { EvalData, EvalWindow, Match } from './match.js'
import { lookbackMs } from './rule-signals.js'
import { SeriesCache } from './series-cache.js'
import { signalKind } from './signal-kind.js'
import type { AlertRecord, Silence, Store } from './store/store.js'
import { TickReads } from './tick-reads.js'

/** Re-exported so the bot imports everything an alert event holds from one module. */
export type { AlertRecord } from './store/store.js'
/** Re-exported with AlertRecord: an AlertEvent's cause. */
export type { Cause } from './diagnosis.js'

/**
 * What the bot is told after a tick. `firing`: a new incident (or a re-notification of one still
 * firing, when its interval passed); `updated`: new evidence for a firing alert, to edit its message
 * in place; `resolved`: the condition stopped holding.
 */
export type AlertEvent = {
  type: 'firing' | 'updated' | 'resolved'
  alert: AlertRecord
  cause: Cause
  /** A firing announced again because no message was ever posted for it (see `redeliverUnpostedMs`). */
  redelivered?: boolean
}

/** How the streaming evaluation behaves; every duration in ms. */
export type AlertEngineOptions = {
  store: Store
  rules: readonly Rule[]
  /** Evaluate only this cluster's brokers; default all of them. */
  cluster?: string
  /** How far behind `now` evaluation runs so late log lines still count. Default 15 s. */
  lagMs?: number
  /**
   * How long a match that a late line could still undo (a rule with `not`, `for` or a lowering
   * aggregate: see late-data.ts) stays pending after its evidence before it fires; it is re-evaluated
   * on every tick meanwhile, so a late line that breaks it drops it unannounced. Other rules fire at
   * once and late lines only add to them. Default 0.
   */
  settleMs?: number
  /** How long a condition must keep holding before pending becomes firing. Default 0 (fire at once). */
  pendingForMs?: number
  /** How long after its last match an alert stays firing (event rules match for an instant). Default 5 m. */
  keepFiringMs?: number
  /** Re-notify a still-firing alert this often; 0 never. Default 4 h. */
  renotifyMs?: number
  /** At most one `updated` per alert this often, so a storm edits the message, not floods it. Default 1 m. */
  minUpdateIntervalMs?: number
  /** Identity in the store's locks; default random. Two processes must differ. */
  owner?: string
  /**
   * A firing alert still without a posted message (`AlertRecord.message`) this long after it was last
   * announced is announced again, by one process of those sharing the store: the one that fired it
   * died between the firing and the post. Set where a bot posts the events; 0 (default) never.
   */
  redeliverUnpostedMs?: number
  /**
   * Rules that look back further than LONG_WINDOW_LOOKBACK_MS (a leak trend over 24 h, rebalances
   * over 12 h) are evaluated this often instead of every tick, their last matches kept in between:
   * re-reading a day of samples every 15 s is most of a large estate's cost and moves a day-long
   * trend by nothing. Default 5 m; 0 evaluates them every tick.
   */
  longWindowEveryMs?: number
  /**
   * Keep each tick's reads for the next one and read only what is new (engine/series-cache.ts), on a
   * store that supports it (RedisStore). Default true; false reads every window whole on every tick.
   */
  reuseReads?: boolean
  /**
   * Where each broker's records end, for data that has an end (a replay, a backtest): a broker is
   * evaluated at its own last record, never past it, so its alerts neither fire nor resolve on the
   * silence after its data stops. Absent for a live store.
   */
  dataEnds?: DataEnds
}

/** Late log lines from a tailer or a slow scrape still land inside the evaluated time. */
export const DEFAULT_LAG_MS = 15_000
/** A rule looking back further than this is a long-window rule (see longWindowEveryMs). */
export const LONG_WINDOW_LOOKBACK_MS = 3_600_000
/** How often long-window rules are evaluated by default. */
export const DEFAULT_LONG_WINDOW_EVERY_MS = 5 * 60_000
/** An event rule matches for an instant; this keeps its alert up long enough to read. */
export const DEFAULT_KEEP_FIRING_MS = 5 * 60_000
/** A still-firing incident is brought back to attention this often. */
export const DEFAULT_RENOTIFY_MS = 4 * 3_600_000
/** Message edits during a storm are paced to this. */
export const DEFAULT_MIN_UPDATE_INTERVAL_MS = 60_000

/** `t`: the time the broker was evaluated at (the tick's, or its data's end when that came first). */
type Active = { rule: Rule; cluster: string; broker: string; match: Match; cause: Cause; t: number }
type Held = { rule: Rule; match: Match; related: Match[] }
/** A broker's long-window matches as last evaluated, with the causes built then. */
type LongWindowResult = { at: number; built: { fp: string; rule: Rule; match: Match; cause: Cause }[] }

/**
 * Streaming alerts over a shared store. Each `tick(now)` evaluates every rule for every broker at
 * `now - lag`, and moves alerts pending → firing → resolved through the store's compare-and-set, so
 * any number of engine processes on one store notify once. The engine keeps no state of its own
 * between ticks; a restarted process picks up where the store says things are.
 */
export class AlertEngine {
  private rules: readonly Rule[]
  private readonly store: Store
  private readonly cluster?: string
  private readonly lagMs: number
  private readonly settleMs: number
  private readonly pendingForMs: number
  private readonly keepFiringMs: number
  private readonly renotifyMs: number
  private readonly minUpdateIntervalMs: number
  private readonly redeliverUnpostedMs: number
  private readonly owner: string
  private readonly longWindowEveryMs: number
  private readonly dataEnds?: DataEnds
  /** Per broker whose data ended, its evaluation at its last record: every later tick gives the same. */
  private readonly atDataEnd = new Map<string, { at: number; built: { fp: string; rule: Rule; match: Match; cause: Cause }[] }>()
  /** Long-window results per broker; a cache of evaluation output, rebuilt after a restart. */
  private readonly longWindow = new Map<string, LongWindowResult>()
  /** The last tick's reads, checked against the store and reused (undefined on a store that cannot check). */
  readonly seriesCache?: SeriesCache

  constructor(opts: AlertEngineOptions) {
    this.store = opts.store
    this.rules = opts.rules
    this.cluster = opts.cluster
    this.lagMs = opts.lagMs ?? DEFAULT_LAG_MS
    this.settleMs = opts.settleMs ?? 0
    this.pendingForMs = opts.pendingForMs ?? 0
    this.keepFiringMs = opts.keepFiringMs ?? DEFAULT_KEEP_FIRING_MS
    this.renotifyMs = opts.renotifyMs ?? DEFAULT_RENOTIFY_MS
    this.minUpdateIntervalMs = opts.minUpdateIntervalMs ?? DEFAULT_MIN_UPDATE_INTERVAL_MS
    this.redeliverUnpostedMs = opts.redeliverUnpostedMs ?? 0
    this.owner = opts.owner ?? `alert-engine-${Math.random().toString(36).slice(2, 10)}`
    this.longWindowEveryMs = opts.longWindowEveryMs ?? DEFAULT_LONG_WINDOW_EVERY_MS
    this.dataEnds = opts.dataEnds
    const changes = opts.store.readSeriesChanges?.bind(opts.store)
    if (changes && opts.reuseReads !== false) this.seriesCache = new SeriesCache({ readSeriesChanges: changes })
  }

  /** Swaps the rule set (after a rules reload); alerts of removed rules are left as they are. */
  setRules(rules: readonly Rule[]): void {
    this.rules = rules
    this.longWindow.clear()
    this.atDataEnd.clear()
  }

  /**
   * When the earliest held match (see settleMs) is due to fire, in `now` time; undefined when none is
   * held. A loop that ticks then instead of a whole tick later saves up to a tick of delay.
   */
  nextSettleAt(): number | undefined {
    return this.settleDue
  }

  private settleDue: number | undefined

  /** Evaluates at `now - lag` and returns the notifications to send, silenced ones left out. */
  async tick(now: number): Promise<AlertEvent[]> {
    const tickAt = now - this.lagMs
    this.settleDue = undefined
    const holdUntil = (at: number) => {
      this.settleDue = this.settleDue === undefined ? at : Math.min(this.settleDue, at)
    }
    const active = await this.evaluate(tickAt)
    const silences = await this.store.listSilences(now)
    const byId = new Map(this.rules.map((r) => [r.id, r]))
    const events: AlertEvent[] = []
    const emit = (type: AlertEvent['type'], alert: AlertRecord, cause: Cause, redelivered?: true) => {
      if (!isSilenced(alert, byId.get(alert.ruleId), silences)) events.push({ type, alert, cause, ...(redelivered ? { redelivered } : {}) })
    }

    for (const [fp, a] of active) {
      const cause = a.cause
      // The broker's own evaluation time: the tick's, or where its data ended.
      const t = a.t
      const current = await this.store.getAlert(fp)
      // Evidence times are the signals' own: a `not` part of a match spans the window, not an event.
      const times = a.match.evidence.length ? a.match.evidence.map((e) => e.at) : [a.match.at]
      const evidenceAt = Math.max(...times)
      const seen = { lastSeenAt: t, summary: cause.cause, evidenceCount: cause.evidence.length, evidenceAt }
      // A match a late line could undo waits `settle` from its evidence as first seen (kept as the
      // pending alert's activeAt): a `not` makes the match time the tick's own, and an `and` with a
      // steady stream keeps moving its newest evidence, so neither can be the start later on.
      const undoable = this.settleMs > 0 && lateDataCanUndo(a.rule)
      const settleFrom = current?.state === 'pending' ? current.activeAt : Math.min(a.match.at, evidenceAt)
      const settled = !undoable || t - settleFrom >= this.settleMs
      if (!settled) holdUntil(settleFrom + this.settleMs + this.lagMs)
      if (!current || current.state === 'resolved') {
        const fire = t - a.match.at >= this.pendingForMs && settled
        const next: AlertRecord = {
          fingerprint: fp,
          ruleId: a.rule.id,
          cluster: a.cluster,
          broker: a.broker,
          labels: { ...a.match.labels },
          state: fire ? 'firing' : 'pending',
          activeAt: undoable ? settleFrom : a.match.at,
          firstEvidenceAt: Math.min(...times),
          ...(fire ? { firedAt: t, notifiedAt: now } : {}),
          ...seen,
        }
        if ((await this.store.transitionAlert(current?.state, next)) && fire) emit('firing', next, cause)
        continue
      }
      if (current.state === 'pending') {
        if (t - current.activeAt < this.pendingForMs || !settled) {
          await this.store.updateAlert(fp, seen)
          continue
        }
        const next: AlertRecord = { ...current, ...seen, state: 'firing', firedAt: t, notifiedAt: now }
        if (await this.store.transitionAlert('pending', next)) emit('firing', next, cause)
        continue
      }
      // News for a firing alert: a wholly new occurrence (all its evidence newer than the last look:
      // a new pair, a new episode), or a new event that changes what the cause says (a count rising).
      // Gauge samples continuing a held condition, or supporting events that change nothing, are not.
      // While updates are paced, `lastSeenAt` and `summary` stay at the last announcement, so what
      // arrives meanwhile is announced once the interval is over.
      const eventTimes = a.match.evidence.filter((e) => signalKind(e.name) === 'event').map((e) => e.at)
      const newestEvent = Math.max(-Infinity, ...eventTimes)
      // A `not` part spans the window, so such a match's firstAt stays at the window's start; its events
      // all being newer than the last look is what makes it a new occurrence (another "Too many open files").
      const newOccurrence = a.match.firstAt > current.lastSeenAt || (eventTimes.length > 0 && Math.min(...eventTimes) > current.lastSeenAt)
      const fresh = newOccurrence || (newestEvent > current.lastSeenAt && cause.cause !== current.summary)
      const newest = Math.max(a.match.firstAt, newestEvent)
      const lastNotified = current.notifiedAt ?? current.firedAt ?? current.activeAt
      const mayUpdate = now - lastNotified >= this.minUpdateIntervalMs
      const due = this.renotifyMs > 0 && now - lastNotified >= this.renotifyMs
      const unposted = this.redeliverUnpostedMs > 0 && !current.message && now - lastNotified >= this.redeliverUnpostedMs
      await this.store.updateAlert(fp, fresh && !mayUpdate ? { ...seen, lastSeenAt: current.lastSeenAt, summary: current.summary } : seen)
      if (unposted && (await this.claim(`alert-redeliver:${fp}:${lastNotified}`))) {
        // Before an update: an update edits a message, and there is none to edit.
        await this.store.updateAlert(fp, { notifiedAt: now })
        emit('firing', { ...current, ...seen, notifiedAt: now }, cause, true)
      } else if (fresh && mayUpdate && (await this.claim(`alert-updated:${fp}:${newest}`))) {
        await this.store.updateAlert(fp, { notifiedAt: now })
        emit('updated', { ...current, ...seen, notifiedAt: now }, cause)
      } else if (due && (await this.claim(`alert-renotify:${fp}:${lastNotified}`))) {
        await this.store.updateAlert(fp, { notifiedAt: now })
        emit('firing', { ...current, ...seen, notifiedAt: now }, cause)
      }
    }

    // Only open alerts are read: resolved ones wait out their grace period unread (see pruneAlerts).
    for (const alert of await this.store.listAlerts({ open: true })) {
      if (alert.state === 'resolved' || active.has(alert.fingerprint)) continue
      const rule = byId.get(alert.ruleId)
      if (!rule || (this.cluster !== undefined && alert.cluster !== this.cluster)) continue
      // A broker whose data ended is resolved no later than its last record.
      const next: AlertRecord = { ...alert, state: 'resolved', resolvedAt: this.dataEnds?.clamp(alert.cluster, alert.broker, tickAt) ?? tickAt }
      if ((await this.store.transitionAlert(alert.state, next)) && alert.state === 'firing') emit('resolved', next, resolvedCause(rule, alert))
    }
    const explained = (e: AlertEvent) => (e.cause.explainedBy?.length ? 1 : 0)
    return events.sort(
      (x, y) => eventTime(x) - eventTime(y) || explained(x) - explained(y) || alertOrder(x.alert).localeCompare(alertOrder(y.alert), 'en', { numeric: true }),
    )
  }

  /** Conditions holding at t, one (the latest) match per fingerprint. */
  private async evaluate(t: number): Promise<Map<string, Active>> {
    const active = new Map<string, Active>()
    if (this.rules.length === 0) return active
    const window = { from: t - this.keepFiringMs, to: t, now: t }
    const reads = new TickReads(this.store, this.seriesCache)
    const seen = new Set<string>()
    try {
      await this.evaluateAll(reads, t, window, seen, active)
    } finally {
      this.seriesCache?.endTick()
    }
    for (const key of this.longWindow.keys()) if (!seen.has(key)) this.longWindow.delete(key)
    for (const key of this.atDataEnd.keys()) if (!seen.has(key)) this.atDataEnd.delete(key)
    return active
  }

  private async evaluateAll(reads: TickReads, t: number, window: EvalWindow, seen: Set<string>, active: Map<string, Active>): Promise<void> {
    const { every, long } = this.ruleSplit()
    for (const { cluster, broker } of await reads.brokers()) {
      if (this.cluster !== undefined && cluster !== this.cluster) continue
      const key = `${cluster}\u0000${broker}`
      seen.add(key)
      // Data with an end: a broker whose records stop before t is evaluated at its last one.
      const tb = this.dataEnds?.clamp(cluster, broker, t) ?? t
      const kept = tb < t ? this.atDataEnd.get(key) : undefined
      if (kept?.at === tb) {
        for (const { fp, rule, match, cause } of kept.built) active.set(fp, { rule, cluster, broker, match, cause, t: tb })
        continue
      }
      const w = tb === t ? window : { from: tb - (t - window.from), to: tb, now: tb }
      const built = every.length ? await this.evaluateBroker(reads, every, { cluster, broker }, w) : []
      if (long.length) {
        const last = this.longWindow.get(key)
        // A broker seen for the first time counts as evaluated up to an interval ago, by a share its name
        // decides: brokers then fall due on different ticks instead of all on one.
        const at = last ? tb : tb - (stableHash(key) % this.longWindowEveryMs)
        const result = last && tb - last.at < this.longWindowEveryMs && tb >= last.at ? last : { at, built: await this.evaluateBroker(reads, long, { cluster, broker }, w) }
        this.longWindow.set(key, result)
        // Kept matches age out of the window exactly as fresh ones would.
        for (const b of result.built) if (b.match.lastAt >= w.from) built.push({ ...b, cause: freshCause(b.cause) })
      }
      // An alert another one on this broker explains says so, so the bot can thread it under its
      // cause instead of posting a rival incident.
      markExplained(built)
      if (tb < t) this.atDataEnd.set(key, { at: tb, built })
      for (const { fp, rule, match, cause } of built) active.set(fp, { rule, cluster, broker, match, cause, t: tb })
    }
  }

  private split?: { rules: readonly Rule[]; every: readonly Rule[]; long: readonly Rule[] }

  /** The rules evaluated every tick and the long-window ones, kept as the same arrays while the rule set stays. */
  private ruleSplit(): { every: readonly Rule[]; long: readonly Rule[] } {
    if (this.split?.rules !== this.rules) {
      const long = this.longWindowEveryMs > 0 ? this.rules.filter((r) => lookbackMs(r.when) > LONG_WINDOW_LOOKBACK_MS) : []
      this.split = { rules: this.rules, every: long.length ? this.rules.filter((r) => !long.includes(r)) : this.rules, long }
    }
    return this.split
  }

  /** One broker's causes for a set of rules at the window's end, consequences included, not yet cross-marked. */
  private async evaluateBroker(reads: TickReads, rules: readonly Rule[], at: { cluster: string; broker: string }, window: EvalWindow) {
    const loaded = await loadForRules(reads, { ...at, rules, from: window.from, to: window.to })
    const data = withinPeersData(loaded.data, this.dataEnds)
    const here = new Map<string, Held>()
    for (const { rule, matches } of evaluateRules(rules, data, window)) {
      for (const match of matches) {
        if (match.lastAt < window.from) continue
        const fp = alertFingerprint(rule.id, at.cluster, at.broker, match.labels)
        const prev = here.get(fp)
        if (!prev) here.set(fp, { rule, match, related: [] })
        else if (match.at >= prev.match.at) here.set(fp, { rule, match, related: [...prev.related, prev.match] })
        else prev.related.push(match)
      }
    }
    return [...here].map(([fp, a]) => ({ fp, rule: a.rule, match: a.match, cause: causeWithConsequences(a, at, data, window) }))
  }

  /** One process wins the right to send a given notification; the lease outlives any retry. */
  private claim(name: string): Promise<boolean> {
    return this.store.acquireLock(name, this.owner, Math.max(this.keepFiringMs, this.renotifyMs, 3_600_000))
  }
}

function causeWithConsequences(a: Held, at: { cluster: string; broker: string }, data: EvalData, window: EvalWindow): Cause {
  const cause = buildCause(a.rule, a.match, at, a.related)
  addConsequences(cause, a.rule, data, window)
  return cause
}

/** FNV-1a: the same number for the same text in every process, unlike a random or time-based spread. */
function stableHash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/** A kept cause as it was built, before this tick's cross-marking (markExplained adds to these lists). */
function freshCause(cause: Cause): Cause {
  const { explainedBy: _explainedBy, ...rest } = cause
  return { ...rest, explainsRules: [] }
}

/** Silenced by rule id, rule name or fingerprint. */
function isSilenced(alert: AlertRecord, rule: Rule | undefined, silences: readonly Silence[]): boolean {
  return silences.some((s) => s.matcher === alert.fingerprint || s.matcher === alert.ruleId || (rule?.name !== undefined && s.matcher === rule.name))
}

function resolvedCause(rule: Rule, alert: AlertRecord): Cause {
  return {
    ruleId: rule.id,
    ...(rule.name !== undefined ? { ruleName: rule.name } : {}),
    severity: rule.severity,
    cause: alert.summary ?? rule.cause.raw,
    run: [],
    labels: { ...alert.labels },
    firstAt: alert.activeAt,
    lastAt: alert.lastSeenAt,
    matchedAt: alert.activeAt,
    evidence: [],
    corroboration: 0,
    score: 0,
    explainsRules: [],
  }
}

function alertOrder(a: AlertRecord): string {
  return [a.ruleId, a.cluster, a.broker ?? '', labelKey(a.labels)].join('\u0000')
}

function eventTime(e: AlertEvent): number {
  return e.type === 'resolved' ? (e.alert.resolvedAt ?? 0) : e.type === 'firing' ? (e.alert.firedAt ?? e.alert.activeAt) : e.alert.lastSeenAt
}
