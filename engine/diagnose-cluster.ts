import { compareBroker } from './broker-id.js'
import type { Rule, Severity } from '../dsl/ast.js'
import { observedSignalsOfRule } from '../dsl/signals-of-rule.js'
import { looksHealthy } from './abnormal.js'
import type { DataEnds } from './data-span.js'
import { diagnose, SEVERITY_WEIGHT } from './diagnose.js'
import type { Cause, Diagnosis } from './diagnosis.js'
import type { Store } from './store/store.js'
import { lookupSignal } from '../signals/catalogue.js'

/**
 * "Which broker is sick": an incident is a cluster event. One broker fails; its peers' fetchers fail
 * toward it, leaders shrink their ISRs, leadership moves and clients see NotLeader. Each broker's own
 * diagnosis is right about that broker, but only the cluster view says which one is the origin and
 * which answers are consequences of it. This module joins the per-broker diagnoses of one window.
 */

/** Which cluster and window to answer for; `now` comes from the caller. */
export type ClusterDiagnoseOptions = {
  cluster: string
  from: number
  to: number
  now: number
  /** Diagnose only these brokers (default: every broker the store knows in the cluster). */
  brokers?: readonly string[]
  /** Record the top causes in the diagnoses history, as `why <broker>` does. Default true. */
  record?: boolean
  /** Where each broker's own data ends (a replay): a broker is answered at its last record, never past it. */
  dataEnds?: DataEnds
}

/** Where a cause sits: this broker's rule, by id. */
export type CauseRef = { broker: string; ruleId: string }

/**
 * A cause on one broker that accounts for a cause on another: by the evidence naming the broker
 * (`peer`: the follower's fetches fail toward leader 3, broker 3's disk is full) or by the rule's
 * `explains` list (`explains`: broker 1's stall explains broker 2's NotLeader errors that followed).
 */
export type CrossLink = { cause: CauseRef; consequence: CauseRef; by: 'peer' | 'explains' }

/** One broker's part in the cluster answer. */
export type BrokerPart = {
  broker: string
  /**
   * origin: it has a cause of its own at warning or above that no other broker's cause explains;
   * named: it left no evidence of its own, but its peers' evidence names it (its logs were not given,
   * or it died without a line); affected: everything above info it shows is another broker's
   * consequence; quiet: nothing above info.
   */
  role: 'origin' | 'named' | 'affected' | 'quiet'
  diagnosis: Diagnosis
  /** Its causes at warning or above that no other broker's cause explains, ranked. */
  own: Cause[]
  /** For a `named` broker: the peers' causes that name it. */
  namedBy: CauseRef[]
}

/**
 * A cause every broker's answer shows alike because it rests only on cluster-wide evidence (client
 * logs, admin metadata): it says what the clients saw, not which broker is sick, so it is told once
 * and never makes a broker an origin.
 */
export type ClusterWideCause = { cause: Cause; brokers: string[] }

/** The answer for a cluster: origins first, then the affected brokers, then the quiet ones. */
export type ClusterDiagnosis = {
  cluster: string
  from: number
  to: number
  at: number
  brokers: BrokerPart[]
  links: CrossLink[]
  clusterWide: ClusterWideCause[]
}

/** Labels whose value names another broker: a fetcher's leader, a client's node, several leaders. */
const PEER_LABELS = ['leader', 'node', 'leaders'] as const

/** A consequence may be seen this long before its cause's first evidence (clocks and log flushes differ). */
const CLOCK_SLACK_MS = 5_000

/** Diagnoses every broker of the cluster over one window and joins the answers. */
export async function diagnoseCluster(rules: readonly Rule[], store: Store, opts: ClusterDiagnoseOptions): Promise<ClusterDiagnosis> {
  const known = (await store.brokers()).filter((b) => b.cluster === opts.cluster).map((b) => b.broker)
  const brokers = [...new Set(opts.brokers ?? known)].sort(compareBroker)
  const diagnoses: Diagnosis[] = []
  for (const broker of brokers) {
    const to = opts.dataEnds?.clamp(opts.cluster, broker, opts.to) ?? opts.to
    const now = Math.min(opts.now, to)
    diagnoses.push(await diagnose(rules, store, { cluster: opts.cluster, broker, from: Math.min(opts.from, to), to, now, record: opts.record, dataEnds: opts.dataEnds }))
  }
  return joinDiagnoses(rules, diagnoses, opts)
}

/**
 * The pure part: links causes across brokers and gives each broker its role. A cause on B is a
 * consequence of a cause on A when B's cause names A (a peer label) and A has a cause at warning or
 * above, or when everything B's rule rests on is among what A's rule explains; either way A's cause
 * must have begun by the time B's ended.
 */
export function joinDiagnoses(rules: readonly Rule[], diagnoses: readonly Diagnosis[], w: { cluster: string; from: number; to: number; now: number }): ClusterDiagnosis {
  const byId = new Map(rules.map((r) => [r.id, r]))
  const explainsOf = new Map(rules.map((r) => [r.id, new Set(r.explains.map((e) => e.signal))]))
  const serious = (c: Cause) => c.severity !== 'info' && c.confidence !== 'baseline'
  const links: CrossLink[] = []
  const consequenceKeys = new Set<string>()
  const key = (broker: string, c: Cause) => `${broker}\u0000${c.ruleId}\u0000${JSON.stringify(c.labels)}`
  const present = new Set(diagnoses.map((d) => d.broker))
  const named = new Map<string, CauseRef[]>()

  for (const b of diagnoses) {
    for (const y of b.causes) {
      // A baseline's labels come from whatever line it quotes (a fetcher's leader), not from a peer it
      // blames; and a cause already explained on its own broker is not a rival anywhere.
      if (y.explainedBy?.length || y.confidence === 'baseline') continue
      // A symptom pointing at one peer is about that peer (fetches from leader 3 fail); one pointing at
      // every peer at once is about this broker (it is cut off from all of them).
      const named1 = peersNamed(y).filter((p) => p !== b.broker)
      const peers = named1.length === 1 ? named1 : []
      const yRule = byId.get(y.ruleId)
      const needs = yRule ? observedSignalsOfRule(yRule) : []
      let linked = false
      for (const a of diagnoses) {
        if (a.broker === b.broker) continue
        for (const x of a.causes) {
          if (!serious(x) || x.explainedBy?.length || x.firstAt - CLOCK_SLACK_MS > y.lastAt) continue
          const explains = explainsOf.get(x.ruleId) ?? new Set<string>()
          const byPeer = peers.includes(a.broker)
          const byExplains = needs.length > 0 && needs.every((n) => explains.has(n)) && SEVERITY_WEIGHT[x.severity] >= SEVERITY_WEIGHT[y.severity]
          if (!byPeer && !byExplains) continue
          const link: CrossLink = { cause: { broker: a.broker, ruleId: x.ruleId }, consequence: { broker: b.broker, ruleId: y.ruleId }, by: byPeer ? 'peer' : 'explains' }
          if (!links.some((l) => sameLink(l, link))) links.push(link)
          consequenceKeys.add(key(b.broker, y))
          linked = true
        }
      }
      // A peer the evidence names whose own logs say nothing (or were not given) is still the suspect.
      if (!linked && serious(y)) {
        for (const p of peers) {
          const own = diagnoses.find((d) => d.broker === p)
          if (own && own.causes.some(serious)) continue
          if (!named.has(p)) named.set(p, [])
          if (!named.get(p)!.some((r) => r.broker === b.broker && r.ruleId === y.ruleId)) named.get(p)!.push({ broker: b.broker, ruleId: y.ruleId })
          // It blames the peer, so it is not a cause of this broker's own.
          consequenceKeys.add(key(b.broker, y))
        }
      }
    }
  }

  const clusterWide = new Map<string, ClusterWideCause>()
  const parts: BrokerPart[] = diagnoses.map((d) => {
    const own: Cause[] = []
    for (const c of d.causes) {
      if (!serious(c) || c.explainedBy?.length || consequenceKeys.has(key(d.broker, c))) continue
      // What a client did (a consumer's stalled poll loop) is no broker's fault, even where the
      // group's coordinator logged it too.
      if (restsOn(c, d.broker) && !aboutClientOnly(c)) {
        own.push(c)
        continue
      }
      const k = `${c.ruleId}\u0000${JSON.stringify(c.labels)}`
      const entry = clusterWide.get(k)
      if (entry) entry.brokers.push(d.broker)
      else clusterWide.set(k, { cause: c, brokers: [d.broker] })
    }
    const namedBy = named.get(d.broker) ?? []
    const affected = d.causes.some((c) => consequenceKeys.has(key(d.broker, c)))
    const role: BrokerPart['role'] = own.length ? 'origin' : namedBy.length ? 'named' : affected || !looksHealthy(d) ? 'affected' : 'quiet'
    return { broker: d.broker, role, diagnosis: d, own, namedBy }
  })
  // Brokers the evidence names that the logs did not include at all.
  for (const [broker, namedBy] of named) {
    if (present.has(broker)) continue
    parts.push({ broker, role: 'named', diagnosis: emptyDiagnosis(w, broker), own: [], namedBy })
  }
  parts.sort(compareParts)
  return { cluster: w.cluster, from: w.from, to: w.to, at: w.now, brokers: parts, links, clusterWide: [...clusterWide.values()] }
}

/** A cause whose own evidence is all client observations (client.* signals). */
function seenByClientsOnly(c: Cause): boolean {
  const own = c.evidence.filter((e) => !e.consequence)
  return own.length > 0 && own.every((e) => e.signal.startsWith('client.'))
}

function sameLink(a: CrossLink, b: CrossLink): boolean {
  return a.cause.broker === b.cause.broker && a.cause.ruleId === b.cause.ruleId && a.consequence.broker === b.consequence.broker && a.consequence.ruleId === b.consequence.ruleId
}

/** True when the cause's own evidence (not a consequence) is all of signals that report what a client did. */
function aboutClientOnly(c: Cause): boolean {
  const own = c.evidence.filter((e) => !e.consequence)
  return own.length > 0 && own.every((e) => lookupSignal(e.signal)?.aboutClient === true)
}

/** True when some of the cause's own evidence (not a consequence) was observed on this broker. */
function restsOn(c: Cause, broker: string): boolean {
  return c.evidence.some((e) => !e.consequence && e.broker === broker)
}

/** The brokers a cause's labels name (`leader=3`, `node=2`, `leaders=1,3`). */
export function peersNamed(c: Pick<Cause, 'labels'>): string[] {
  const out: string[] = []
  for (const label of PEER_LABELS) {
    const v = c.labels[label]
    if (v === undefined) continue
    for (const part of v.split(',')) {
      const id = part.trim()
      if (/^-?\d+$/.test(id) && !id.startsWith('-') && !out.includes(id)) out.push(id)
    }
  }
  return out
}

/** Origins first (most severe own cause, then the earliest), then named suspects, affected, quiet. */
function compareParts(a: BrokerPart, b: BrokerPart): number {
  const order = { origin: 0, named: 1, affected: 2, quiet: 3 }
  if (a.role !== b.role) return order[a.role] - order[b.role]
  if (a.role === 'origin') {
    const sa = Math.max(...a.own.map((c) => SEVERITY_WEIGHT[c.severity]))
    const sb = Math.max(...b.own.map((c) => SEVERITY_WEIGHT[c.severity]))
    if (sa !== sb) return sb - sa
    // What a broker logged of itself outranks what its clients saw of it (a client's timeouts toward
    // a leader are often another broker's fault: an ISR member gone stalls acks=all).
    const ca = a.own.every(seenByClientsOnly)
    const cb = b.own.every(seenByClientsOnly)
    if (ca !== cb) return ca ? 1 : -1
    const fa = Math.min(...a.own.map((c) => c.firstAt))
    const fb = Math.min(...b.own.map((c) => c.firstAt))
    if (fa !== fb) return fa - fb
  }
  if (a.role === 'named' && a.namedBy.length !== b.namedBy.length) return b.namedBy.length - a.namedBy.length
  return compareBroker(a.broker, b.broker)
}

/** A broker with no data of its own in the window (named only by its peers). */
function emptyDiagnosis(w: { cluster: string; from: number; to: number; now: number }, broker: string): Diagnosis {
  return { cluster: w.cluster, broker, from: w.from, to: w.to, at: w.now, causes: [], nearMisses: [], abnormal: [], signalsSeen: 0 }
}

/** The most severe of a part's own causes, for one-line summaries. */
export function worstSeverity(part: BrokerPart): Severity | undefined {
  let worst: Severity | undefined
  for (const c of part.own) if (!worst || SEVERITY_WEIGHT[c.severity] > SEVERITY_WEIGHT[worst]) worst = c.severity
  return worst
}
