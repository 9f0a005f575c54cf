import type { Rule } from './ast.js'
import type { Diagnostic } from './diagnostics.js'
import { parseFile } from './parse-file.js'

/**
 * The rule language's public face: everything else (engine, CLI, bot) reads rules through here.
 * Nothing exported throws on bad input; problems come back as diagnostics.
 */

/** Options for parsing: the store's retention bounds every window a rule may use (DSL021). */
export type ParseOptions = { retentionMs?: number }

/**
 * Lexes, parses and checks one file. Rules with errors are still returned when their AST is
 * complete (callers decide whether to run them); a rule whose condition did not parse is dropped.
 */
export function parseRules(text: string, file: string, options: ParseOptions = {}): { rules: Rule[]; diagnostics: Diagnostic[] } {
  try {
    const parsed = parseFile(text, file, options)
    return { rules: parsed.rules.map((r) => r.rule), diagnostics: parsed.diagnostics }
  } catch (err) {
    return {
      rules: [],
      diagnostics: [
        {
          code: 'DSL003',
          severity: 'error',
          message: `the parser failed on this file: ${(err as Error).message}`,
          span: { file, startLine: 1, startCol: 1, endLine: 1, endCol: 2, startOffset: 0, endOffset: 1 },
        },
      ],
    }
  }
}

/** True when any diagnostic is an error (what `lint` exits 1 on). */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error')
}

export { formatRules, formatRule, formatCond, formatAtom } from './format.js'
export { renderDiagnostics, diagnosticsToJson, type DiagnosticJson } from './render.js'
export { signalsOfRule, signalUsesOfRule, atomsOfCond, factRefsOfRule, type SignalUse } from './signals-of-rule.js'
export { checkDuplicateNames } from './check.js'
export type * from './ast.js'
export type { Diagnostic, DiagnosticCode, DiagnosticSeverity } from './diagnostics.js'
export { DIAGNOSTIC_CODES } from './diagnostics.js'
