import type { Cond } from '../dsl/ast.js'

/**
 * How much history before `from` a condition can reach back into, so a `trend over 6h` or a temporal pair straddling
 * the window's start still sees its history. Which signals a rule reads comes from `signalsOfRule` in dsl/.
 */
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
