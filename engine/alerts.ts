import type { Rule } from '../dsl/ast.js'
import { buildCause } from './cause.js'
import { addConsequences } from './consequences.js'
import { markExplained } from './diagnose.js'
import type { Cause } from './diagnosis.js'
import { labelKey } from './eval-data.js'
import { evaluateRules } from './evaluate.js'
import { alertFingerprint } from './fingerprint.js'
import { lateDataCanUndo } from './late-data.js'
import { loadForRules } from './load-data.js'
import type { Match } from './match.js'
import { signalKind } from './signal-kind.js'
import type { AlertRecord, Silence, Store } from './store/store.js'

/** Re-exported so the bot imports everything an alert event holds from one module. */
export type { AlertRecord } from './store/store.js'
/** Re-exported with AlertRecord: an AlertEvent's cause. */
export type { Cause } from './diagnosis.js'

/**
 * What the bot is told after a tick. `firing`: a new incident (or a re-notification of one still
 * firing, when its interval passed); `updated`: new evidence for a firing alert, to edit its message
 * in place; `resolved`: the condition stopped holding.
 */
export type AlertEvent = { type: 'firing' | 'updated' | 'resolved'; alert: AlertRecord; cause: Cause }

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
}

/** Late log lines from a tailer or a slow scrape still land inside the evaluated time. */
export const DEFAULT_LAG_MS = 15_000
/** An event rule matches for an instant; this keeps its alert up long enough to read. */
export const DEFAULT_KEEP_FIRING_MS = 5 * 60_000
/** A still-firing incident is brought back to attention this often. */
export const DEFAULT_RENOTIFY_MS = 4 * 3_600_000
/** Message edits during a storm are paced to this. */
export const DEFAULT_MIN_UPDATE_INTERVAL_MS = 60_000

type Active = { rule: Rule; cluster: string; broker: string; match: Match; cause: Cause }

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
  private readonly owner: string

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
    this.owner = opts.owner ?? `alert-engine-${Math.random().toString(36).slice(2, 10)}`
  }

  /** Swaps the rule set (after a rules reload); alerts of removed rules are left as they are. */
  setRules(rules: readonly Rule[]): void {
    this.rules = rules
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
    const t = now - this.lagMs
    this.settleDue = undefined
    const holdUntil = (at: number) => {
      this.settleDue = this.settleDue === undefined ? at : Math.min(this.settleDue, at)
    }
    const active = await this.evaluate(t)
    const silences = await this.store.listSilences(now)
    const byId = new Map(this.rules.map((r) => [r.id, r]))
    const events: AlertEvent[] = []
    const emit = (type: AlertEvent['type'], alert: AlertRecord, cause: Cause) => {
      if (!isSilenced(alert, byId.get(alert.ruleId), silences)) events.push({ type, alert, cause })
    }

    for (const [fp, a] of active) {
      const cause = a.cause
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
      const newestEvent = Math.max(-Infinity, ...a.match.evidence.filter((e) => signalKind(e.name) === 'event').map((e) => e.at))
      const newOccurrence = a.match.firstAt > current.lastSeenAt
      const fresh = newOccurrence || (newestEvent > current.lastSeenAt && cause.cause !== current.summary)
      const newest = Math.max(a.match.firstAt, newestEvent)
      const lastNotified = current.notifiedAt ?? current.firedAt ?? current.activeAt
      const mayUpdate = now - lastNotified >= this.minUpdateIntervalMs
      const due = this.renotifyMs > 0 && now - lastNotified >= this.renotifyMs
      await this.store.updateAlert(fp, fresh && !mayUpdate ? { ...seen, lastSeenAt: current.lastSeenAt, summary: current.summary } : seen)
      if (fresh && mayUpdate && (await this.claim(`alert-updated:${fp}:${newest}`))) {
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
      const next: AlertRecord = { ...alert, state: 'resolved', resolvedAt: t }
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
    for (const { cluster, broker } of await this.store.brokers()) {
      if (this.cluster !== undefined && cluster !== this.cluster) continue
      const { data } = await loadForRules(this.store, { cluster, broker, rules: this.rules, from: window.from, to: t })
      const here = new Map<string, Omit<Active, 'cause'> & { related: Match[] }>()
      for (const { rule, matches } of evaluateRules(this.rules, data, window)) {
        for (const match of matches) {
          if (match.lastAt < window.from) continue
          const fp = alertFingerprint(rule.id, cluster, broker, match.labels)
          const prev = here.get(fp)
          if (!prev) here.set(fp, { rule, cluster, broker, match, related: [] })
          else if (match.at >= prev.match.at) here.set(fp, { rule, cluster, broker, match, related: [...prev.related, prev.match] })
          else prev.related.push(match)
        }
      }
      // Causes with their consequences; an alert another one on this broker explains says so, so
      // the bot can thread it under its cause instead of posting a rival incident.
      const built = [...here].map(([fp, a]) => {
        const cause = buildCause(a.rule, a.match, { cluster, broker }, a.related)
        addConsequences(cause, a.rule, data, window)
        return { fp, a, cause, rule: a.rule }
      })
      markExplained(built)
      for (const { fp, a, cause } of built) active.set(fp, { rule: a.rule, cluster, broker, match: a.match, cause })
    }
    return active
  }

  /** One process wins the right to send a given notification; the lease outlives any retry. */
  private claim(name: string): Promise<boolean> {
    return this.store.acquireLock(name, this.owner, Math.max(this.keepFiringMs, this.renotifyMs, 3_600_000))
  }
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
