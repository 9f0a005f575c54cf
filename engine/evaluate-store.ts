import type { Rule } from '../dsl/ast.js'
import { evaluateRules, type RuleResult } from './evaluate.js'
import { loadForRules } from './load-data.js'
import type { Store } from './store/store.js'

/** One broker and window to evaluate, time supplied by the caller. */
export type StoreEvaluation = { cluster: string; broker: string; from: number; to: number; now: number }

/**
 * Evaluates rules for one broker straight from a store: reads exactly the signals the rules name,
 * each as far back as its rules' windows reach, then runs the pure evaluator. For callers that
 * want matches without a ranked diagnosis (rule tests, tooling).
 */
export async function evaluateRulesFromStore(rules: readonly Rule[], store: Store, at: StoreEvaluation): Promise<RuleResult[]> {
  const { data } = await loadForRules(store, { cluster: at.cluster, broker: at.broker, rules, from: at.from, to: at.to })
  return evaluateRules(rules, data, { from: at.from, to: at.to, now: at.now })
}
