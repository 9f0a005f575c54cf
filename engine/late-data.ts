import type { Cond, Rule } from '../dsl/ast.js'

/**
 * Whether a line that arrives late could make a rule's match go away. Evidence is usually written
 * within a second of what it records, so most rules can fire the moment they match: a late line
 * only adds evidence to them (`count(A) > N` only grows, `A within 5s of B` only gains pairs).
 * A rule that reads an absence (`not A`), a sustained state (`for 5m`) or an aggregate that a new
 * sample can lower (`avg`, `rate`, `trend`, `min … >`) can be undone by a line still on its way, so
 * the live engine holds its match for the settle time before it fires.
 */
export function lateDataCanUndo(rule: Rule): boolean {
  return condCanBeUndone(rule.when)
}

function condCanBeUndone(c: Cond): boolean {
  switch (c.kind) {
    case 'not':
      return true
    case 'group':
      return condCanBeUndone(c.inner)
    case 'and':
    case 'or':
      return c.operands.some(condCanBeUndone)
    case 'stream':
      return c.forMs !== undefined
    case 'temporal':
      return c.left.forMs !== undefined || c.right.forMs !== undefined
    case 'aggregate': {
      const up = c.compare.op === '>' || c.compare.op === '>='
      const down = c.compare.op === '<' || c.compare.op === '<='
      if (c.fn === 'count' || c.fn === 'sum' || c.fn === 'increase' || c.fn === 'max') return !up
      if (c.fn === 'min') return !down
      return true
    }
  }
}
