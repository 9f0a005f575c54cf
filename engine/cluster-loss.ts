import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'

/**
 * A broker that loses ZooKeeper (or the KRaft controller) alone has a problem of its own: a pause, its
 * host, its network. Most brokers of a cluster losing it within seconds of each other is one problem
 * outside all of them: the ensemble, the quorum or the network to it. A per-broker rule cannot see the
 * other brokers' own series, so the engine derives one cluster-wide series from them that every
 * broker's evaluation reads: an event wherever at least two brokers lost the connection within
 * CLUSTER_LOSS_WINDOW_MS, its value the share of the cluster's brokers involved.
 */
export const CLUSTER_LOSS_SERIES: Readonly<Record<string, { from: readonly string[]; lost: string }>> = {
  'zk.cluster_session_loss': { from: ['zk.session_timeout', 'zk.disconnected'], lost: 'lost their ZooKeeper connection' },
  'kraft.cluster_controller_loss': { from: ['kraft.heartbeat_failed'], lost: 'failed to heartbeat to the KRaft controller' },
}

/** Losses this close together count as one event of the whole cluster. */
export const CLUSTER_LOSS_WINDOW_MS = 10_000

/** True for the names deriveClusterLoss computes. */
export function isClusterLossSeries(name: string): boolean {
  return Object.hasOwn(CLUSTER_LOSS_SERIES, name)
}

/**
 * The derived series `name` from every broker's source events (`byBroker`, each list time-sorted or
 * not) of a cluster that has `brokerCount` brokers. One event per source event that has at least two
 * brokers within the window behind it, so the series starts on the second broker's timeout.
 */
export function deriveClusterLoss(name: string, cluster: string, byBroker: ReadonlyMap<string, readonly Signal[]>, brokerCount: number): Signal[] {
  const spec = CLUSTER_LOSS_SERIES[name]
  if (!spec) return []
  const events = [...byBroker].flatMap(([broker, list]) => list.map((s) => ({ broker, s }))).sort((a, b) => a.s.at - b.s.at)
  const out: Signal[] = []
  const latest = new Map<string, number>()
  let start = 0
  for (const { broker, s } of events) {
    latest.set(broker, s.at)
    while (start < events.length && events[start].s.at < s.at - CLUSTER_LOSS_WINDOW_MS) {
      const old = events[start++]
      if (latest.get(old.broker) === old.s.at) latest.delete(old.broker)
    }
    if (latest.size < 2) continue
    const brokers = [...latest.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    const share = brokers.length / Math.max(brokerCount, brokers.length)
    out.push({
      name,
      at: s.at,
      cluster,
      value: share,
      labels: { brokers: brokers.join(', ') },
      source: `derived:${s.source}`,
      text: `${brokers.length} of ${Math.max(brokerCount, brokers.length)} brokers (${formatValue(share, 'ratio')}) ${spec.lost} within ${CLUSTER_LOSS_WINDOW_MS / 1000}s: brokers ${brokers.join(', ')}`,
    })
  }
  return out
}
