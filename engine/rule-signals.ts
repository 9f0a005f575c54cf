import type { Cond, Rule } from '../dsl/ast.js'

/**
 * What a rule needs from the store: the signal names its condition reads (so only those are loaded)
 * and how far back before the window it must look (so a `trend over 6h` or a temporal pair straddling
 * the window's start still sees its history).
 */
export function conditionSignals(cond: Cond, into: Set<string> = new Set()): Set<string> {
  switch (cond.kind) {
    case 'stream':
    case 'aggregate':
      into.add(cond.atom.signal)
      break
    case 'temporal':
      conditionSignals(cond.left, into)
      conditionSignals(cond.right, into)
      break
    case 'not':
      conditionSignals(cond.operand, into)
      break
    case 'group':
      conditionSignals(cond.inner, into)
      break
    case 'and':
    case 'or':
      for (const c of cond.operands) conditionSignals(c, into)
      break
  }
  return into
}

/** Signals the rule's condition reads plus those it `explains` (shown as consequences). */
export function ruleSignals(rule: Rule): Set<string> {
  const names = conditionSignals(rule.when)
  for (const e of rule.explains) names.add(e.signal)
  return names
}

/** How much history before `from` the condition can reach back into. */
export function lookbackMs(cond: Cond): number {
  switch (cond.kind) {
    case 'stream':
      return cond.forMs ?? 0
    case 'aggregate':
      return cond.overMs
    case 'temporal':
      return cond.windowMs + Math.max(lookbackMs(cond.left), lookbackMs(cond.right))
    case 'not':
      return lookbackMs(cond.operand)
    case 'group':
      return lookbackMs(cond.inner)
    case 'and':
    case 'or':
      return Math.max(0, ...cond.operands.map(lookbackMs))
  }
}
