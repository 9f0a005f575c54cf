import type { Rule } from '../dsl/ast.js'
import type { Cause } from './diagnosis.js'
import { toEvidence } from './evidence.js'
import { interpolate, interpolateWhole } from './interpolate.js'
import type { Match } from './match.js'

/**
 * Turns a rule and one of its matches into the platform-neutral Cause that diagnosis ranks and alerts
 * notify with. Ranking fields start at zero; diagnosis fills them.
 */
export function buildCause(rule: Rule, match: Match, scope: { cluster: string; broker: string }, related?: readonly Match[]): Cause {
  const ctx = { ...scope, match, related }
  const cause: Cause = {
    ruleId: rule.id,
    severity: rule.severity,
    cause: interpolate(rule.cause, ctx),
    run: rule.run.map((r) => interpolateWhole(r, ctx)).filter((r): r is string => r !== undefined),
    labels: { ...match.labels },
    firstAt: match.firstAt,
    lastAt: match.lastAt,
    matchedAt: match.at,
    evidence: match.evidence.map((s) => toEvidence(s)),
    corroboration: new Set(match.evidence.map((s) => s.name)).size,
    score: 0,
    explainsRules: [],
  }
  if (rule.name !== undefined) cause.ruleName = rule.name
  if (rule.advise) cause.advise = interpolate(rule.advise, ctx)
  const runbook = rule.runbook && interpolateWhole(rule.runbook, ctx)
  if (runbook) cause.runbook = runbook
  return cause
}
