import { checkBrokerId } from '../broker-id.js'
import { lookupSignal } from '../../signals/catalogue.js'
import { validateSignal } from '../../signals/jsonl.js'
import type { Signal } from '../../signals/signal.js'
import { byTime, compareStored, factField, signalMember } from './keys.js'
import { redactText } from '../../secrets/redact.js'
import type {
  AlertRecord,
  AlertState,
  AppendOptions,
  AppendResult,
  AuditRecord,
  BrokerRef,
  PendingChange,
  PendingChangeState,
  SignalQuery,
  Silence,
  Store,
  StoredDiagnosis,
} from './store.js'

/** Caps shared by both stores: how much history the digest and the audit trail keep. */
export type StoreCaps = {
  /** Diagnoses kept (oldest dropped first). Default 10 000. */
  diagnosesCap?: number
  /** Audit records kept. Default 100 000. */
  auditCap?: number
  /** Brokers one cluster may have; signals of a broker beyond it are refused ('too many brokers'). Default 1000. */
  brokersPerCluster?: number
  /** Clusters one append may introduce; signals of further new clusters are refused ('too many new clusters'). Default 256. */
  newClustersPerAppend?: number
  /** Brokers one append may introduce; signals of further new brokers are refused ('too many new brokers'). Default 4096. */
  newBrokersPerAppend?: number
}

/**
 * What one append (one signals-topic batch, one JSONL file's chunk) may add: a sender inventing a
 * fresh cluster or broker per signal grows the store's listings, the trim sweep and every
 * per-cluster read; bounded per append, the growth is paced and a refusal is counted, not silent.
 * A real fleet never introduces this many at once; its signals are accepted again on the next append.
 */
export const DEFAULT_NEW_CLUSTERS_PER_APPEND = 256
export const DEFAULT_NEW_BROKERS_PER_APPEND = 4096

/**
 * A record as it may be kept: audit records carry what users typed and diagnoses the causes built
 * from data, and both are read back into Slack and the digest, so they are stored redacted.
 */
export function redacted<T>(record: T): T {
  const text = JSON.stringify(record)
  const clean = redactText(text)
  return clean === text ? structuredClone(record) : (JSON.parse(clean) as T)
}

/** More brokers than any real cluster runs, few enough that a flood of invented ids stays small. */
export const DEFAULT_BROKERS_PER_CLUSTER = 1000

/** The daily digest reads a day of diagnoses; this holds one even at 400 an hour. */
export const DEFAULT_DIAGNOSES_CAP = 10_000
/** Admin actions are rare; this keeps months of them while bounding memory. */
export const DEFAULT_AUDIT_CAP = 100_000

type Entry = { at: number; name: string; member: string; signal: Signal }
type Series = { entries: Entry[]; members: Set<string> }
type Scope = { cluster: string; broker?: string; series: Map<string, Series>; facts: Map<string, Signal> }

const copySignal = (s: Signal): Signal => (s.labels ? { ...s, labels: { ...s.labels } } : { ...s })

/** First index whose entry is not before `probe` in store order. */
function lowerBound(entries: Entry[], probe: { at: number; name: string; member: string }): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareStored(entries[mid], probe) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index with `at` >= t (or > t when `after`). */
function boundAt(entries: Entry[], t: number, after: boolean): number {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (entries[mid].at < t || (after && entries[mid].at === t)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Orders brokers "2" before "10" and clusters alphabetically, the same in both stores. */
export function compareBrokerRefs(a: BrokerRef, b: BrokerRef): number {
  return a.cluster.localeCompare(b.cluster, 'en', { numeric: true }) || a.broker.localeCompare(b.broker, 'en', { numeric: true })
}

/**
 * The embedded store: everything in process memory, gone on exit. The default when no Redis is
 * configured, and what `replay` and tests use; it obeys the same contract as RedisStore. Lock leases
 * expire by timer, so it never reads the clock.
 */
export class MemoryStore implements Store {
  private readonly scopes = new Map<string, Scope>()
  private readonly alerts = new Map<string, AlertRecord>()
  private readonly silences = new Map<string, Silence>()
  private diagnoses: StoredDiagnosis[] = []
  private audit: AuditRecord[] = []
  private readonly locks = new Map<string, { owner: string; timer: NodeJS.Timeout }>()
  private readonly pending = new Map<string, { record: PendingChange; timer: NodeJS.Timeout }>()
  private readonly seen = new Map<string, NodeJS.Timeout>()
  private readonly diagnosesCap: number
  private readonly auditCap: number
  private readonly brokersPerCluster: number
  private readonly newClustersPerAppend: number
  private readonly newBrokersPerAppend: number
  /** Brokers admitted per cluster (scopes with a broker). */
  private readonly brokerCount = new Map<string, number>()

  constructor(caps: StoreCaps = {}) {
    this.diagnosesCap = caps.diagnosesCap ?? DEFAULT_DIAGNOSES_CAP
    this.auditCap = caps.auditCap ?? DEFAULT_AUDIT_CAP
    this.brokersPerCluster = caps.brokersPerCluster ?? DEFAULT_BROKERS_PER_CLUSTER
    this.newClustersPerAppend = caps.newClustersPerAppend ?? DEFAULT_NEW_CLUSTERS_PER_APPEND
    this.newBrokersPerAppend = caps.newBrokersPerAppend ?? DEFAULT_NEW_BROKERS_PER_APPEND
  }

  private scope(cluster: string, broker: string | undefined, create: true): Scope
  private scope(cluster: string, broker: string | undefined, create: false): Scope | undefined
  private scope(cluster: string, broker: string | undefined, create: boolean): Scope | undefined {
    const key = JSON.stringify([cluster, broker ?? null])
    let scope = this.scopes.get(key)
    if (!scope && create) {
      scope = { cluster, broker, series: new Map(), facts: new Map() }
      this.scopes.set(key, scope)
    }
    return scope
  }

  async append(signals: Signal[], opts: AppendOptions = {}): Promise<AppendResult> {
    const rejected: Record<string, number> = {}
    const refusals: { index: number; reason: string }[] = []
    const refuse = (index: number, reason: string) => {
      rejected[reason] = (rejected[reason] ?? 0) + 1
      if (opts.listRefused) refusals.push({ index, reason })
    }
    const valid: Signal[] = []
    const indexOf: number[] = []
    signals.forEach((raw, i) => {
      const v = validateSignal(raw)
      if (v.ok && v.signal.broker !== undefined && checkBrokerId(v.signal.broker)) refuse(i, 'invalid broker')
      else if (v.ok) {
        valid.push(copySignal(v.signal))
        indexOf.push(i)
      } else refuse(i, v.reason)
    })
    let accepted = 0
    const newClusters = new Set<string>()
    const newBrokers = new Set<string>()
    for (const [k, s] of valid.entries()) {
      let scope = this.scope(s.cluster, s.broker, false)
      if (!scope && !newClusters.has(s.cluster) && !this.brokerCount.get(s.cluster) && !this.scope(s.cluster, undefined, false)) {
        if (newClusters.size >= this.newClustersPerAppend) {
          refuse(indexOf[k], 'too many new clusters')
          continue
        }
        newClusters.add(s.cluster)
      }
      if (!scope && s.broker !== undefined) {
        const member = JSON.stringify([s.cluster, s.broker])
        if (!newBrokers.has(member) && newBrokers.size >= this.newBrokersPerAppend) {
          refuse(indexOf[k], 'too many new brokers')
          continue
        }
        newBrokers.add(member)
        const n = this.brokerCount.get(s.cluster) ?? 0
        if (n >= this.brokersPerCluster) {
          refuse(indexOf[k], 'too many brokers')
          continue
        }
        this.brokerCount.set(s.cluster, n + 1)
      }
      scope ??= this.scope(s.cluster, s.broker, true)
      accepted++
      if (lookupSignal(s.name)?.kind === 'fact') {
        const field = factField(s)
        const current = scope.facts.get(field)
        if (!current || s.at >= current.at) scope.facts.set(field, s)
        continue
      }
      let series = scope.series.get(s.name)
      if (!series) {
        series = { entries: [], members: new Set() }
        scope.series.set(s.name, series)
      }
      const member = signalMember(s)
      if (series.members.has(member)) continue
      series.members.add(member)
      const entry = { at: s.at, name: s.name, member, signal: s }
      const last = series.entries[series.entries.length - 1]
      if (!last || compareStored(last, entry) < 0) series.entries.push(entry)
      else series.entries.splice(lowerBound(series.entries, entry), 0, entry)
    }
    return opts.listRefused ? { accepted, rejected, refusals } : { accepted, rejected }
  }

  async query(q: SignalQuery): Promise<Signal[]> {
    const scope = this.scope(q.cluster, q.broker, false)
    if (!scope || q.from > q.to) return []
    const names = [...new Set(q.names ?? scope.series.keys())].sort()
    const out: Signal[] = []
    for (const name of names) {
      const series = scope.series.get(name)
      if (!series) continue
      const end = boundAt(series.entries, q.to, true)
      for (let i = boundAt(series.entries, q.from, false); i < end; i++) out.push(copySignal(series.entries[i].signal))
    }
    return out.sort(byTime)
  }

  /** Built on `query`, so a store that overrides `query` (to read elsewhere) is read the same way here. */
  async querySeries(q: SignalQuery): Promise<Map<string, Signal[]>> {
    return seriesByName(await this.query(q))
  }

  async facts(cluster: string, broker?: string): Promise<Signal[]> {
    const scope = this.scope(cluster, broker, false)
    if (!scope) return []
    return [...scope.facts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => copySignal(s))
  }

  async brokers(): Promise<BrokerRef[]> {
    const refs: BrokerRef[] = []
    for (const scope of this.scopes.values()) if (scope.broker !== undefined) refs.push({ cluster: scope.cluster, broker: scope.broker })
    return refs.sort(compareBrokerRefs)
  }

  async trim(before: number, perSignal: Readonly<Record<string, number>> = {}): Promise<number> {
    let removed = 0
    for (const [key, scope] of this.scopes) {
      for (const [name, series] of scope.series) {
        const cut = boundAt(series.entries, Object.hasOwn(perSignal, name) ? perSignal[name] : before, false)
        if (cut === 0) continue
        for (let i = 0; i < cut; i++) series.members.delete(series.entries[i].member)
        series.entries.splice(0, cut)
        removed += cut
        if (series.entries.length === 0) scope.series.delete(name)
      }
      // Facts age out like events: a fact older than its signal's cut goes (live sources re-send
      // every fact periodically, so a value still true is never older than the retention).
      for (const [field, f] of scope.facts) if (f.at < (Object.hasOwn(perSignal, f.name) ? perSignal[f.name] : before)) scope.facts.delete(field)
      if (scope.series.size > 0 || scope.facts.size > 0) continue
      this.scopes.delete(key)
      if (scope.broker !== undefined) this.brokerCount.set(scope.cluster, (this.brokerCount.get(scope.cluster) ?? 1) - 1)
    }
    return removed
  }

  async getAlert(fingerprint: string): Promise<AlertRecord | undefined> {
    const a = this.alerts.get(fingerprint)
    return a ? structuredClone(a) : undefined
  }

  async listAlerts(options: { open?: boolean } = {}): Promise<AlertRecord[]> {
    return [...this.alerts.keys()]
      .sort()
      .map((fp) => this.alerts.get(fp)!)
      .filter((a) => !options.open || a.state !== 'resolved')
      .map((a) => structuredClone(a))
  }

  async pruneAlerts(resolvedBefore: number): Promise<number> {
    let removed = 0
    for (const [fp, a] of this.alerts) {
      if (a.state === 'resolved' && a.resolvedAt !== undefined && a.resolvedAt < resolvedBefore) {
        this.alerts.delete(fp)
        removed++
      }
    }
    return removed
  }

  async transitionAlert(expected: AlertState | undefined, next: AlertRecord): Promise<boolean> {
    const current = this.alerts.get(next.fingerprint)
    if ((current?.state ?? undefined) !== expected) return false
    this.alerts.set(next.fingerprint, structuredClone(withoutUndefined(next)))
    return true
  }

  async updateAlert(fingerprint: string, patch: Partial<Omit<AlertRecord, 'fingerprint' | 'state'>>): Promise<void> {
    const current = this.alerts.get(fingerprint)
    if (!current) return
    const clean = withoutUndefined(patch) as Partial<AlertRecord>
    delete clean.fingerprint
    delete clean.state
    this.alerts.set(fingerprint, { ...current, ...structuredClone(clean) })
  }

  async addSilence(s: Silence): Promise<void> {
    this.silences.set(s.id, structuredClone(withoutUndefined(s)))
  }

  async removeSilence(id: string): Promise<boolean> {
    return this.silences.delete(id)
  }

  async listSilences(now: number): Promise<Silence[]> {
    for (const [id, s] of this.silences) if (s.expiresAt <= now) this.silences.delete(id)
    return [...this.silences.values()]
      .sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => structuredClone(s))
  }

  async recordDiagnosis(d: StoredDiagnosis): Promise<void> {
    this.diagnoses.push(redacted(d))
    if (this.diagnoses.length > this.diagnosesCap) this.diagnoses = this.diagnoses.slice(-this.diagnosesCap)
  }

  async recentDiagnoses(since: number): Promise<StoredDiagnosis[]> {
    return this.diagnoses.filter((d) => d.at >= since).sort((a, b) => a.at - b.at).map((d) => ({ ...d }))
  }

  async appendAudit(r: AuditRecord): Promise<void> {
    this.audit.push(redacted(withoutUndefined(r)))
    if (this.audit.length > this.auditCap) this.audit = this.audit.slice(-this.auditCap)
  }

  async listAudit(limit: number): Promise<AuditRecord[]> {
    if (limit <= 0) return []
    return this.audit.slice(-limit).reverse().map((r) => ({ ...r }))
  }

  async transitionPendingChange(expected: PendingChangeState | undefined, next: PendingChange, ttlMs: number): Promise<boolean> {
    const held = this.pending.get(next.id)
    if (held?.record.state !== expected) return false
    if (held) clearTimeout(held.timer)
    const timer = setTimeout(() => {
      if (this.pending.get(next.id)?.timer === timer) this.pending.delete(next.id)
    }, ttlMs)
    timer.unref()
    this.pending.set(next.id, { record: structuredClone(withoutUndefined(next)), timer })
    return true
  }

  async getPendingChange(id: string): Promise<PendingChange | undefined> {
    const held = this.pending.get(id)
    return held ? structuredClone(held.record) : undefined
  }

  async claimOnce(token: string, ttlMs: number): Promise<boolean> {
    if (this.seen.has(token)) return false
    const timer = setTimeout(() => this.seen.delete(token), ttlMs)
    timer.unref()
    this.seen.set(token, timer)
    return true
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const held = this.locks.get(name)
    if (held && held.owner !== owner) return false
    if (held) clearTimeout(held.timer)
    const timer = setTimeout(() => {
      if (this.locks.get(name)?.timer === timer) this.locks.delete(name)
    }, ttlMs)
    timer.unref()
    this.locks.set(name, { owner, timer })
    return true
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    const held = this.locks.get(name)
    if (!held || held.owner !== owner) return
    clearTimeout(held.timer)
    this.locks.delete(name)
  }

  async close(): Promise<void> {
    for (const { timer } of this.locks.values()) clearTimeout(timer)
    this.locks.clear()
    for (const { timer } of this.pending.values()) clearTimeout(timer)
    this.pending.clear()
    for (const timer of this.seen.values()) clearTimeout(timer)
    this.seen.clear()
  }
}

/** Drops keys whose value is undefined, so stored records compare equal across stores. */
export function withoutUndefined<T extends object>(x: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) if (v !== undefined) out[k] = v
  return out as T
}

/** Splits a time-ordered query answer into per-name lists, names in sorted order (as querySeries answers). */
export function seriesByName(signals: readonly Signal[]): Map<string, Signal[]> {
  const byName = new Map<string, Signal[]>()
  for (const s of signals) {
    const list = byName.get(s.name)
    if (list) list.push(s)
    else byName.set(s.name, [s])
  }
  return new Map([...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
