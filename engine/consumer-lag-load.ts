import type { Signal } from '../signals/signal.js'
import { controllerSumOnce } from './controller-sum.js'
import { CONSUMER_LAG_HISTORY_MS, CONSUMER_LAG_SOURCES, deriveConsumerLagStatus, GROUP_STATUS_SERIES, PARTITION_STATUS_SERIES } from './consumer-lag-series.js'
import { TickReads, type SignalReader } from './tick-reads.js'

/** The part of a load request the derived consumer-lag series need. */
export type ConsumerLagRead = { cluster: string; broker?: string; from: number; to: number; group?: string }

/**
 * Every commit and log end of a cluster over [from - history, to], whichever broker each is filed
 * on (a partition's leader moves; its history must not be cut where it moved), plus the
 * cluster's broker-less ones.
 */
export async function readConsumerLagSources(store: SignalReader, req: ConsumerLagRead): Promise<{ commits: Signal[]; logEnds: Signal[] }> {
  const brokers = (await store.brokers()).filter((b) => b.cluster === req.cluster).map((b) => b.broker)
  const names = [...CONSUMER_LAG_SOURCES]
  const range = { cluster: req.cluster, names, from: req.from - CONSUMER_LAG_HISTORY_MS, to: req.to }
  const lists = await Promise.all([store.querySeries(range), ...brokers.map((broker) => store.querySeries({ ...range, broker }))])
  const commits: Signal[] = []
  const logEnds: Signal[] = []
  for (const byName of lists) {
    for (const s of byName.get('group.commit') ?? []) if (req.group === undefined || s.labels?.group === req.group) commits.push(s)
    for (const s of byName.get('partition.log_end') ?? []) logEnds.push(s)
  }
  return { commits, logEnds }
}

/**
 * The derived status series for one broker's evaluation: the cluster's statuses are worked out
 * once per alert tick (every broker's evaluation shares them) and each broker gets those filed on
 * it (its groups, as their coordinator) and the broker-less ones.
 */
export async function readConsumerLagStatus(store: SignalReader, req: ConsumerLagRead): Promise<Map<string, Signal[]>> {
  const derive = async () => {
    const { commits, logEnds } = await readConsumerLagSources(store, req)
    if (!commits.length) return []
    const { partitions, groups } = deriveConsumerLagStatus(req.cluster, commits, logEnds, req.from, req.to, { group: req.group })
    return [...partitions, ...groups]
  }
  const all = await controllerSumOnce(store, store instanceof TickReads, JSON.stringify(['consumer-lag', req.cluster, req.from, req.to, req.group ?? null]), derive)
  const out = new Map<string, Signal[]>()
  for (const s of all) {
    if (req.broker !== undefined && s.broker !== undefined && s.broker !== req.broker) continue
    let l = out.get(s.name)
    if (!l) out.set(s.name, (l = []))
    l.push(s)
  }
  // Each list keeps the derivation's time order.
  for (const name of [PARTITION_STATUS_SERIES, GROUP_STATUS_SERIES]) if (out.get(name)?.length === 0) out.delete(name)
  return out
}
