import type { Dimension } from '../signals/units.js'

/**
 * The rule language's abstract syntax. The parser produces it, the checker and formatter read it,
 * and the engine evaluates it; spans point back to the source for diagnostics and evidence.
 */

/** 1-based line and column, 0-based offsets, end exclusive. */
export type Span = {
  file: string
  startLine: number
  startCol: number
  endLine: number
  endCol: number
  startOffset: number
  endOffset: number
}

/** A literal with its unit, already converted to the dimension's base unit (ms, bytes, ratio, /s). */
export type Quantity = {
  value: number
  dimension: Dimension
  /** The literal as written, e.g. "2s", "3GiB", "2.2.1", kept so the formatter round-trips it. */
  text: string
  span: Span
}

export type LabelOp = '=' | '!=' | '=~' | '!~'
export type LabelMatcher = { name: string; op: LabelOp; value: string; span: Span }

/** A signal stream, optionally filtered by labels: `isr.shrink{topic="orders"}`. */
export type Atom = { signal: string; labels: LabelMatcher[]; span: Span }

export type CompareOp = '>' | '>=' | '<' | '<=' | '==' | '!='

/**
 * The right side of `gc.pause > 33% of zk.session_timeout_limit`: a fact of the same broker, read at
 * each event's time, because what decides an outcome is often the broker's own setting, not a
 * number the rule author guessed.
 */
export type FactRef = { signal: string; span: Span }

/**
 * `> 2s` compares with a literal. With `of`, the threshold is a share of a fact: `value` is then the
 * share (a ratio; `> zk.session_timeout_limit` has a share of 100% written as '') and `of` the fact.
 */
export type Comparison = { op: CompareOp; value: Quantity; of?: FactRef }

/**
 * A stream condition: the events of `atom`, kept only where the comparison holds.
 * With `forMs` it is sustained: every sample of the gauge over that long satisfies the comparison.
 * On a fact it compares the latest known value.
 */
export type StreamCond = {
  kind: 'stream'
  atom: Atom
  compare?: Comparison
  forMs?: number
  /** The `for` literal as written, for the formatter. */
  forText?: string
  /** Where the `for` literal is, for diagnostics. */
  forSpan?: Span
  span: Span
}

/** `A within D of B` (symmetric), `A before B within D`, `A after B within D` (ordered). */
export type TemporalCond = {
  kind: 'temporal'
  op: 'within' | 'before' | 'after'
  left: StreamCond
  right: StreamCond
  windowMs: number
  /** The window literal as written, for the formatter. */
  windowText: string
  /** Where the window literal is, for diagnostics. */
  windowSpan?: Span
  span: Span
}

export type AggregateFn = 'count' | 'rate' | 'max' | 'min' | 'avg' | 'sum' | 'increase' | 'trend' | 'floor_trend'

/** `count(group.rebalance{…}) by group over 1h > 30`. */
export type AggregateCond = {
  kind: 'aggregate'
  fn: AggregateFn
  atom: Atom
  by: string[]
  /** Where each `by` label is, for diagnostics (same order as `by`). */
  bySpans?: Span[]
  overMs: number
  overText: string
  /** Where the `over` literal is, for diagnostics. */
  overSpan?: Span
  compare: Comparison
  span: Span
}

export type NotCond = { kind: 'not'; operand: Cond; span: Span }
export type AndCond = { kind: 'and'; operands: Cond[]; span: Span }
export type OrCond = { kind: 'or'; operands: Cond[]; span: Span }
/** Parentheses are kept so the formatter can reproduce intent; the engine sees through them. */
export type GroupCond = { kind: 'group'; inner: Cond; span: Span }

export type Cond = StreamCond | TemporalCond | AggregateCond | NotCond | AndCond | OrCond | GroupCond

/** Output text with `{…}` placeholders: literal parts and references to matched values. */
export type TextPart = { kind: 'literal'; text: string } | { kind: 'ref'; name: string; span: Span }
export type Text = { raw: string; parts: TextPart[]; span: Span }

export type Severity = 'info' | 'warning' | 'critical'

export type Rule = {
  /** `name` when given, else a stable id from file and position: "jvm.rules#L12". */
  id: string
  name?: string
  file: string
  severity: Severity
  /** Where `severity` was written, if it was (the formatter keeps an explicit default). */
  severitySpan?: Span
  when: Cond
  cause: Text
  advise?: Text
  runbook?: Text
  explains: { signal: string; span: Span }[]
  run: Text[]
  /** `#` comment lines directly above the rule, kept by the formatter and shown by `/kafka explain`. */
  doc: string[]
  span: Span
}

export type RuleFile = { file: string; rules: Rule[]; diagnostics: import('./diagnostics.js').Diagnostic[] }
