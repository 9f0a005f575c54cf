import type { Signal } from '../signals/signal.js'

/**
 * Exactly one broker of a cluster is the active controller; ZooKeeper-mode brokers each report 1 or 0
 * (KRaft controllers likewise, KRaft brokers not at all). No broker can see the others' reports, so
 * the engine derives the cluster's sum for every broker's evaluation: at each report of any broker,
 * the latest report of every broker heard from within CONTROLLER_REPORT_FRESH_MS, added up.
 */
export const CONTROLLER_SUM_SERIES = 'controller.active_sum'

/** The per-broker series the sum is made of. */
export const CONTROLLER_SUM_SOURCE = 'controller.active'

/** A broker's last report counts this long: a few scrape intervals, so one missed scrape does not drop it. */
export const CONTROLLER_REPORT_FRESH_MS = 120_000

/** True for the name deriveControllerSum computes. */
export function isControllerSumSeries(name: string): boolean {
  return name === CONTROLLER_SUM_SERIES
}

const byNumber = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/**
 * The derived series from every broker's controller.active samples (`byBroker`, each list in any
 * order): one sample per report, its value the sum, label brokers = the brokers whose reports count,
 * controllers = those among them reporting 1.
 */
export function deriveControllerSum(cluster: string, byBroker: ReadonlyMap<string, readonly Signal[]>): Signal[] {
  const reports = [...byBroker]
    .flatMap(([broker, list]) => list.filter((s) => s.value !== undefined && Number.isFinite(s.value)).map((s) => ({ broker, s })))
    .sort((a, b) => a.s.at - b.s.at)
  const latest = new Map<string, Signal>()
  const out: Signal[] = []
  for (const { broker, s } of reports) {
    latest.set(broker, s)
    for (const [b, last] of latest) if (last.at < s.at - CONTROLLER_REPORT_FRESH_MS) latest.delete(b)
    const brokers = [...latest.keys()].sort(byNumber)
    const controllers = brokers.filter((b) => latest.get(b)!.value! >= 1)
    const sum = brokers.reduce((n, b) => n + latest.get(b)!.value!, 0)
    out.push({
      name: CONTROLLER_SUM_SERIES,
      at: s.at,
      cluster,
      value: sum,
      labels: { brokers: brokers.join(', '), controllers: controllers.join(', ') },
      source: `derived:${s.source}`,
      text: `${sum} active controller${sum === 1 ? '' : 's'} among brokers ${brokers.join(', ')}${controllers.length ? ` (reporting 1: ${controllers.join(', ')})` : ''}`,
    })
  }
  return out
}
