import { readFile } from 'node:fs/promises'
import { isAbsolute, join, normalize, relative, resolve } from 'node:path'
import type { Rule } from '../../dsl/ast.js'
import { formatRule, formatRules, parseRules, type Diagnostic } from '../../dsl/index.js'
import { SYNTAX_CODES } from '../../dsl/parse-file.js'
import { backtestRules, compareBacktest, ruleKey, type RuleBacktest } from '../../engine/backtest.js'
import type { Store } from '../../engine/store/store.js'
import { findRuleFiles, loadRules } from '../../rule-files/load-rules.js'
import { findingsOfDiagnostics, findingsOfTestRun, reportPath, type Finding } from '../annotations/finding.js'
import { findTestInputs, runRuleTests, type RunResult } from '../rule-test/run-tests.js'
import { parseTestFile } from '../rule-test/test-file.js'
import { changedFiles, filesAt, mergeBase, repoRoot, showFile, type ChangedFile } from './git-changes.js'

/**
 * `kafka-why ci` without the terminal: what a pull request changed in the rules and their tests,
 * whether the changed files lint, are formatted and pass the tests that touch them, and what the
 * changed rules would have fired over the team's history compared with their base versions.
 */

/** A rule the pull request adds, changes or removes, and whether it could be backtested. */
export type ChangedRule = {
  rule: string
  status: 'new' | 'changed' | 'removed'
  /** Where it is now (or was, when removed): path, line. */
  file: string
  line: number
  severity: { base?: Rule['severity']; head?: Rule['severity'] }
  /** Why it was left out of the backtest (its head version has lint errors). */
  notBacktested?: string
}

/** Where the backtest's history came from and what reading it cost. */
export type BacktestSummary = {
  source: string
  from: number
  to: number
  tookMs: number
  windows: number
  signalsRead: number
  rules: RuleBacktest[]
}

/** Everything `kafka-why ci` found, for the text and Markdown reports and the exit code. */
export type CiReport = {
  base: string
  mergeBase: string
  changedRuleFiles: ChangedFile[]
  changedTestFiles: ChangedFile[]
  lint: Finding[]
  unformatted: string[]
  tests: { files: string[]; passed: number; failed: number; failures: Finding[]; leftOut: string[]; note?: string }
  rules: ChangedRule[]
  backtest?: BacktestSummary
  /** Why no backtest ran, when none did. */
  noBacktest?: string
}

/** Where the history for the backtest comes from: a store (its window), or none. */
export type History = { store: Store; from: number; to: number; source: string }

/** What `kafka-why ci` was asked to do. */
export type CiOptions = {
  base: string
  rulesDir: string
  testsDir: string
  /** Opens the history once there is a changed rule to backtest; undefined = no history. */
  history?: () => Promise<History | undefined>
  windowMs: number
  stepMs: number
  cwd?: string
}

/** True when `path` is `dir` or inside it (both relative to the working directory). */
function isUnder(path: string, dir: string): boolean {
  const d = normalize(dir).replace(/\/+$/, '')
  return d === '.' || path === d || path.startsWith(`${d}/`)
}

/** Runs every check; never throws for bad rule files or failing tests (they are in the report). */
export async function runCi(opts: CiOptions): Promise<CiReport> {
  const cwd = opts.cwd ?? process.cwd()
  const root = await repoRoot(cwd)
  const mb = await mergeBase(cwd, opts.base)
  // git speaks in paths from the repository root; everything else here in paths from cwd.
  const fromRoot = (p: string) => reportPath(join(root, p), cwd)
  const toRoot = (p: string) => relative(root, resolve(cwd, p)).split('\\').join('/')
  const changed = (await changedFiles(cwd, mb)).map((c) => ({ ...c, path: fromRoot(c.path), ...(c.from ? { from: fromRoot(c.from) } : {}) }))
  const rulesDir = reportPath(opts.rulesDir, cwd)
  const testsDir = reportPath(opts.testsDir, cwd)
  const changedRuleFiles = changed.filter((c) => c.path.endsWith('.rules') && (isUnder(c.path, rulesDir) || (c.from !== undefined && isUnder(c.from, rulesDir))))
  const changedTestFiles = changed.filter((c) => /\.ya?ml$/.test(c.path) && isUnder(c.path, testsDir) && c.status !== 'deleted')

  // Head: the working tree's rule set; base: the same directory at the merge base.
  const head = await loadRules([rulesDir])
  const headFiles = new Set(changedRuleFiles.filter((c) => c.status !== 'deleted').map((c) => c.path))
  const baseFiles = new Set(changedRuleFiles.flatMap((c) => (c.status === 'deleted' ? [c.path] : c.from ? [c.from] : c.status === 'added' ? [] : [c.path])))
  const rel = (f: string) => reportPath(f, cwd)
  const lintDiagnostics = head.diagnostics.filter((d) => headFiles.has(rel(d.span.file)))
  const lint = findingsOfDiagnostics(lintDiagnostics, cwd)

  const unformatted: string[] = []
  for (const file of headFiles) {
    const text = head.sources[file] ?? head.sources[Object.keys(head.sources).find((s) => rel(s) === file) ?? '']
    if (text === undefined) continue
    const result = formatRules(text, file)
    if (!result.diagnostics.some((d) => SYNTAX_CODES.has(d.code)) && result.text !== text) unformatted.push(file)
  }

  const base: Rule[] = []
  for (const path of await filesAt(cwd, mb, toRoot(rulesDir), '.rules')) {
    const file = fromRoot(path)
    base.push(...parseRules(await showFile(root, mb, path), file).rules)
  }

  const rules = changedRules(base, head.rules, baseFiles, headFiles, head.diagnostics.filter((d) => d.severity === 'error'), rel)
  const tests = await runTouchedTests(rules, changedTestFiles, head, testsDir, rel, cwd)

  const report: CiReport = { base: opts.base, mergeBase: mb.slice(0, 12), changedRuleFiles, changedTestFiles, lint, unformatted, tests, rules }
  const toBacktest = rules.filter((r) => !r.notBacktested)
  if (toBacktest.length === 0) {
    report.noBacktest = rules.length ? 'no changed rule can be evaluated (see lint)' : 'no rule changed'
    return report
  }
  const keys = new Set(toBacktest.map((r) => r.rule))
  const baseRules = base.filter((r) => keys.has(ruleKey(r)))
  const headRules = head.rules.filter((r) => keys.has(ruleKey(r)))
  const history = opts.history ? await opts.history() : undefined
  if (!history) {
    report.noBacktest = 'no history to backtest against: set REDIS_URL or REDIS_CLUSTER_NODES (with --since) or pass --replay <incident dirs>'
    return report
  }
  const started = performance.now()
  const run = await backtestRules(history.store, baseRules, headRules, { from: history.from, to: history.to, windowMs: opts.windowMs, stepMs: opts.stepMs })
  report.backtest = {
    source: history.source,
    from: history.from,
    to: history.to,
    tookMs: performance.now() - started,
    windows: run.windows,
    signalsRead: run.signalsRead,
    rules: compareBacktest(run, [...keys]),
  }
  return report
}

/** Rules of the changed files on either side, paired by name, with what happened to each. */
function changedRules(base: Rule[], head: Rule[], baseFiles: Set<string>, headFiles: Set<string>, errors: Diagnostic[], rel: (f: string) => string): ChangedRule[] {
  const keys = new Set([...base.filter((r) => baseFiles.has(rel(r.file))).map(ruleKey), ...head.filter((r) => headFiles.has(rel(r.file))).map(ruleKey)])
  const canonical = (r: Rule) => formatRule({ ...r, doc: [] })
  const out: ChangedRule[] = []
  for (const key of keys) {
    const b = base.find((r) => ruleKey(r) === key)
    const h = head.find((r) => ruleKey(r) === key)
    const where = h ?? b!
    const entry: ChangedRule = {
      rule: key,
      status: !b ? 'new' : !h ? 'removed' : 'changed',
      file: rel(where.file),
      line: where.span.startLine,
      severity: { ...(b ? { base: b.severity } : {}), ...(h ? { head: h.severity } : {}) },
    }
    if (b && h && canonical(b) === canonical(h)) continue
    if (h && errors.some((d) => rel(d.span.file) === rel(h.file) && d.span.startOffset >= h.span.startOffset && d.span.startOffset < h.span.endOffset)) {
      entry.notBacktested = 'its new version has lint errors'
    } else if (!h && errors.some((d) => SYNTAX_CODES.has(d.code) && headFiles.has(rel(d.span.file)))) {
      // A rule whose file no longer parses is not removed, it is broken: never report it as gone.
      entry.status = 'changed'
      entry.notBacktested = 'its file has syntax errors'
    }
    out.push(entry)
  }
  return out.sort((x, y) => x.file.localeCompare(y.file) || x.line - y.line)
}

/**
 * Runs the rule tests that touch the change: changed test files, and those asserting on a changed
 * rule or naming a changed rule file. Rule files with errors are left out of the rule set (lint
 * reports them) so the rest can still be tested.
 */
async function runTouchedTests(
  rules: ChangedRule[],
  changedTests: ChangedFile[],
  head: { diagnostics: Diagnostic[]; sources: Record<string, string> },
  testsDir: string,
  rel: (f: string) => string,
  cwd: string,
): Promise<CiReport['tests']> {
  const changedKeys = new Set(rules.map((r) => r.rule))
  const changedFiles = new Set(rules.map((r) => r.file))
  const changedTestPaths = new Set(changedTests.map((c) => c.path))
  const found = await findTestInputs([testsDir])
  const selected: string[] = []
  for (const file of found.tests) {
    if (changedTestPaths.has(rel(file))) {
      selected.push(file)
      continue
    }
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch {
      continue
    }
    const parsed = parseTestFile(text, file)
    const names = parsed.file.tests.flatMap((t) => [...t.expect.map((e) => e.rule), ...t.absent.map((a) => a.rule)])
    const touches = names.some((n) => n !== undefined && [...changedKeys].some((k) => k === n || k.endsWith(`#${n}`)))
    const namesChangedFile = (parsed.file.rules ?? []).some((p) => [...changedFiles].some((f) => rel(p) === f || f.startsWith(`${rel(p)}/`)))
    if (touches || namesChangedFile) selected.push(file)
  }
  const broken = new Set(head.diagnostics.filter((d) => d.severity === 'error').map((d) => rel(d.span.file)))
  const ruleFiles = (await findRuleFiles(Object.keys(head.sources).length ? Object.keys(head.sources) : [])).filter((f) => !broken.has(rel(f)))
  const leftOut = [...broken].filter((f) => Object.keys(head.sources).some((s) => rel(s) === f))
  if (selected.length === 0) return { files: [], passed: 0, failed: 0, failures: [], leftOut, note: 'no rule test touches the changed rules' }
  const run: RunResult = await runRuleTests({ paths: [...selected, ...ruleFiles.map((f) => (isAbsolute(f) ? f : resolve(cwd, f)))] })
  const cases = run.files.flatMap((f) => f.cases)
  const failed = cases.filter((c) => !c.ok).length + run.files.filter((f) => f.errors.length).length + (run.ruleErrors ? 1 : 0)
  return { files: selected.map(rel), passed: cases.filter((c) => c.ok).length, failed, failures: findingsOfTestRun(run, cwd), leftOut }
}

/** True when lint, fmt or the tests failed: `kafka-why ci` exits 1. */
export function ciFailed(r: CiReport): boolean {
  return r.lint.some((f) => f.severity === 'error') || r.unformatted.length > 0 || r.tests.failed > 0
}

/** Alerts the change would newly raise at critical (new, or raised to critical): what --fail-on-new-critical counts. */
export function newCriticalAlerts(r: CiReport): number {
  if (!r.backtest) return 0
  return r.backtest.rules.reduce((n, x) => n + x.newlyFiring.filter((e) => e.severity === 'critical').length + x.severityChanged.filter((p) => p.head.severity === 'critical' && p.base.severity !== 'critical').length, 0)
}
