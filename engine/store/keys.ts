import type { Signal } from '../../signals/signal.js'

/**
 * Every Redis key and sorted-set member the store uses is built here, so the layout can be read in
 * one place and several deployments can share one Redis under different prefixes.
 *
 * Layout (P = prefix, T = hash tag `{cluster:broker}`, `{cluster:_}` for cluster-wide signals):
 *
 * | key | type | holds |
 * |---|---|---|
 * | `P sig:T:<name>` | sorted set | events and gauge samples of one signal, scored by `at`; member = signalMember() |
 * | `P names:T` | set | signal names that have a sorted set in scope T (queries without `names`, trim) |
 * | `P facts:T` | hash | field = factField(name, labels), value = `<at> <member>`; latest `at` wins |
 * | `P brokers` | set | JSON `[cluster, broker]` of every broker with a stored signal |
 * | `P clusters` | set | every cluster with a stored signal (its cluster-wide scope) |
 * | `P alert:{alerts}:<fingerprint>` | hash | one alert; `state` raw, other fields JSON |
 * | `P alerts:{alerts}` | set | fingerprints of all alerts |
 * | `P alerts-open:{alerts}` | set | fingerprints of pending and firing alerts |
 * | `P silences:{silences}` | hash | id → Silence JSON |
 * | `P silence-expiry:{silences}` | sorted set | id scored by `expiresAt` |
 * | `P diagnoses` | stream | capped (XADD MAXLEN ~) diagnosis history |
 * | `P audit` | stream | capped audit trail |
 * | `P lock:<name>` | string | lease owner, with a PX expiry |
 * | `P pending:{pending}:<id>` | hash | a pending configuration change; `state` raw, `record` JSON; PX expiry |
 * | `P once:<token>` | string | a token seen once (signed request replay cache), with a PX expiry |
 *
 * All keys of one broker share its hash tag, so on Redis Cluster they live on one shard and a Lua
 * script may touch several of them. Alert and silence keys share their own tags for the same reason.
 */

/** Marks the cluster-wide scope in a hash tag; a broker literally named "_" is escaped. */
export const CLUSTER_WIDE = '_'

/** Escapes the characters that would break a hash tag or the key grammar. */
function escapePart(part: string): string {
  const escaped = part.replace(/[%{}:\s]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`)
  return escaped === CLUSTER_WIDE ? '%5F' : escaped
}

/** Redis picks the first `{…}` of a key as its hash tag, so a prefix must not contain braces. */
export function checkPrefix(prefix: string): string | undefined {
  if (/[{}]/.test(prefix)) return `key prefix '${prefix}' must not contain '{' or '}'`
  return undefined
}

/** The key builder for one deployment's prefix. */
export type Keys = ReturnType<typeof createKeys>

/** Builds the key functions for a prefix such as "kafka-why:prod:". */
export function createKeys(prefix: string) {
  const problem = checkPrefix(prefix)
  if (problem) throw new Error(problem)
  // Escaping runs once per scope, not once per signal: ingest builds a key for every signal.
  const tags = new Map<string, Map<string | undefined, string>>()
  const tag = (cluster: string, broker: string | undefined) => {
    let perCluster = tags.get(cluster)
    if (!perCluster) tags.set(cluster, (perCluster = new Map()))
    let t = perCluster.get(broker)
    if (t === undefined) {
      t = `{${escapePart(cluster)}:${broker === undefined ? CLUSTER_WIDE : escapePart(broker)}}`
      if (perCluster.size < 10_000) perCluster.set(broker, t)
    }
    return t
  }
  return {
    prefix,
    /** The hash tag of a broker's keys (or of a cluster's cluster-wide keys). */
    tag,
    signal: (cluster: string, broker: string | undefined, name: string) => `${prefix}sig:${tag(cluster, broker)}:${name}`,
    names: (cluster: string, broker: string | undefined) => `${prefix}names:${tag(cluster, broker)}`,
    facts: (cluster: string, broker: string | undefined) => `${prefix}facts:${tag(cluster, broker)}`,
    brokers: () => `${prefix}brokers`,
    clusters: () => `${prefix}clusters`,
    alert: (fingerprint: string) => `${prefix}alert:{alerts}:${fingerprint}`,
    alerts: () => `${prefix}alerts:{alerts}`,
    openAlerts: () => `${prefix}alerts-open:{alerts}`,
    silences: () => `${prefix}silences:{silences}`,
    silenceExpiry: () => `${prefix}silence-expiry:{silences}`,
    diagnoses: () => `${prefix}diagnoses`,
    audit: () => `${prefix}audit`,
    lock: (name: string) => `${prefix}lock:${name}`,
    pending: (id: string) => `${prefix}pending:{pending}:${escapePart(id)}`,
    once: (token: string) => `${prefix}once:${escapePart(token)}`,
  }
}

/** The start every `P brokers` member of a cluster shares (`["prod",`), for counting a cluster's brokers. */
export function brokerMemberPrefix(cluster: string): string {
  return JSON.stringify([cluster]).slice(0, -1) + ','
}

/** A broker's member of `P brokers`. */
export function brokerMember(cluster: string, broker: string): string {
  return JSON.stringify([cluster, broker])
}

/** Labels with keys in sorted order, so equal label sets always serialise the same way. */
export function sortedLabels(labels: Record<string, string> | undefined): Record<string, string> | null {
  if (!labels) return null
  const keys = Object.keys(labels)
  if (keys.length === 0) return null
  keys.sort()
  const out: Record<string, string> = {}
  for (const k of keys) out[k] = labels[k]
  return out
}

/**
 * The sorted-set member of a signal: `[at, value, labels, source, text]` as JSON. It carries the
 * source (adapter:file:line), so replaying the same file twice stores each observation once, while
 * two observations that differ in anything (time, value, labels, line) stay two members. Name,
 * cluster and broker are implied by the key.
 */
export function signalMember(s: Signal): string {
  return JSON.stringify([s.at, s.value ?? null, canonicalLabels(s.labels), s.source, s.text ?? null])
}

/**
 * The labels as stored: null when empty, the object itself when its keys already come in sorted
 * order (adapters build them that way, and this runs for every ingested signal), else a sorted copy.
 */
function canonicalLabels(labels: Record<string, string> | undefined): Record<string, string> | null {
  if (!labels) return null
  let previous: string | undefined
  let count = 0
  let sorted = true
  for (const k in labels) {
    if (previous !== undefined && k < previous) sorted = false
    previous = k
    count++
  }
  if (count === 0) return null
  return sorted ? labels : sortedLabels(labels)
}

/** Inverse of signalMember, given what the key implies. */
export function decodeMember(member: string, name: string, cluster: string, broker: string | undefined): Signal {
  const [at, value, labels, source, text] = JSON.parse(member) as [number, number | null, Record<string, string> | null, string, string | null]
  const s: Signal = { name, at, cluster, source }
  if (broker !== undefined) s.broker = broker
  if (value !== null) s.value = value
  if (labels !== null) s.labels = labels
  if (text !== null) s.text = text
  return s
}

/** Facts are latest-wins per (name, labels): this is the identity of one fact. */
export function factField(s: Pick<Signal, 'name' | 'labels'>): string {
  return JSON.stringify([s.name, sortedLabels(s.labels)])
}

/** Stable-sort key for query results whose per-name runs are already in store order. */
export const byTime = (a: { at: number }, b: { at: number }): number => a.at - b.at

/**
 * The one ordering of query results both stores share: by time, then name, then member — the same
 * tie-break Redis applies to equal scores, so MemoryStore and RedisStore answer identically.
 */
export function compareStored(a: { at: number; name: string; member: string }, b: { at: number; name: string; member: string }): number {
  if (a.at !== b.at) return a.at - b.at
  if (a.name !== b.name) return a.name < b.name ? -1 : 1
  if (a.member === b.member) return 0
  return a.member < b.member ? -1 : 1
}
