import type { Rule } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { AlertEngine, DEFAULT_KEEP_FIRING_MS, DEFAULT_LAG_MS, type AlertEvent } from './alerts.js'
import type { DataEnds } from './data-span.js'
import { MemoryStore } from './store/memory-store.js'
import type { AppendOptions, Store } from './store/store.js'

/**
 * Alerts over recorded data: what `replay` prints, and the alert state the console shows after
 * loading an incident. Time comes from the recording, never the clock.
 */

/** The at-times of recorded signals per cluster, collected batch by batch: what replayAlerts steps through. */
export class SignalTimes {
  private readonly byCluster = new Map<string, number[]>()

  add(batch: readonly Signal[]): void {
    for (const s of batch) {
      let list = this.byCluster.get(s.cluster)
      if (!list) this.byCluster.set(s.cluster, (list = []))
      list.push(s.at)
    }
  }

  /** Forgets times before `t` (a bounded replay trimmed their signals), so the list stays as bounded as the store. */
  dropBefore(t: number): void {
    for (const [cluster, list] of this.byCluster) this.byCluster.set(cluster, list.filter((at) => at >= t))
  }

  /** Every cluster's times, ascending. */
  sorted(): Map<string, number[]> {
    for (const list of this.byCluster.values()) list.sort((a, b) => a - b)
    return this.byCluster
  }
}

/** How to step through a recording. */
export type ReplayAlertOptions = {
  stepMs: number
  lagMs?: number
  keepFiringMs?: number
  /**
   * Stop at this time and leave open alerts open (the console's "now" inside an incident); without
   * it, stepping stops at each cluster's last recorded signal (plus the lag), so no evaluation window
   * reaches past the data: what is still open there is left open, never resolved or fired by the
   * absence of data that was simply not recorded.
   */
  until?: number
  /** Keep the alert state in `store` itself (the console); by default it lives in a private overlay. */
  alertsInStore?: boolean
  /**
   * Where each broker's own records end: a broker whose data stops before its cluster's is evaluated
   * at its last record from then on, so nothing fires, resolves or is claimed for it past that.
   */
  dataEnds?: DataEnds
}

/**
 * Steps through recorded time as the streaming engine would: a tick after each signal (plus the lag),
 * and every `step` while an alert is open, until everything resolved (or `until`). Events are handed to
 * `onEvent` in tick order across all clusters once the replay is done. Alert state lives in a private
 * in-memory overlay unless `alertsInStore`, so replaying into a shared Redis never touches live alerts.
 */
export async function replayAlerts(
  store: Store,
  rules: readonly Rule[],
  times: Map<string, number[]>,
  opts: ReplayAlertOptions,
  onEvent: (e: AlertEvent, tickAt: number) => void,
): Promise<AlertEvent[]> {
  const lagMs = opts.lagMs ?? DEFAULT_LAG_MS
  const keepFiringMs = opts.keepFiringMs ?? DEFAULT_KEEP_FIRING_MS
  const overlay = opts.alertsInStore ? store : new AlertOverlay(store)
  const all: { event: AlertEvent; tickAt: number }[] = []
  for (const [cluster, list] of [...times].sort(([a], [b]) => a.localeCompare(b))) {
    const engine = new AlertEngine({ store: overlay, rules, cluster, lagMs, keepFiringMs, renotifyMs: 0, dataEnds: opts.dataEnds })
    const quantise = (t: number) => Math.ceil(t / opts.stepMs) * opts.stepMs
    const end = opts.until ?? list[list.length - 1] + lagMs
    let i = 0
    let now = Math.min(quantise(list[0] + lagMs), end)
    while (now <= end) {
      for (const event of await engine.tick(now)) all.push({ event, tickAt: now })
      if (now === end) break
      while (i < list.length && list[i] + lagMs <= now) i++
      const open = (await overlay.listAlerts()).some((a) => a.cluster === cluster && a.state !== 'resolved')
      const nextSignal = i < list.length ? quantise(list[i] + lagMs) : Infinity
      const next = open ? Math.min(now + opts.stepMs, nextSignal) : nextSignal
      // The last tick is taken at the end itself, so the state reported is the one there.
      now = Math.min(Number.isFinite(next) ? Math.max(next, now + 1) : end, end)
    }
  }
  // Clusters are stepped one after the other; their events are told in one time order.
  all.sort((a, b) => a.tickAt - b.tickAt)
  for (const { event, tickAt } of all) onEvent(event, tickAt)
  return all.map((a) => a.event)
}

/**
 * Signals from the real store; alerts, silences, locks and history in memory: replays and backtests
 * over a team's store never touch its live alerts.
 */
export class AlertOverlay extends MemoryStore {
  constructor(private readonly base: Store) {
    super()
  }
  override append(signals: Signal[], opts?: AppendOptions) {
    return this.base.append(signals, opts)
  }
  override query(q: Parameters<Store['query']>[0]) {
    return this.base.query(q)
  }
  override querySeries(q: Parameters<Store['querySeries']>[0]) {
    return this.base.querySeries(q)
  }
  override facts(cluster: string, broker?: string) {
    return this.base.facts(cluster, broker)
  }
  override brokers() {
    return this.base.brokers()
  }
  override trim(before: number) {
    return this.base.trim(before)
  }
}

