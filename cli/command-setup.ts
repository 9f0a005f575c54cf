import type { Rule } from '../dsl/ast.js'
import { renderDiagnostics } from '../dsl/index.js'
import { readQuantity } from '../dsl/quantity.js'
import { MemoryStore } from '../engine/store/memory-store.js'
import { openStore, sharedStoreSource } from '../engine/store/open-store.js'
import { RedisStore } from '../engine/store/redis-store.js'
import { loadRules } from '../rule-files/load-rules.js'
import type { Store } from '../engine/store/store.js'
import { checkRulePaths } from './rule-paths.js'
import { CommandError, UsageError } from './usage-error.js'

/**
 * What the store-backed commands (why, replay) share before their own work starts: the rule set,
 * the store, and how a failure becomes one line and an exit code.
 */

/**
 * Runs a command body with its rules loaded and the store open; broken rule files stop it first, with
 * exit code 1. A replay (`replay` given) runs on a store of its own in memory, so a demo incident or
 * someone else's logs never land in the team's Redis, unless `replay.store` (--store) asks for the
 * configured one: then every scope the replay created there expires after REPLAY_STORE_TTL_MS.
 */
export async function withRulesAndStore(rulesPath: string, body: (rules: Rule[], store: Store) => Promise<number>, replay?: { store: boolean }): Promise<number> {
  const loaded = await loadRuleSet(rulesPath)
  if ('error' in loaded) return reportRuleErrors(loaded.error)
  if (!replay) return withStore((store) => body(loaded.rules, store))
  const shared = sharedStoreSource(process.env)
  if (!replay.store) {
    if (shared) console.error(`kafka-why: replaying into memory; ${shared} is not written (--store writes the replay there, kept for ${REPLAY_STORE_TTL_MS / 3_600_000} h)`)
    return withStore((store) => body(loaded.rules, store), new MemoryStore())
  }
  if (!shared) throw new UsageError('--store writes the replay into the configured store: set REDIS_URL or REDIS_CLUSTER_NODES')
  return withStore(async (store) => {
    const before = await storedScopes(store)
    const code = await body(loaded.rules, store)
    const created = [...(await storedScopes(store))].filter((k) => !before.has(k)).map((k) => JSON.parse(k) as { cluster: string; broker?: string })
    if (store instanceof RedisStore) await store.expireScopes(created, REPLAY_STORE_TTL_MS)
    console.error(`kafka-why: the replay is kept in ${shared} for ${REPLAY_STORE_TTL_MS / 3_600_000} h (${created.filter((c) => c.broker !== undefined).length} broker(s) it created there expire then)`)
    return code
  })
}

/** How long what a replay writes into a configured store (--store) stays there. */
export const REPLAY_STORE_TTL_MS = 24 * 3_600_000

/** Every broker scope and cluster-wide scope with stored signals, as JSON keys. */
async function storedScopes(store: Store): Promise<Set<string>> {
  const brokers = await store.brokers()
  const keys = new Set<string>()
  for (const b of brokers) {
    keys.add(JSON.stringify({ cluster: b.cluster, broker: b.broker }))
    keys.add(JSON.stringify({ cluster: b.cluster }))
  }
  return keys
}

/**
 * Rule files of a directory (or one file), parsed; rule errors come back rendered, never thrown. A
 * missing or empty path is a UsageError (exit 2), as for every command that reads rules.
 */
export async function loadRuleSet(dirOrFile: string): Promise<{ rules: Rule[]; warnings: number } | { error: string }> {
  await checkRulePaths([dirOrFile], '--rules')
  const loaded = await loadRules([dirOrFile])
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error')
  if (errors.length) {
    return { error: `${renderDiagnostics(errors, loaded.sources)}\nkafka-why: rule files have errors (see kafka-why lint)` }
  }
  return { rules: loaded.rules, warnings: loaded.diagnostics.length }
}

/** Reads a duration option ("15s", "1h"); anything else is a UsageError naming the option. */
export function readDuration(text: string, option: string): number {
  const q = readQuantity(text.trim())
  if ('message' in q || q.dimension !== 'duration') throw new UsageError(`${option}: expected a duration such as 15s, 10m or 1h, got '${text}'`)
  return q.value
}

/**
 * Runs a command body with the configured store: Redis when REDIS_URL is set, a Redis Cluster when
 * REDIS_CLUSTER_NODES is, else the embedded one.
 * An unreachable Redis or a bad path becomes one clear line and exit code 1, never a stack trace;
 * a UsageError goes on to the command line, which prints it with exit code 2.
 */
export async function withStore(body: (store: Store) => Promise<number>, store: Store = openStore(process.env)): Promise<number> {
  try {
    return await body(store)
  } catch (err) {
    if (err instanceof CommandError) {
      console.error(`kafka-why: ${err.message}`)
      return 1
    }
    const unavailable = reportStoreUnavailable('kafka-why', err)
    if (unavailable !== undefined) return unavailable
    if (typeof (err as { code?: unknown }).code === 'string' && /^E[A-Z]+$/.test((err as { code: string }).code)) {
      console.error(`kafka-why: ${(err as Error).message}`)
      return 1
    }
    throw err
  } finally {
    await store.close().catch(() => undefined)
  }
}

/** Prints rendered rule-file errors and gives exit code 1: nothing is evaluated with broken rules. */
export function reportRuleErrors(error: string): number {
  console.error(error)
  return 1
}

/** An unreachable store as one line under `prefix` ("kafka-why", "kafka-why digest") and exit code 1; undefined for any other error. */
export function reportStoreUnavailable(prefix: string, err: unknown): number | undefined {
  if ((err as { code?: unknown }).code !== 'STORE_UNAVAILABLE') return undefined
  console.error(`${prefix}: ${(err as Error).message}`)
  return 1
}
