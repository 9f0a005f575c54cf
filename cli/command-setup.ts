import type { Rule } from '../dsl/ast.js'
import { renderDiagnostics } from '../dsl/index.js'
import { readQuantity } from '../dsl/quantity.js'
import { openStore } from '../engine/store/open-store.js'
import { loadRules } from '../rule-files/load-rules.js'
import type { Store } from '../engine/store/store.js'
import { checkRulePaths } from './rule-paths.js'
import { CommandError, UsageError } from './usage-error.js'

/**
 * What the store-backed commands (why, replay) share before their own work starts: the rule set,
 * the store, and how a failure becomes one line and an exit code.
 */

/** Runs a command body with its rules loaded and the store open; broken rule files stop it first, with exit code 1. */
export async function withRulesAndStore(rulesPath: string, body: (rules: Rule[], store: Store) => Promise<number>): Promise<number> {
  const loaded = await loadRuleSet(rulesPath)
  if ('error' in loaded) return reportRuleErrors(loaded.error)
  return withStore((store) => body(loaded.rules, store))
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
export async function withStore(body: (store: Store) => Promise<number>): Promise<number> {
  const store = openStore(process.env)
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
