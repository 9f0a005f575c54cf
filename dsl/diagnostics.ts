import type { Span } from './ast.js'

/**
 * Diagnostics are data: a code from the catalogue below, a span and, where it can, a hint and a
 * machine-applicable suggestion. Tools key behaviour on the code, never on message text.
 */
export type DiagnosticSeverity = 'error' | 'warning' | 'info'

export type Diagnostic = {
  code: DiagnosticCode
  severity: DiagnosticSeverity
  message: string
  span: Span
  hint?: string
  /** Replacement text for the span, e.g. the did-you-mean signal name. */
  suggestion?: string
}

/**
 * Every diagnostic code with its default severity and a title. Codes are stable: tests, docs and
 * suppressions refer to them. Extend here; never reuse a retired number.
 */
export const DIAGNOSTIC_CODES = {
  DSL001: { severity: 'error', title: 'unexpected character' },
  DSL002: { severity: 'error', title: 'unterminated string' },
  DSL003: { severity: 'error', title: 'syntax error' },
  DSL004: { severity: 'error', title: 'missing cause' },
  DSL005: { severity: 'error', title: 'invalid number or unit literal' },
  DSL006: { severity: 'error', title: 'invalid regular expression' },
  DSL007: { severity: 'error', title: 'nesting too deep' },
  DSL008: { severity: 'error', title: 'input is not text' },
  DSL009: { severity: 'error', title: 'input too large' },
  DSL010: { severity: 'error', title: 'duplicate clause' },
  DSL011: { severity: 'error', title: 'invalid severity' },
  DSL012: { severity: 'error', title: 'unknown signal' },
  DSL013: { severity: 'error', title: 'unknown label' },
  DSL014: { severity: 'error', title: 'unit mismatch' },
  DSL015: { severity: 'error', title: 'value comparison on a signal without a value' },
  DSL016: { severity: 'error', title: 'aggregate over a fact' },
  DSL017: { severity: 'error', title: 'duplicate rule name' },
  DSL018: { severity: 'warning', title: 'unnamed rule' },
  DSL019: { severity: 'error', title: 'placeholder names nothing in the condition' },
  DSL020: { severity: 'error', title: 'explains names an unknown signal' },
  DSL021: { severity: 'error', title: 'window longer than retention' },
  DSL022: { severity: 'error', title: 'rule can never fire' },
  DSL023: { severity: 'error', title: 'sustained condition on a non-gauge' },
  DSL024: { severity: 'warning', title: 'temporal operand is not an event' },
  DSL025: { severity: 'error', title: 'malformed placeholder' },
  DSL026: { severity: 'error', title: 'unreadable rule file' },
  DSL027: { severity: 'error', title: 'too many errors' },
  DSL028: { severity: 'error', title: 'compared with a fact of another unit' },
  DSL029: { severity: 'error', title: 'compared with a signal that is not a fact' },
  DSL030: { severity: 'error', title: 'regular expression feature not supported' },
} as const satisfies Record<string, { severity: DiagnosticSeverity; title: string }>

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES
