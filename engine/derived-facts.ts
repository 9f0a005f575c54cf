import type { Signal } from '../signals/signal.js'
import { encodeVersion } from '../signals/units.js'
import type { EvalData } from './match.js'

/**
 * Facts the engine works out from other facts, so a rule can compare a pause with "the session
 * timeout that applies" without knowing where that number was found. What decides whether a pause
 * costs a broker its ZooKeeper session is the broker's own timeout; the log may say it (the
 * negotiated value), the config may (a dump at start-up, describeConfigs), or only the version's
 * default is left.
 */

/** ZooKeeper session timeout before Kafka 2.5 (KIP-537 raised it). */
export const ZK_SESSION_DEFAULT_OLD_MS = 6000
/** ZooKeeper session timeout from Kafka 2.5 on. */
export const ZK_SESSION_DEFAULT_MS = 18000
/** replica.lag.time.max.ms before Kafka 2.5 (KIP-537 raised it with the ZooKeeper timeout). */
export const REPLICA_LAG_DEFAULT_OLD_MS = 10000
/** replica.lag.time.max.ms from Kafka 2.5 on. */
export const REPLICA_LAG_DEFAULT_MS = 30000
/** KRaft broker.session.timeout.ms default. */
export const KRAFT_SESSION_DEFAULT_MS = 9000
const KAFKA_2_5 = encodeVersion('2.5.0')!

/** Which stored facts each derived fact reads, so a loader fetches them when a rule names the derived one. */
export const DERIVED_FACT_SOURCES: Readonly<Record<string, readonly string[]>> = {
  'zk.session_timeout_limit': ['zk.negotiated_session_timeout', 'config.zookeeper_session_timeout_ms', 'broker.version', 'config.inter_broker_protocol_version'],
  'kraft.session_timeout_limit': ['config.broker_session_timeout_ms'],
  'replica.lag_limit': ['config.replica_lag_time_max_ms', 'broker.version', 'config.inter_broker_protocol_version'],
}

/** The fact names to load for `names`, with the sources of any derived fact among them. */
export function withDerivedSources(names: Iterable<string>): Set<string> {
  const out = new Set<string>()
  for (const n of names) {
    out.add(n)
    for (const s of DERIVED_FACT_SOURCES[n] ?? []) out.add(s)
  }
  return out
}

/**
 * `facts` (latest per name and label set) plus the derived facts, unless a derived one was recorded
 * directly. When nothing says which ZooKeeper timeout applies, the smaller default (6000 ms, before
 * Kafka 2.5) is assumed: a rule then errs towards naming a pause rather than hiding one.
 */
export function withDerivedFacts(facts: readonly Signal[], cluster: string, broker: string): Signal[] {
  const latest = (name: string) => {
    let best: Signal | undefined
    for (const f of facts) if (f.name === name && f.value !== undefined && (!best || f.at >= best.at)) best = f
    return best
  }
  const out = [...facts]
  const derive = (name: string, value: number, from: string, basis: Signal | undefined, why: string) => {
    if (facts.some((f) => f.name === name)) return
    const s: Signal = { name, at: basis?.at ?? 0, cluster, broker, value, labels: { from }, source: basis ? `derived:${basis.source}` : 'derived:default' }
    s.text = why
    out.push(s)
  }

  const negotiated = latest('zk.negotiated_session_timeout')
  const configured = latest('config.zookeeper_session_timeout_ms')
  const version = latest('broker.version') ?? latest('config.inter_broker_protocol_version')
  if (negotiated) derive('zk.session_timeout_limit', negotiated.value!, 'negotiated', negotiated, `ZooKeeper session timeout ${negotiated.value} ms, as negotiated with the server`)
  else if (configured) derive('zk.session_timeout_limit', configured.value!, 'config', configured, `zookeeper.session.timeout.ms = ${configured.value}`)
  else if (version) {
    const value = version.value! >= KAFKA_2_5 ? ZK_SESSION_DEFAULT_MS : ZK_SESSION_DEFAULT_OLD_MS
    derive('zk.session_timeout_limit', value, 'version-default', version, `default zookeeper.session.timeout.ms of Kafka ${version.labels?.version ?? 'of this version'}: ${value} ms`)
  } else derive('zk.session_timeout_limit', ZK_SESSION_DEFAULT_OLD_MS, 'default', undefined, `no session timeout or version seen: assuming ${ZK_SESSION_DEFAULT_OLD_MS} ms, the default before Kafka 2.5`)

  const lag = latest('config.replica_lag_time_max_ms')
  if (lag) derive('replica.lag_limit', lag.value!, 'config', lag, `replica.lag.time.max.ms = ${lag.value}`)
  else if (version) {
    const value = version.value! >= KAFKA_2_5 ? REPLICA_LAG_DEFAULT_MS : REPLICA_LAG_DEFAULT_OLD_MS
    derive('replica.lag_limit', value, 'version-default', version, `default replica.lag.time.max.ms of Kafka ${version.labels?.version ?? 'of this version'}: ${value} ms`)
  } else derive('replica.lag_limit', REPLICA_LAG_DEFAULT_OLD_MS, 'default', undefined, `no replica.lag.time.max.ms or version seen: assuming ${REPLICA_LAG_DEFAULT_OLD_MS} ms, the default before Kafka 2.5`)

  const kraft = latest('config.broker_session_timeout_ms')
  if (kraft) derive('kraft.session_timeout_limit', kraft.value!, 'config', kraft, `broker.session.timeout.ms = ${kraft.value}`)
  else derive('kraft.session_timeout_limit', KRAFT_SESSION_DEFAULT_MS, 'default', undefined, `broker.session.timeout.ms not seen: its default, ${KRAFT_SESSION_DEFAULT_MS} ms`)
  return out
}

const withDerived = new WeakMap<EvalData, readonly Signal[]>()

/**
 * The facts evaluation reads: the loaded ones plus the derived ones, worked out once per data set.
 * Loaders hand over what is stored; deriving here keeps every path (replay, store, tests) alike.
 */
export function factsOf(data: EvalData): readonly Signal[] {
  let facts = withDerived.get(data)
  if (!facts) withDerived.set(data, (facts = withDerivedFacts(data.facts, data.cluster, data.broker)))
  return facts
}
