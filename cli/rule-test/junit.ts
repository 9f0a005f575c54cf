import { relative } from 'node:path'
import type { ClaimCheck } from './claims.js'
import type { ClaimsResult, RunResult } from './run-tests.js'
import { escapeXml } from '../annotations/xml.js'

/**
 * JUnit XML of a rule-test run, the one report format every CI system renders: a testsuite per test
 * file, a testcase per test case, a failure carrying the same explanation the terminal shows.
 */

const esc = (s: string) => escapeXml(s)

/** Renders the run; `cwd` makes file names relative so reports are stable across checkouts. */
export function toJUnit(run: RunResult, cwd = process.cwd()): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>']
  const all = run.files.flatMap((f) => f.cases)
  const claimRules = run.claims ? claimsByRule(run.claims.checks) : new Map<string, ClaimCheck[]>()
  const claimFailures = [...claimRules.values()].filter(unallowedSurvivals).length
  const failures = claimFailures + run.files.reduce((n, f) => n + f.cases.filter((c) => !c.ok).length + (f.errors.length ? 1 : 0), 0) + (run.ruleErrors ? 1 : 0)
  const time = all.reduce((s, c) => s + c.durationMs, 0) / 1000
  const tests = claimRules.size + all.length + run.files.filter((f) => f.errors.length).length + (run.ruleErrors ? 1 : 0)
  out.push(`<testsuites name="kafka-why test" tests="${tests}" failures="${failures}" errors="0" time="${time.toFixed(3)}">`)
  if (run.ruleErrors) {
    out.push('  <testsuite name="rules" tests="1" failures="1" errors="0" time="0">')
    out.push(`    <testcase classname="rules" name="rule files parse" time="0"><failure message="rule files have errors">${esc(run.ruleErrors)}</failure></testcase>`)
    out.push('  </testsuite>')
  }
  for (const f of run.files) {
    const file = relative(cwd, f.file) || f.file
    const n = f.cases.length + (f.errors.length ? 1 : 0)
    const failed = f.cases.filter((c) => !c.ok).length + (f.errors.length ? 1 : 0)
    const t = f.cases.reduce((s, c) => s + c.durationMs, 0) / 1000
    out.push(`  <testsuite name="${esc(file)}" tests="${n}" failures="${failed}" errors="0" time="${t.toFixed(3)}">`)
    if (f.errors.length) {
      const text = f.errors.map((e) => `${file}:${e.line}: ${e.message}`).join('\n')
      out.push(`    <testcase classname="${esc(file)}" name="test file loads" time="0"><failure message="${esc(f.errors[0].message)}">${esc(text)}</failure></testcase>`)
    }
    for (const c of f.cases) {
      const head = `    <testcase classname="${esc(file)}" name="${esc(c.test.name)}" file="${esc(file)}" line="${c.test.line}" time="${(c.durationMs / 1000).toFixed(3)}"`
      const failedAssertions = c.assertions.filter((a) => !a.ok)
      if (failedAssertions.length === 0) {
        out.push(`${head}/>`)
        continue
      }
      const body = failedAssertions.map((a) => `${file}:${a.line}: ${a.title}\n${a.detail ?? ''}`).join('\n\n')
      out.push(`${head}><failure message="${esc(failedAssertions[0].title)}">${esc(body)}</failure></testcase>`)
    }
    out.push('  </testsuite>')
  }
  if (run.claims) out.push(...claimsSuite(run.claims, cwd))
  out.push('</testsuites>')
  return out.join('\n') + '\n'
}

function claimsByRule(checks: readonly ClaimCheck[]): Map<string, ClaimCheck[]> {
  const m = new Map<string, ClaimCheck[]>()
  for (const c of checks) m.set(c.ruleId, [...(m.get(c.ruleId) ?? []), c])
  return m
}

const unallowedSurvivals = (cs: readonly ClaimCheck[]) => cs.some((c) => c.outcome === 'survived' && !c.allowed)

/** The claims pass as one testsuite: a testcase per rule, failing when one of its claims survived removal unallowed. */
function claimsSuite(claims: ClaimsResult, cwd: string): string[] {
  const byRule = claimsByRule(claims.checks)
  const failed = [...byRule.values()].filter(unallowedSurvivals).length
  const out = [`  <testsuite name="claims" tests="${byRule.size}" failures="${failed}" errors="0" time="${(claims.durationMs / 1000).toFixed(3)}">`]
  for (const [rule, cs] of byRule) {
    const head = `    <testcase classname="claims" name="${esc(rule)}: ${cs.length} claims removed"`
    const bad = cs.filter((c) => c.outcome === 'survived' && !c.allowed)
    if (bad.length === 0) {
      out.push(`${head}/>`)
      continue
    }
    const body = bad
      .map((c) => `${relative(cwd, c.file) || c.file}:${c.line}: ${c.test}, broker ${c.broker}: removed ${c.removed} ${c.signal} events; the cause still reads:\n${c.after ?? ''}`)
      .join('\n\n')
    out.push(`${head}><failure message="${esc(`claim survived removing ${bad[0].signal}`)}">${esc(body)}</failure></testcase>`)
  }
  out.push('  </testsuite>')
  return out
}
