import type { Rule } from '../dsl/ast.js'
import type { Diagnosis } from '../engine/diagnosis.js'
import type { Store } from '../engine/store/store.js'
import type { KafkaAdminOps } from '../adapters/admin/ops.js'
import { KafkaAdmin } from '../adapters/admin/kafka-admin.js'
import { readSignalSources } from '../adapters/incident.js'
import type { UploadedLog, UploadedRead, UploadedReadOptions } from '../adapters/uploaded-logs.js'
import { readUploadedLogsOffThread, type UploadBudget } from '../adapters/uploads-worker/read-off-thread.js'
import { MemoryStore } from '../engine/store/memory-store.js'
import { loadRules } from '../rule-files/load-rules.js'
import { diagnose } from '../engine/diagnose.js'
import { DataEnds } from '../engine/data-span.js'
import { replayAlerts, SignalTimes } from '../engine/replay-alerts.js'

/**
 * The bot's only doorway into the engine, the rule loader, the incident reader and the kafkajs
 * admin client. Each is one small function so the rest of bot/ depends on plain signatures and
 * never on how those modules are laid out.
 */

/**
 * The broker and window to diagnose; `now` is supplied, never read. `dataEnds`: for data that has an
 * end (logs shared in chat), where each broker's own data ends.
 */
export type DiagnoseOptions = { cluster: string; broker: string; from: number; to: number; now: number; dataEnds?: DataEnds }
/** The diagnose signature handlers depend on (tests may pass a failing one). */
export type DiagnoseFn = (rules: Rule[], store: Store, opts: DiagnoseOptions) => Promise<Diagnosis>

/** Loaded rules plus their source text, for `/kafka explain`. */
export type RuleSet = { rules: Rule[]; sourceOf(rule: Rule): string | undefined; problems: string[] }

/** The engine's ranked diagnosis of one broker (it also records the top causes for the digest). */
export const diagnoseBroker: DiagnoseFn = (rules, store, opts) => diagnose(rules, store, opts)

/** diagnoseBroker over data that has an end (a replayed incident): each broker at most to its own last record. */
export function diagnoseInsideData(ends: DataEnds): DiagnoseFn {
  return (rules, store, opts) => {
    const to = ends.clamp(opts.cluster, opts.broker, opts.to)
    return diagnose(rules, store, { ...opts, from: Math.min(opts.from, to), to, now: Math.min(opts.now, to), dataEnds: opts.dataEnds ?? ends })
  }
}

/** Loads rule files and directories; error diagnostics are kept as text so `status` can report them. */
export async function loadRuleSet(paths: string[]): Promise<RuleSet> {
  const loaded = await loadRules(paths)
  return {
    rules: loaded.rules,
    problems: loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.span.file}:${d.span.startLine} ${d.code} ${d.message}`),
    sourceOf: (rule) => loaded.sources[rule.span.file]?.slice(rule.span.startOffset, rule.span.endOffset),
  }
}

/** Loads a recorded incident (its incident.yaml sources: logs, GC logs, signals.jsonl) into the store. */
export async function loadIncident(store: Store, dir: string): Promise<{ accepted: number; rejected: number; lastAt?: number; times: Map<string, number[]>; ends: DataEnds }> {
  let accepted = 0
  let rejected = 0
  const collected = new SignalTimes()
  const ends = new DataEnds()
  for await (const batch of readSignalSources([dir])) {
    const r = await store.append(batch)
    accepted += r.accepted
    rejected += Object.values(r.rejected).reduce((a, b) => a + b, 0)
    collected.add(batch)
    ends.add(batch)
  }
  const times = collected.sorted()
  let lastAt: number | undefined
  for (const list of times.values()) if (lastAt === undefined || list[list.length - 1] > lastAt) lastAt = list[list.length - 1]
  return { accepted, rejected, lastAt, times, ends }
}

/**
 * Reads logs shared in chat into a fresh in-memory store of their own, so what a user uploads is
 * diagnosed beside, never into, the team's live store; the store is dropped with the request. The
 * parsing runs in a worker thread under a time and memory budget, off the event loop that answers Slack.
 */
export async function readUploadsInMemory(uploads: readonly UploadedLog[], opts: UploadedReadOptions, budget?: UploadBudget): Promise<{ store: Store; read: UploadedRead }> {
  const store = new MemoryStore()
  return { store, read: await readUploadedLogsOffThread(uploads, store, opts, budget) }
}

/**
 * Runs the alert loop over a loaded incident up to `now`, keeping the alerts in the store, so the
 * console's `status` shows what was firing at that moment of the incident. No lag: it is all there.
 */
export async function replayIncidentAlerts(store: Store, rules: Rule[], times: Map<string, number[]>, now: number, dataEnds?: DataEnds): Promise<void> {
  await replayAlerts(store, rules, times, { stepMs: 15_000, lagMs: 0, until: now, alertsInStore: true, dataEnds }, () => undefined)
}

/** A kafkajs admin client for a cluster's bootstrap brokers; it connects on first use. */
export async function connectKafkaAdmin(cluster: string, brokers: string[]): Promise<KafkaAdminOps> {
  return new KafkaAdmin({ clientId: `kafka-why-bot-${cluster}`, brokers })
}
