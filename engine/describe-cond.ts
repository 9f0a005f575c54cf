import type { Atom, Cond, StreamCond } from '../dsl/ast.js'
import { formatComparison } from '../dsl/format-cond.js'

/**
 * A condition written back as rule text ("safepoint.sync > 2s"), for near-miss messages: people
 * recognise their own rule's words faster than a paraphrase.
 */
export function describeCond(cond: Cond): string {
  switch (cond.kind) {
    case 'stream':
      return describeStream(cond)
    case 'temporal':
      return cond.op === 'within'
        ? `${describeStream(cond.left)} within ${cond.windowText} of ${describeStream(cond.right)}`
        : `${describeStream(cond.left)} ${cond.op} ${describeStream(cond.right)} within ${cond.windowText}`
    case 'aggregate': {
      const by = cond.by.length ? ` by ${cond.by.join(', ')}` : ''
      return `${cond.fn}(${describeAtom(cond.atom)})${by} over ${cond.overText} ${cond.compare.op} ${cond.compare.value.text}`
    }
    case 'not':
      return `not ${describeCond(cond.operand)}`
    case 'group':
      return `(${describeCond(cond.inner)})`
    case 'and':
    case 'or':
      return cond.operands.map(describeCond).join(` ${cond.kind} `)
  }
}

/** A stream condition as rule text: `safepoint.sync > 2s`. */
export function describeStream(cond: StreamCond): string {
  const cmp = cond.compare ? ` ${cond.compare.op} ${formatComparison(cond.compare)}` : ''
  const sustained = cond.forMs !== undefined ? ` for ${formatMs(cond.forMs)}` : ''
  return `${describeAtom(cond.atom)}${cmp}${sustained}`
}

/** An atom as rule text, with its label filters: `isr.shrink{topic="orders"}`. */
export function describeAtom(atom: Atom): string {
  if (atom.labels.length === 0) return atom.signal
  return `${atom.signal}{${atom.labels.map((l) => `${l.name}${l.op}${JSON.stringify(l.value)}`).join(', ')}}`
}

/** 5000 → "5s", 300000 → "5m": durations as a rule author writes them. */
export function formatMs(ms: number): string {
  const units: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]]
  for (const [u, f] of units) if (ms >= f && ms % f === 0) return `${ms / f}${u}`
  return `${ms}ms`
}
