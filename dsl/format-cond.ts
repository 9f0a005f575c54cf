import type { Atom, Comparison, Cond } from './ast.js'
import { quoteText } from './text.js'

/**
 * Conditions back to text, with parentheses only where precedence needs them. Kept apart from the
 * file formatter so the checker can quote a condition without depending on the whole pipeline.
 */

/** Binding strength of each condition kind, loosest first; parentheses are added below a parent's. */
export const PREC = { or: 1, and: 2, not: 3, temporal: 4, stream: 5, aggregate: 5, group: 6 } as const

/** Formats an atom: `isr.shrink{topic="orders", partition!="0"}`. */
export function formatAtom(atom: Atom): string {
  if (!atom.labels.length) return atom.signal
  return `${atom.signal}{${atom.labels.map((l) => `${l.name}${l.op}${quoteText(l.value)}`).join(', ')}}`
}

/**
 * The right side of a comparison as written: `2s`, `zk.session_timeout_limit` or
 * `33% of zk.session_timeout_limit`. Shared by the formatter, lint messages and near-miss text.
 */
export function formatComparison(cmp: Comparison): string {
  if (!cmp.of) return cmp.value.text
  return cmp.value.text ? `${cmp.value.text} of ${cmp.of.signal}` : cmp.of.signal
}

/** Formats a condition on one line, adding parentheses only where precedence needs them. */
export function formatCond(cond: Cond, minPrec = 0): string {
  const s = formatBare(cond)
  return PREC[cond.kind] < minPrec ? `(${s})` : s
}

function formatBare(cond: Cond): string {
  switch (cond.kind) {
    case 'stream': {
      let s = formatAtom(cond.atom)
      if (cond.compare) s += ` ${cond.compare.op} ${formatComparison(cond.compare)}`
      if (cond.forText !== undefined) s += ` for ${cond.forText}`
      return s
    }
    case 'aggregate':
      return `${cond.fn}(${formatAtom(cond.atom)})${cond.by.length ? ` by ${cond.by.join(', ')}` : ''} over ${cond.overText} ${cond.compare.op} ${cond.compare.value.text}`
    case 'temporal': {
      const l = formatCond(cond.left, PREC.stream)
      const r = formatCond(cond.right, PREC.stream)
      return cond.op === 'within' ? `${l} within ${cond.windowText} of ${r}` : `${l} ${cond.op} ${r} within ${cond.windowText}`
    }
    case 'not':
      return `not ${formatCond(cond.operand, PREC.not)}`
    case 'group':
      return `(${formatCond(cond.inner)})`
    case 'and':
      return cond.operands.map((o) => formatCond(o, PREC.not)).join(' and ')
    case 'or':
      return cond.operands.map((o) => formatCond(o, PREC.and)).join(' or ')
  }
}
