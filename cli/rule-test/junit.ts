import { relative } from 'node:path'
import type { RunResult } from './run-tests.js'
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
  const failures = run.files.reduce((n, f) => n + f.cases.filter((c) => !c.ok).length + (f.errors.length ? 1 : 0), 0) + (run.ruleErrors ? 1 : 0)
  const time = all.reduce((s, c) => s + c.durationMs, 0) / 1000
  const tests = all.length + run.files.filter((f) => f.errors.length).length + (run.ruleErrors ? 1 : 0)
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
  out.push('</testsuites>')
  return out.join('\n') + '\n'
}
