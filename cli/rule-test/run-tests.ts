import { readdir, readFile, stat } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Rule } from '../../dsl/ast.js'
import { hasErrors, renderDiagnostics, type Diagnostic } from '../../dsl/index.js'
import { loadRules } from '../../rule-files/load-rules.js'
import { describeMissing } from '../rule-paths.js'
import { UsageError } from '../usage-error.js'
import { checkClaimsOfCase, readClaimAllowList, type ClaimCheck } from './claims.js'
import { corpusCaseTest } from './corpus-case-test.js'
import { runCase, type CaseResult } from './run-case.js'
import { parseTestFile, type TestFileError } from './test-file.js'

/**
 * `kafka-why test` without the terminal: finds test files and rule files, runs every case and
 * gathers per-rule coverage. The command and the vitest suite both call this.
 */

/** One test file's outcome: its load errors, or its cases. */
export type FileResult = { file: string; errors: TestFileError[]; cases: CaseResult[] }

/** Per rule: asserted to fire (and it did), fired in some case, asserted absent. */
export type RuleCoverage = { ruleId: string; file: string; asserted: number; fired: number; absent: number }

/** Everything a run produced, for the terminal report, JUnit and the exit code. */
export type RunResult = {
  files: FileResult[]
  rules: Rule[]
  /** Rule problems (lint errors) that stopped the run. */
  ruleErrors?: string
  /** The same problems as diagnostics, for CI annotations. */
  ruleDiagnostics?: Diagnostic[]
  coverage: RuleCoverage[]
  /** The claims pass (`--claims`): every claim checked, survivals marked allowed or not. */
  claims?: ClaimsResult
  ok: boolean
}

/** The claims pass over a run: the checks, the allow-list read, and how long it took. */
export type ClaimsResult = { checks: ClaimCheck[]; allowList?: string; allowListError?: string; durationMs: number }

/** The allow-list of claims that rightly survive removal, looked for beside the tests. */
export const CLAIMS_ALLOW_FILE = 'claims-allow.yaml'

/** What to run: where the tests are, and which rules they test. */
export type RunOptions = {
  /** Test files and directories (searched for *.yaml / *.yml test files and *.rules files). */
  paths: string[]
  /** Rule files or directories; overrides the *.rules found under `paths`. Default: those, else rules/. */
  rules?: string[]
  /** Also run the claims pass (claims.ts): each passing `expect` re-run with each claimed fact removed. */
  claims?: boolean
  /** The claims allow-list; default claims-allow.yaml found beside the tests (rules/tests/). */
  claimsAllow?: string
}

const SKIP_DIRS = new Set(['node_modules', '.git'])
/** A real-incident corpus case's expectation file (test/corpus/<case>/case.yaml), run as one rule test. */
const CORPUS_CASE = 'case.yaml'

/** Finds test files (YAML with a top-level `tests:`) and rule files under the given paths. */
export async function findTestInputs(paths: string[]): Promise<{ tests: string[]; rules: string[]; missing: string[] }> {
  const tests: string[] = []
  const rules: string[] = []
  const missing: string[] = []
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(p)
      } else if (e.name.endsWith('.rules')) rules.push(p)
      else if (e.name === CORPUS_CASE) tests.push(p)
      else if (/\.ya?ml$/.test(e.name) && e.name !== 'incident.yaml' && (await looksLikeTestFile(p))) tests.push(p)
    }
  }
  for (const p of paths) {
    try {
      if ((await stat(p)).isDirectory()) await walk(p)
      else if (p.endsWith('.rules')) rules.push(p)
      else tests.push(p)
    } catch {
      missing.push(p)
    }
  }
  return { tests: [...new Set(tests)], rules: [...new Set(rules)], missing }
}

/**
 * The test paths a user named, checked before anything runs: a missing path, or a directory with no
 * rule-test file under it, is a UsageError naming the path as given (exit 2, as for rule paths).
 */
export async function checkTestPaths(paths: readonly string[]): Promise<void> {
  for (const p of paths) {
    try {
      await stat(p)
    } catch (err) {
      throw new UsageError(describeMissing(p, err))
    }
    const found = await findTestInputs([p])
    if (found.tests.length === 0 && found.rules.length === 0) throw new UsageError(`no rule-test files (YAML with a top-level \`tests:\`) in ${p}`)
  }
}

async function looksLikeTestFile(file: string): Promise<boolean> {
  try {
    return /^tests\s*:/m.test(await readFile(file, 'utf8'))
  } catch {
    return false
  }
}

/** Runs every test case found under `paths` against the rules; never throws for bad input. */
export async function runRuleTests(opts: RunOptions): Promise<RunResult> {
  const found = await findTestInputs(opts.paths)
  const rulePaths = opts.rules?.length ? opts.rules : found.rules.length ? found.rules : ['rules/']
  const loaded = await loadRules(rulePaths)
  const result: RunResult = { files: [], rules: loaded.rules, coverage: [], ok: true }
  for (const m of found.missing) result.files.push({ file: m, errors: [{ file: m, line: 1, message: 'no such file or directory' }], cases: [] })
  if (hasErrors(loaded.diagnostics)) {
    result.ruleDiagnostics = loaded.diagnostics.filter((d) => d.severity === 'error')
    result.ruleErrors = renderDiagnostics(result.ruleDiagnostics, loaded.sources)
    result.ok = false
    return result
  }
  const subsets = new Map<string, Rule[]>()
  const claims: ClaimCheck[] = []
  let claimsMs = 0
  for (const file of found.tests) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (err) {
      result.files.push({ file, errors: [{ file, line: 1, message: `cannot read: ${(err as Error).message}` }], cases: [] })
      continue
    }
    if (text.includes('\0')) {
      result.files.push({ file, errors: [{ file, line: 1, message: 'not a text file (a rule-test file is YAML with a top-level `tests:`)' }], cases: [] })
      continue
    }
    const parsed = basename(file) === CORPUS_CASE ? await corpusCaseTest(file) : parseTestFile(text, file)
    const fr: FileResult = { file, errors: parsed.errors, cases: [] }
    result.files.push(fr)
    if (parsed.errors.length) continue
    let rules: Rule[] = loaded.rules
    if (parsed.file.rules && !opts.rules?.length) {
      const key = parsed.file.rules.join('\n')
      if (!subsets.has(key)) subsets.set(key, (await loadRules(parsed.file.rules)).rules)
      rules = subsets.get(key)!
    }
    for (const tc of parsed.file.tests) {
      const c = await runCase(tc, rules, undefined, { keepSignals: opts.claims })
      if (opts.claims && c.ok && c.signals) {
        const t0 = performance.now()
        claims.push(...(await checkClaimsOfCase(c, rules, c.signals)))
        claimsMs += performance.now() - t0
      }
      delete c.signals
      fr.cases.push(c)
    }
  }
  result.coverage = coverageOf(result)
  result.ok = result.files.every((f) => f.errors.length === 0 && f.cases.every((c) => c.ok)) && result.files.length > 0
  if (opts.claims) {
    const allowFile = opts.claimsAllow ?? found.tests.map((t) => join(dirname(t), CLAIMS_ALLOW_FILE)).find((f) => existsSync(f))
    const allow = allowFile ? await readClaimAllowList(allowFile) : { entries: [] }
    for (const c of claims) {
      if (c.outcome !== 'survived') continue
      const entry = allow.entries.find((e) => (e.rule === c.ruleId || c.ruleId.endsWith(`#${e.rule}`)) && e.signal === c.signal)
      if (entry) c.allowed = entry.why
    }
    result.claims = { checks: claims, allowList: allowFile, allowListError: allow.error, durationMs: claimsMs }
    if (allow.error || claims.some((c) => c.outcome === 'survived' && !c.allowed)) result.ok = false
  }
  return result
}

/** Per-rule coverage over every case of the run. */
export function coverageOf(run: Pick<RunResult, 'files' | 'rules'>): RuleCoverage[] {
  const byId = new Map(run.rules.map((r) => [r.id, { ruleId: r.id, file: r.file, asserted: 0, fired: 0, absent: 0 } satisfies RuleCoverage]))
  const find = (name: string | undefined) => (name ? (byId.get(name) ?? [...byId.values()].find((c) => c.ruleId.endsWith(`#${name}`))) : undefined)
  for (const f of run.files)
    for (const c of f.cases) {
      for (const id of c.fired) {
        const cov = byId.get(id)
        if (cov) cov.fired++
      }
      for (const a of c.assertions) {
        const cov = find(a.rule)
        if (!cov || !a.ok) continue
        if (a.kind === 'expect') cov.asserted++
        else if (a.kind === 'absent') cov.absent++
      }
    }
  return [...byId.values()]
}
