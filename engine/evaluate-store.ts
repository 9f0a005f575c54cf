import type { Rule } from '../dsl/ast.js'
import { evaluateRules, type RuleResult } from './evaluate.js'
import { loadEvalData } from './load-data.js'
import { conditionSignals, lookbackMs } from './rule-signals.js'
import type { Store } from './store/store.js'

/** One broker and window to evaluate, time supplied by the caller. */
export type StoreEvaluation = { cluster: string; broker: string; from: number; to: number; now: number }

/**
 * Evaluates rules for one broker straight from a store: reads exactly the signals the conditions
 * name, reaching back as far as the longest window, then runs the pure evaluator. For callers that
 * want matches without a ranked diagnosis (rule tests, tooling).
 */
export async function evaluateRulesFromStore(rules: readonly Rule[], store: Store, at: StoreEvaluation): Promise<RuleResult[]> {
  const names = new Set<string>()
  for (const r of rules) conditionSignals(r.when, names)
  const lookback = Math.max(0, ...rules.map((r) => lookbackMs(r.when)))
  const { data } = await loadEvalData(store, { cluster: at.cluster, broker: at.broker, names, from: at.from - lookback, to: at.to })
  return evaluateRules(rules, data, { from: at.from, to: at.to, now: at.now })
}
