import type { Severity } from '../../dsl/ast.js'
import type { Cause, Diagnosis } from '../../engine/diagnosis.js'
import type { CaseRun } from './run-case.js'
import type { AbsentExpectation, FireExpectation, TimeSpec } from './test-file.js'

/**
 * Checking one assertion against the diagnoses of a case, and — when it fails — saying why in the
 * terms an SRE needs: what fired, what was expected, and the nearest miss the engine found.
 */

/** The outcome of one assertion; `detail` is the explanation shown on failure. */
export type AssertionResult = {
  ok: boolean
  kind: 'expect' | 'absent' | 'load'
  line: number
  /** Column of the assertion in its test file, for CI annotations. */
  col?: number
  /** One line naming the assertion: "expect stw_pause_session_expiry on broker 1 at rank 1". */
  title: string
  detail?: string
  /** The rule the assertion is about, for coverage. */
  rule?: string
}

const ORDER: Record<Severity, number> = { info: 1, warning: 2, critical: 3 }
/** How many fired causes a failure lists. */
const LISTED = 5

/** ISO time in UTC, the one format every message uses. */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms)
}

function resolveTime(t: TimeSpec, base: number): number {
  return 'abs' in t ? t.abs : base + t.rel
}

function ruleIs(c: Cause, rule: string): boolean {
  return c.ruleId === rule || c.ruleName === rule
}

function labelsHold(c: Cause, labels: Record<string, string> | undefined): boolean {
  if (!labels) return true
  return Object.entries(labels).every(([k, v]) => c.labels[k] === v || c.evidence.some((e) => !e.consequence && e.labels?.[k] === v))
}

function describeCause(c: Cause, rank: number): string {
  const labels = Object.keys(c.labels).length ? ` ${JSON.stringify(c.labels)}` : ''
  const explained = c.explainedBy?.length ? ` (explained by ${c.explainedBy.join(', ')})` : ''
  return `${rank}. ${c.ruleId} [${c.severity}, score ${Math.round(c.score * 10) / 10}]${labels} at ${isoTime(c.matchedAt)}${explained}: ${truncate(c.cause, 160)}`
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s
}

function firedList(d: Diagnosis): string {
  if (d.causes.length === 0) return `    nothing fired on broker ${d.broker} (${d.signalsSeen} signals seen)`
  const shown = d.causes.slice(0, LISTED).map((c, i) => `    ${describeCause(c, i + 1)}`)
  if (d.causes.length > LISTED) shown.push(`    … and ${d.causes.length - LISTED} more`)
  return shown.join('\n')
}

function nearMiss(d: Diagnosis, rule: string): string | undefined {
  const miss = d.nearMisses.find((m) => m.ruleId === rule || m.ruleId.endsWith(`#${rule}`))
  return miss?.message
}

function title(e: FireExpectation): string {
  const parts = [`expect ${e.rule}`]
  if (e.broker !== undefined) parts.push(`on broker ${e.broker}`)
  if (e.rank !== undefined) parts.push(`at rank ${e.rank}`)
  if (e.severity) parts.push(`as ${e.severity}`)
  if (e.labels) parts.push(`with ${JSON.stringify(e.labels)}`)
  return parts.join(' ')
}

/** Checks "this rule fires" (and where, how, how high it ranks). */
export function checkExpectation(e: FireExpectation, run: CaseRun, base: number): AssertionResult {
  const result: AssertionResult = { ok: false, kind: 'expect', line: e.line, col: e.col, title: title(e), rule: e.rule }
  const diagnoses = run.diagnoses.filter((d) => e.broker === undefined || d.broker === e.broker)
  if (diagnoses.length === 0) {
    result.detail = `  no broker ${e.broker} in the data (brokers: ${run.diagnoses.map((d) => d.broker).join(', ') || 'none'})`
    return result
  }
  const problems: string[] = []
  for (const d of diagnoses) {
    const mine = d.causes.map((c, i) => ({ c, rank: i + 1 })).filter(({ c }) => ruleIs(c, e.rule))
    if (mine.length === 0) continue
    const why: string[] = []
    const fit = mine.find(({ c, rank }) => {
      const reasons: string[] = []
      if (e.severity && c.severity !== e.severity) reasons.push(`severity ${c.severity}, expected ${e.severity}`)
      if (!labelsHold(c, e.labels)) reasons.push(`labels ${JSON.stringify(c.labels)} (evidence ${JSON.stringify(evidenceLabels(c))}), expected ${JSON.stringify(e.labels)}`)
      if (e.between) {
        const [lo, hi] = e.between.map((t) => resolveTime(t, base))
        if (c.matchedAt < lo || c.matchedAt > hi) reasons.push(`matched at ${isoTime(c.matchedAt)}, expected between ${isoTime(lo)} and ${isoTime(hi)}`)
      }
      if (e.cause !== undefined && !textMatches(c.cause, e.cause)) reasons.push(`cause text does not contain ${JSON.stringify(e.cause)}: "${truncate(c.cause, 200)}"`)
      if (e.rank !== undefined && rank !== e.rank) reasons.push(`ranked ${rank} of ${d.causes.length}, expected rank ${e.rank}`)
      if (reasons.length) why.push(`on broker ${d.broker}: ${reasons.join('; ')}`)
      return reasons.length === 0
    })
    if (fit) {
      result.ok = true
      return result
    }
    problems.push(...why.map((w) => `  fired, but ${w}`), `  what fired on broker ${d.broker}:`, firedList(d))
  }
  if (problems.length === 0) {
    for (const d of diagnoses) {
      problems.push(`  did not fire on broker ${d.broker} (window ${isoTime(run.from)} .. ${isoTime(run.to)}, ${d.signalsSeen} signals)`)
      problems.push(`  what fired instead:`, firedList(d))
      const miss = nearMiss(d, e.rule)
      problems.push(miss ? `  nearest miss: ${miss}` : `  nearest miss: none — no part of ${e.rule}'s condition held`)
    }
  }
  result.detail = problems.join('\n')
  return result
}

function evidenceLabels(c: Cause): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const ev of c.evidence) {
    if (ev.consequence) continue
    for (const [k, v] of Object.entries(ev.labels ?? {})) if (!(out[k] ??= []).includes(v) && out[k].length < 3) out[k].push(v)
  }
  return out
}

function textMatches(text: string, pattern: string): boolean {
  const re = /^\/(.*)\/([a-z]*)$/.exec(pattern)
  if (re) {
    try {
      return new RegExp(re[1], re[2]).test(text)
    } catch {
      return false
    }
  }
  return text.includes(pattern)
}

/** Checks "this must not fire": a named rule, or anything at or above a severity. */
export function checkAbsent(a: AbsentExpectation, run: CaseRun): AssertionResult {
  const what = [a.rule ? `${a.rule}` : `anything ${a.severity}${a.severity === 'critical' ? '' : ' or worse'}`]
  if (a.rule && a.severity) what.push(`as ${a.severity} or worse`)
  if (a.broker !== undefined) what.push(`on broker ${a.broker}`)
  if (a.labels) what.push(`with ${JSON.stringify(a.labels)}`)
  const result: AssertionResult = { ok: true, kind: 'absent', line: a.line, col: a.col, title: `absent ${what.join(' ')}`, rule: a.rule }
  const offending: string[] = []
  for (const d of run.diagnoses) {
    if (a.broker !== undefined && d.broker !== a.broker) continue
    d.causes.forEach((c, i) => {
      if (a.rule && !ruleIs(c, a.rule)) return
      if (a.severity && ORDER[c.severity] < ORDER[a.severity]) return
      if (!labelsHold(c, a.labels)) return
      const firstEvidence = c.evidence.find((ev) => !ev.consequence)
      const ev = firstEvidence ? `\n      evidence: ${isoTime(firstEvidence.at)} ${firstEvidence.signal}${firstEvidence.valueText ? ` = ${firstEvidence.valueText}` : ''}${firstEvidence.text ? ` — ${truncate(firstEvidence.text, 140)}` : ''}` : ''
      offending.push(`  fired on broker ${d.broker}: ${describeCause(c, i + 1)}${ev}`)
    })
  }
  if (offending.length) {
    result.ok = false
    result.detail = offending.join('\n')
  }
  return result
}
