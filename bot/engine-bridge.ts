import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Rule } from '../dsl/ast.js'
import type { Diagnosis } from '../engine/diagnosis.js'
import type { Store } from '../engine/store/store.js'
import { parseSignalsJsonl } from '../signals/jsonl.js'
import type { Signal } from '../signals/signal.js'
import type { KafkaAdminOps } from '../adapters/admin/ops.js'
import { loadRules } from '../cli/load-rules.js'

/**
 * The bot's only doorway into the engine, the rule loader, the incident reader and the kafkajs
 * admin client. Each is one small function so the rest of bot/ depends on plain signatures and
 * never on how those modules are laid out.
 */

export type DiagnoseOptions = { cluster: string; broker: string; from: number; to: number; now: number }
export type DiagnoseFn = (rules: Rule[], store: Store, opts: DiagnoseOptions) => Promise<Diagnosis>

/** Loaded rules plus their source text, for `/kafka explain`. */
export type RuleSet = { rules: Rule[]; sourceOf(rule: Rule): string | undefined; problems: string[] }

// Module paths held in variables: these modules are optional at type-check time for bot/.
const DIAGNOSE_MODULE = '../engine/diagnose.js'
const INCIDENT_MODULE = '../adapters/incident.js'
const KAFKA_ADMIN_MODULE = '../adapters/admin/kafka-admin.js'

/** The engine's ranked diagnosis of one broker. */
export const diagnoseBroker: DiagnoseFn = async (rules, store, opts) => {
  const mod = (await import(DIAGNOSE_MODULE)) as { diagnose: DiagnoseFn }
  return mod.diagnose(rules, store, opts)
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

/**
 * Loads a recorded incident into the store: every log and signal source the incident lists, through
 * the incident reader; a directory without it falls back to its signals.jsonl.
 */
export async function loadIncident(store: Store, dir: string): Promise<{ accepted: number; rejected: number; lastAt?: number }> {
  let batches: AsyncIterable<Signal[]> | Iterable<Signal[]>
  try {
    const mod = (await import(INCIDENT_MODULE)) as { readSignalSources(paths: string[]): AsyncIterable<Signal[]> }
    batches = mod.readSignalSources([dir])
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err
    const file = join(dir, 'signals.jsonl')
    batches = [parseSignalsJsonl(await readFile(file, 'utf8'), file).signals]
  }
  let accepted = 0
  let rejected = 0
  let lastAt: number | undefined
  for await (const batch of batches) {
    const r = await store.append(batch)
    accepted += r.accepted
    rejected += Object.values(r.rejected).reduce((a, b) => a + b, 0)
    for (const s of batch) if (lastAt === undefined || s.at > lastAt) lastAt = s.at
  }
  return { accepted, rejected, lastAt }
}

/** A kafkajs admin client for a cluster's bootstrap brokers. */
export async function connectKafkaAdmin(cluster: string, brokers: string[]): Promise<KafkaAdminOps> {
  const mod = (await import(KAFKA_ADMIN_MODULE)) as Record<string, unknown>
  const factory = (mod.createKafkaAdmin ?? mod.connectKafkaAdmin) as ((o: { clientId: string; brokers: string[] }) => Promise<KafkaAdminOps> | KafkaAdminOps) | undefined
  if (factory) return factory({ clientId: `kafka-why-bot-${cluster}`, brokers })
  const Ctor = mod.KafkaAdmin as (new (o: { clientId: string; brokers: string[] }) => KafkaAdminOps) | undefined
  if (Ctor) return new Ctor({ clientId: `kafka-why-bot-${cluster}`, brokers })
  throw new Error(`${KAFKA_ADMIN_MODULE} exports no admin factory`)
}
