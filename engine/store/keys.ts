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
 * | `P cluster-brokers:{cluster:_}` | set | broker ids of one cluster: its count is the per-cluster cap's, read in O(1) |
 * | `P cluster-brokers-seeded` | string | set once `P cluster-brokers:*` were filled from `P brokers` (stores written before them) |
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
    clusterBrokers: (cluster: string) => `${prefix}cluster-brokers:${tag(cluster, undefined)}`,
    clusterBrokersSeeded: () => `${prefix}cluster-brokers-seeded`,
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

/**
 * How a decoded signal's source and text relate to the member they came from:
 * - `slice`: views into the member string. Cheapest (no copy), but each keeps its whole member alive,
 *   so only for reads used and dropped: a `why`, one tick's windows (RedisStore.querySeries);
 * - `copy`: strings of their own, for signals held across ticks (engine/series-cache.ts), which would
 *   otherwise keep every member's bytes as well.
 */
export type MemberStrings = 'slice' | 'copy'

/**
 * Inverse of signalMember, given what the key implies. The member's fixed layout is cut at its commas
 * and quotes instead of being handed whole to JSON.parse: no array per member, and each label set is
 * one shared, frozen object. On a 100k-signal `why` that was a sixth of its time, most of it garbage
 * collection. Anything not in signalMember's exact form goes to JSON.parse (decodeMemberJson).
 */
export function decodeMember(member: string, name: string, cluster: string, broker: string | undefined, strings: MemberStrings = 'copy'): Signal {
  return decodeLaidOut(member, name, cluster, broker, strings) ?? decodeMemberJson(member, name, cluster, broker)
}

/** Label sets as stored → one shared, frozen object each; cleared when it grows past its bound. */
const LABELS = new Map<string, Readonly<Record<string, string>>>()
const LABELS_BOUND = 50_000

function sharedLabels(stored: string): Record<string, string> {
  let labels = LABELS.get(stored)
  if (!labels) {
    if (LABELS.size >= LABELS_BOUND) LABELS.clear()
    labels = Object.freeze(JSON.parse(stored) as Record<string, string>)
    // Keyed by a string of its own: the lookup key is a slice that would keep its member alive.
    LABELS.set(JSON.stringify(labels), labels)
  }
  return labels as Record<string, string>
}

/** Index of the quote closing the JSON string whose opening quote is at `open`, or -1. */
function closingQuote(member: string, open: number): number {
  let q = member.indexOf('"', open + 1)
  while (q !== -1) {
    let backslashes = 0
    for (let b = q - 1; member.charCodeAt(b) === BACKSLASH; b--) backslashes++
    if ((backslashes & 1) === 0) return q
    q = member.indexOf('"', q + 1)
  }
  return -1
}

/** The JSON string between quotes `open` and `close`: sliced or copied, unescaped by JSON.parse when it must be. */
function jsonString(m: string, open: number, close: number, strings: MemberStrings): string {
  const inner = m.slice(open + 1, close)
  return strings === 'copy' || inner.includes('\\') ? (JSON.parse(m.slice(open, close + 1)) as string) : inner
}

const [BRACKET_OPEN, BRACKET_CLOSE, BRACE_OPEN, BRACE_CLOSE, QUOTE, COMMA, BACKSLASH, LETTER_N] = [91, 93, 123, 125, 34, 44, 92, 110]

/** `[at,value|null,{labels}|null,"source","text"|null]` as JSON.stringify writes it, or undefined. */
function decodeLaidOut(m: string, name: string, cluster: string, broker: string | undefined, strings: MemberStrings): Signal | undefined {
  if (m.charCodeAt(0) !== BRACKET_OPEN || m.charCodeAt(m.length - 1) !== BRACKET_CLOSE) return undefined
  // The time is a whole number of ms: read digit by digit, it needs no string of its own.
  let at = 0
  let afterAt = 1
  for (let c = m.charCodeAt(afterAt); c >= 48 && c <= 57; c = m.charCodeAt(++afterAt)) at = at * 10 + (c - 48)
  if (afterAt === 1 || m.charCodeAt(afterAt) !== COMMA || afterAt > 16) return undefined
  const afterValue = m.indexOf(',', afterAt + 1)
  if (afterValue === -1) return undefined
  const valueText = m.slice(afterAt + 1, afterValue)
  const value = valueText === 'null' ? undefined : Number(valueText)
  if (!Number.isFinite(at) || (value !== undefined && !Number.isFinite(value))) return undefined
  let p = afterValue + 1
  let labels: Record<string, string> | undefined
  if (m.startsWith('null', p)) p += 4
  else if (m.charCodeAt(p) === BRACE_OPEN) {
    let q = p + 1
    for (let c = m.charCodeAt(q); c !== BRACE_CLOSE; c = m.charCodeAt(++q)) {
      if (c === QUOTE) q = closingQuote(m, q)
      if (q < 0 || q >= m.length) return undefined
    }
    labels = sharedLabels(m.slice(p, q + 1))
    p = q + 1
  } else return undefined
  if (m.charCodeAt(p) !== COMMA || m.charCodeAt(p + 1) !== QUOTE) return undefined
  const sourceEnd = closingQuote(m, p + 1)
  if (sourceEnd < 0 || m.charCodeAt(sourceEnd + 1) !== COMMA) return undefined
  const source = jsonString(m, p + 1, sourceEnd, strings)
  const t = sourceEnd + 2
  let text: string | undefined
  if (m.charCodeAt(t) === LETTER_N) {
    if (t + 5 !== m.length || !m.startsWith('null', t)) return undefined
  } else if (m.charCodeAt(t) === QUOTE && closingQuote(m, t) === m.length - 2) text = jsonString(m, t, m.length - 2, strings)
  else return undefined
  return signalOf(name, cluster, broker, at, value, labels, source, text)
}

/** The reference decoding: JSON.parse of the whole member. */
export function decodeMemberJson(member: string, name: string, cluster: string, broker: string | undefined): Signal {
  const [at, value, labels, source, text] = JSON.parse(member) as [number, number | null, Record<string, string> | null, string, string | null]
  return signalOf(name, cluster, broker, at, value ?? undefined, labels ?? undefined, source, text ?? undefined)
}

/**
 * A decoded signal; absent fields are left out, as the signal that was stored had them. Each object
 * is written as one literal with exactly its fields: properties added to an object after its literal
 * go to a second, out-of-object array, one more allocation per signal read.
 */
function signalOf(name: string, cluster: string, broker: string | undefined, at: number, value: number | undefined, labels: Record<string, string> | undefined, source: string, text: string | undefined): Signal {
  if (broker === undefined) {
    const s: Signal = { name, at, cluster, source }
    if (value !== undefined) s.value = value
    if (labels !== undefined) s.labels = labels
    if (text !== undefined) s.text = text
    return s
  }
  if (text === undefined) {
    if (labels === undefined) return value === undefined ? { name, at, cluster, source, broker } : { name, at, cluster, source, broker, value }
    return value === undefined ? { name, at, cluster, source, broker, labels } : { name, at, cluster, source, broker, value, labels }
  }
  if (labels === undefined) return value === undefined ? { name, at, cluster, source, broker, text } : { name, at, cluster, source, broker, value, text }
  return value === undefined ? { name, at, cluster, source, broker, labels, text } : { name, at, cluster, source, broker, value, labels, text }
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
