import { relative, resolve } from 'node:path'
import { DIAGNOSTIC_CODES, type Diagnostic } from '../../dsl/index.js'
import type { RunResult } from '../rule-test/run-tests.js'

/**
 * One problem at one place in a file, in the shape every CI report format needs: lint diagnostics and
 * failed rule tests both become findings, and each format (github.ts, sarif.ts, checkstyle.ts)
 * renders findings, so lint and test annotate a pull request the same way.
 */
export type Finding = {
  /** Path relative to the working directory (the repository root in CI), '/'-separated. */
  file: string
  line: number
  col: number
  endLine?: number
  endCol?: number
  severity: 'error' | 'warning' | 'note'
  /** Stable code: a DSL diagnostic code or a rule-test check (see FINDING_RULES). */
  code: string
  message: string
  hint?: string
}

/** The report formats `lint` and `test` print besides text and JSON. */
export const ANNOTATION_FORMATS = ['github', 'sarif', 'checkstyle'] as const
/** One of ANNOTATION_FORMATS. */
export type AnnotationFormat = (typeof ANNOTATION_FORMATS)[number]

/** Codes of rule-test findings, with the title a report shows for them (the DSL codes come from DIAGNOSTIC_CODES). */
export const TEST_FINDING_CODES = {
  'rule-test/file': 'rule-test file does not load',
  'rule-test/load': 'test data does not load',
  'rule-test/expect': 'expected rule did not fire as asserted',
  'rule-test/absent': 'rule fired where the test says it must not',
  'rule-test/claim': "a cause's sentence survived the removal of the fact it claims",
  'rule-test/claims-allow': 'the claims allow-list does not load',
} as const

/** Title of any finding code: the diagnostic catalogue's, or the rule-test one's. */
export function codeTitle(code: string): string {
  return (DIAGNOSTIC_CODES as Record<string, { title: string }>)[code]?.title ?? (TEST_FINDING_CODES as Record<string, string>)[code] ?? code
}

/** A path as a report names it: relative to `cwd`, with '/' separators. */
export function reportPath(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, resolve(cwd, file)) || file
  return rel.split('\\').join('/')
}

/** Lint diagnostics as findings. */
export function findingsOfDiagnostics(diagnostics: readonly Diagnostic[], cwd = process.cwd()): Finding[] {
  return diagnostics.map((d) => ({
    file: reportPath(d.span.file, cwd),
    line: d.span.startLine,
    col: d.span.startCol,
    endLine: d.span.endLine,
    endCol: d.span.endCol,
    severity: d.severity === 'info' ? 'note' : d.severity,
    code: d.code,
    message: d.message,
    ...(d.hint !== undefined ? { hint: d.hint } : {}),
  }))
}

/**
 * Failed rule tests as findings: a test file that does not load at its problem's line, a failed
 * assertion at the assertion's own line (the `- rule:` entry under expect/absent), so the annotation
 * sits on what to fix. Rule-file errors that stopped the run come as lint findings (`diagnostics`).
 */
export function findingsOfTestRun(run: RunResult, cwd = process.cwd()): Finding[] {
  const out: Finding[] = findingsOfDiagnostics(run.ruleDiagnostics ?? [], cwd)
  for (const f of run.files) {
    for (const e of f.errors) out.push({ file: reportPath(e.file, cwd), line: e.line, col: e.col ?? 1, severity: 'error', code: 'rule-test/file', message: e.message })
    for (const c of f.cases) {
      for (const a of c.assertions) {
        if (a.ok) continue
        const code = a.kind === 'load' ? 'rule-test/load' : a.kind === 'expect' ? 'rule-test/expect' : 'rule-test/absent'
        out.push({
          file: reportPath(c.test.file, cwd),
          line: a.line,
          col: a.col ?? 1,
          severity: 'error',
          code,
          message: `${c.test.name}: ${a.title}${a.detail ? `\n${a.detail}` : ''}`,
        })
      }
    }
  }
  if (run.claims?.allowListError) out.push({ file: reportPath(run.claims.allowList ?? 'claims-allow.yaml', cwd), line: 1, col: 1, severity: 'error', code: 'rule-test/claims-allow', message: run.claims.allowListError })
  for (const c of run.claims?.checks ?? []) {
    if (c.outcome !== 'survived' || c.allowed) continue
    const message = `${c.test}: ${c.ruleId} still fires on broker ${c.broker} with every ${c.signal} it claims removed (${c.removed} events):\n${c.after ?? ''}`
    out.push({ file: reportPath(c.file, cwd), line: c.line, col: 1, severity: 'error', code: 'rule-test/claim', message })
  }
  return out
}
