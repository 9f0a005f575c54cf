import type { Signal } from '../../../signals/signal.js'
import { encodeVersion } from '../../../signals/units.js'
import type { StoredDiagnosis } from '../../../engine/store/store.js'

/**
 * A day of two brokers' health signals with known totals, for the digest tests: broker 1 leaks heap,
 * restarts once, is under-replicated for 20 minutes and coordinates a churning group; broker 2 is calm.
 * Gauge and event values only; no log text is parsed from them.
 */
export const DAY_END = Date.UTC(2026, 10, 29, 8, 0, 0)
export const DAY_START = DAY_END - 24 * 3_600_000
const MIN = 60_000
const GiB = 1024 ** 3

export function digestSignals(cluster = 'prod'): Signal[] {
  const out: Signal[] = []
  const s = (name: string, at: number, broker: string, value?: number, labels?: Record<string, string>): void => {
    out.push({ name, at, cluster, broker, ...(value === undefined ? {} : { value }), ...(labels ? { labels } : {}), source: 'test:digest-data' })
  }
  for (let i = 0; i < 96; i++) {
    const at = DAY_START + i * 15 * MIN
    s('heap.after_gc', at, '1', 1 * GiB + i * 0.02 * GiB)
    s('heap.after_gc', at, '2', 1.5 * GiB)
    s('gc.pause', at + MIN, '1', 20 + (i % 10))
    s('gc.pause', at + MIN, '2', 15)
  }
  // Under-replicated samples every minute for 2 hours on broker 1: 20 of them > 0.
  for (let m = 0; m < 120; m++) s('partitions.under_replicated', DAY_START + 6 * 3_600_000 + m * MIN, '1', m >= 30 && m < 50 ? 12 : 0)
  for (let m = 0; m < 120; m++) s('partitions.under_replicated', DAY_START + 6 * 3_600_000 + m * MIN, '2', 0)
  for (let k = 0; k < 7; k++) s('isr.shrink', DAY_START + 6 * 3_600_000 + 30 * MIN + k * 1000, '1', undefined, { topic: 'orders', partition: String(k), from: '1,2', to: '1' })
  s('safepoint.total', DAY_START + 5 * 3_600_000, '1', 3302)
  s('safepoint.sync', DAY_START + 5 * 3_600_000, '1', 3301)
  s('safepoint.total', DAY_START + 5 * 3_600_000, '2', 12)
  s('broker.start', DAY_START + 6 * 3_600_000 + 29 * MIN, '1')
  for (let k = 0; k < 24 * 6; k++) {
    s('group.rebalance', DAY_START + k * 10 * MIN, '1', undefined, { group: 'churny-connector' })
    if (k % 2 === 0) s('group.member_failed', DAY_START + k * 10 * MIN + 5000, '1', undefined, { group: 'churny-connector', member: `m-${k}` })
  }
  s('group.rebalance', DAY_START + 3_600_000, '2', undefined, { group: 'billing' })
  s('config.segment_ms', DAY_START, '1', 100, { topic: 'LoadTestingTopic' })
  s('config.segment_ms', DAY_START, '1', 604_800_000, { topic: 'orders' })
  s('config.log_message_format_version', DAY_START, '2', encodeVersion('0.10.2')!, { topic: 'legacy' })
  s('config.log_message_format_version', DAY_START, '2', encodeVersion('1.1')!, { topic: 'current' })
  s('broker.version', DAY_START, '2', encodeVersion('1.1.0')!, { version: '1.1.0' })
  s('config.zookeeper_session_timeout_ms', DAY_START, '1', 6000)
  return out
}

export function digestDiagnoses(cluster = 'prod'): StoredDiagnosis[] {
  return [
    { at: DAY_START + 5 * 3_600_000, cluster, broker: '1', ruleId: 'stw_pause_session_expiry', severity: 'critical', cause: 'JVM stop-the-world pause on broker 1 outlived the ZooKeeper session' },
    { at: DAY_START + 9 * 3_600_000, cluster, broker: '1', ruleId: 'stw_pause_session_expiry', severity: 'critical', cause: 'JVM stop-the-world pause on broker 1 outlived the ZooKeeper session' },
    { at: DAY_START + 10 * 3_600_000, cluster, broker: '1', ruleId: 'group_churn', severity: 'warning', cause: 'consumer group churny-connector rebalanced 6 times in an hour' },
    { at: DAY_START - 3_600_000, cluster, broker: '2', ruleId: 'old_news', severity: 'info', cause: 'before the window' },
    { at: DAY_START + 3_600_000, cluster: 'other', broker: '2', ruleId: 'other_cluster', severity: 'info', cause: 'another cluster' },
  ]
}
