import type { AggregateFn, Atom, Cond, CompareOp, LabelOp, Quantity, Rule, Severity, Span, StreamCond, Text } from '../../dsl/ast.js'
import { readQuantity } from '../../dsl/quantity.js'
import { readText } from '../../dsl/text.js'

/**
 * Small AST builders for engine tests, so an evaluator test states its condition in one line without
 * depending on the parser's error recovery.
 */
export const span: Span = { file: 't.rules', startLine: 1, startCol: 1, endLine: 1, endCol: 1, startOffset: 0, endOffset: 0 }

export function q(text: string): Quantity {
  const r = readQuantity(text)
  if ('message' in r) throw new Error(r.message)
  return { ...r, text, span }
}

export function atom(signal: string, labels: [string, LabelOp, string][] = []): Atom {
  return { signal, labels: labels.map(([name, op, value]) => ({ name, op, value, span })), span }
}

/** `signal`, `signal > 2s`, `signal{…} > 2s for 5m`. */
export function s(signal: string | Atom, op?: CompareOp, value?: string, forText?: string): StreamCond {
  const a = typeof signal === 'string' ? atom(signal) : signal
  return {
    kind: 'stream',
    atom: a,
    compare: op && value !== undefined ? { op, value: q(value) } : undefined,
    forMs: forText ? q(forText).value : undefined,
    span,
  }
}

export function temporal(op: 'within' | 'before' | 'after', left: StreamCond, right: StreamCond, window: string): Cond {
  return { kind: 'temporal', op, left, right, windowMs: q(window).value, windowText: window, span }
}

export function agg(fn: AggregateFn, a: string | Atom, over: string, op: CompareOp, value: string, by: string[] = []): Cond {
  return {
    kind: 'aggregate',
    fn,
    atom: typeof a === 'string' ? atom(a) : a,
    by,
    overMs: q(over).value,
    overText: over,
    compare: { op, value: q(value) },
    span,
  }
}

export const not = (operand: Cond): Cond => ({ kind: 'not', operand, span })
export const and = (...operands: Cond[]): Cond => ({ kind: 'and', operands, span })
export const or = (...operands: Cond[]): Cond => ({ kind: 'or', operands, span })
export const paren = (inner: Cond): Cond => ({ kind: 'group', inner, span })

export function text(raw: string): Text {
  const escaped = raw.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
  return readText(`"${escaped}"`, span).text
}

export function rule(
  id: string,
  when: Cond,
  opts: { severity?: Severity; cause?: string; advise?: string; explains?: string[]; run?: string[] } = {},
): Rule {
  return {
    id,
    name: id,
    file: 't.rules',
    severity: opts.severity ?? 'warning',
    when,
    cause: text(opts.cause ?? id),
    advise: opts.advise ? text(opts.advise) : undefined,
    explains: (opts.explains ?? []).map((signal) => ({ signal, span })),
    run: (opts.run ?? []).map(text),
    doc: [],
    span,
  }
}
