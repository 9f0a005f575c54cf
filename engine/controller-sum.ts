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
 * order): one sample per report, its value the sum, label reporting = how many brokers' reports
 * count, controllers = those reporting 1 or more. Linear in the reports: a cluster of thousands of
 * brokers is summed as cheaply per report as one of three.
 */
export function deriveControllerSum(cluster: string, byBroker: ReadonlyMap<string, readonly Signal[]>): Signal[] {
  const reports = [...byBroker]
    .flatMap(([broker, list]) => list.filter((s) => s.value !== undefined && Number.isFinite(s.value)).map((s) => ({ broker, s })))
    .sort((a, b) => a.s.at - b.s.at)
  const latest = new Map<string, Signal>()
  const controllers = new Set<string>()
  let sum = 0
  let start = 0
  const out: Signal[] = []
  const forget = (broker: string) => {
    const last = latest.get(broker)
    if (!last) return
    sum -= last.value!
    latest.delete(broker)
    controllers.delete(broker)
  }
  for (const { broker, s } of reports) {
    forget(broker)
    latest.set(broker, s)
    sum += s.value!
    if (s.value! >= 1) controllers.add(broker)
    // Reports are in time order, so the stale ones are at the front; each is passed once.
    while (reports[start].s.at < s.at - CONTROLLER_REPORT_FRESH_MS) {
      const old = reports[start++]
      if (latest.get(old.broker) === old.s) forget(old.broker)
    }
    // Usually one broker, two in a split: cheap to spell out at every report.
    const controllersLabel = [...controllers].sort(byNumber).join(', ')
    out.push({
      name: CONTROLLER_SUM_SERIES,
      at: s.at,
      cluster,
      value: sum,
      labels: { reporting: String(latest.size), controllers: controllersLabel },
      source: `derived:${s.source}`,
      text: `${sum} active controller${sum === 1 ? '' : 's'} among the ${latest.size} brokers reporting${controllersLabel ? ` (reporting 1: ${controllersLabel})` : ''}`,
    })
  }
  return out
}

const perTick = new WeakMap<object, Map<string, Promise<Signal[]>>>()

/**
 * deriveControllerSum over what `read` returns, once per tick reader: an alert tick evaluates every
 * broker of a cluster, and each would otherwise sum the whole cluster again. Any other reader
 * (a store, whose contents change) derives afresh each time.
 */
export function controllerSumOnce(reader: object, memoise: boolean, key: string, read: () => Promise<Signal[]>): Promise<Signal[]> {
  if (!memoise) return read()
  let byKey = perTick.get(reader)
  if (!byKey) perTick.set(reader, (byKey = new Map()))
  let answer = byKey.get(key)
  if (!answer) {
    answer = read()
    byKey.set(key, answer)
    answer.catch(() => byKey!.delete(key))
  }
  return answer
}
