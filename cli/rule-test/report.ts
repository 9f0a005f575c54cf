import { relative } from 'node:path'
import type { ClaimCheck } from './claims.js'
import type { ClaimsResult, RunResult } from './run-tests.js'

/**
 * The terminal report of a rule-test run: one line per case, the full explanation of every failed
 * assertion, then coverage (which rules no test proves) and a summary line.
 */
export function renderReport(run: RunResult, opts: { cwd?: string; verbose?: boolean } = {}): string {
  const cwd = opts.cwd ?? process.cwd()
  // Paths under the working directory are shown relative to it; any other path as it was given.
  const rel = (f: string) => {
    const r = relative(cwd, f)
    return r && !r.startsWith('..') ? r : f
  }
  const out: string[] = []
  if (run.ruleErrors) out.push('rule files have errors; no test ran:', run.ruleErrors)
  else if (run.files.length === 0) out.push('no rule-test files found (YAML files with a top-level `tests:`)')
  let passed = 0
  let failed = 0
  for (const f of run.files) {
    out.push(rel(f.file))
    for (const e of f.errors) {
      failed++
      out.push(`  ✗ ${rel(e.file)}:${e.line}${e.col ? `:${e.col}` : ''}: ${e.message}`)
    }
    for (const c of f.cases) {
      const ms = `${Math.round(c.durationMs)}ms`
      if (c.ok) {
        passed++
        out.push(`  ✓ ${c.test.name} (${ms})`)
        continue
      }
      failed++
      out.push(`  ✗ ${c.test.name} (${rel(c.test.file)}:${c.test.line}, ${ms})`)
      for (const a of c.assertions.filter((x) => !x.ok)) {
        out.push(`    ${rel(c.test.file)}:${a.line}: ${a.title}: FAILED`)
        if (a.detail) out.push(a.detail.split('\n').map((l) => `    ${l}`).join('\n'))
      }
    }
    for (const c of f.cases) {
      const r = c.run
      if (!r) continue
      const notes: string[] = []
      const rejected = Object.entries(r.rejected)
      if (rejected.length) notes.push(`store refused ${rejected.map(([k, v]) => `${v} (${k})`).join(', ')}`)
      if (r.unparsed) notes.push(`${r.unparsed} input lines were not understood`)
      if (notes.length && (opts.verbose || !c.ok)) out.push(`    note (${c.test.name}): ${notes.join('; ')}`)
    }
  }
  const cov = run.coverage
  // Coverage says nothing when no case ran (every file was unreadable): the errors above are the report.
  if (passed + failed > 0 && run.files.every((f) => f.cases.length === 0)) {
    out.push(`FAIL: ${passed} passed, ${failed} failed`)
    return out.join('\n')
  }
  const asserted = cov.filter((c) => c.asserted > 0)
  out.push('')
  out.push(`coverage: ${asserted.length}/${cov.length} rules asserted to fire by a passing test`)
  if (opts.verbose) {
    const w = Math.max(4, ...cov.map((c) => c.ruleId.length))
    out.push(`  ${'rule'.padEnd(w)}  asserted  fired  absent`)
    for (const c of cov) out.push(`  ${c.ruleId.padEnd(w)}  ${String(c.asserted).padStart(8)}  ${String(c.fired).padStart(5)}  ${String(c.absent).padStart(6)}`)
  }
  const never = cov.filter((c) => c.asserted === 0)
  if (never.length) out.push(`  never exercised: ${never.map((c) => `${c.ruleId} (${rel(c.file)})`).join(', ')}`)
  if (run.claims) out.push('', ...renderClaims(run.claims, run.rules.map((r) => r.id), rel, opts.verbose))
  out.push(`${failed || !run.ok ? 'FAIL' : 'ok'}: ${passed} passed, ${failed} failed`)
  return out.join('\n')
}

/** The claims pass: per rule the claims checked and how they went, every survival in full, rules never checked. */
function renderClaims(claims: ClaimsResult, ruleIds: string[], rel: (f: string) => string, verbose?: boolean): string[] {
  const out: string[] = []
  const byRule = new Map<string, ClaimCheck[]>()
  for (const c of claims.checks) byRule.set(c.ruleId, [...(byRule.get(c.ruleId) ?? []), c])
  const count = (o: string) => claims.checks.filter((c) => c.outcome === o).length
  const survived = claims.checks.filter((c) => c.outcome === 'survived')
  const checkedRules = [...byRule.keys()].filter((r) => byRule.get(r)!.some((c) => c.outcome !== 'unchecked'))
  out.push(
    `claims: ${claims.checks.length} checked over ${checkedRules.length}/${ruleIds.length} rules in ${(claims.durationMs / 1000).toFixed(1)}s: ` +
      `${count('not-fired')} gone (rule no longer fires), ${count('text-changed')} gone (value left the text), ${count('other-evidence')} gone (another alternative on other evidence), ` +
      `${survived.length} survived (${survived.filter((c) => c.allowed).length} allowed), ${count('unchecked')} unchecked (rule alone did not fire)`,
  )
  if (claims.allowListError) out.push(`  ✗ ${claims.allowListError}`)
  else if (claims.allowList) out.push(`  allow-list: ${rel(claims.allowList)}`)
  if (verbose) {
    const w = Math.max(4, ...checkedRules.map((r) => r.length))
    out.push(`  ${'rule'.padEnd(w)}  checked  survived`)
    for (const r of [...byRule.keys()].sort()) {
      const cs = byRule.get(r)!
      out.push(`  ${r.padEnd(w)}  ${String(cs.length).padStart(7)}  ${String(cs.filter((c) => c.outcome === 'survived').length).padStart(8)}`)
    }
  }
  const seen = new Set<string>()
  for (const c of survived) {
    const key = `${c.ruleId}\0${c.signal}`
    if (seen.has(key)) continue
    seen.add(key)
    const mark = c.allowed ? '~' : '✗'
    out.push(`  ${mark} ${c.ruleId}: claim survived removing every ${c.signal} it rests on (${c.removed} events) — ${c.test} (${rel(c.file)}:${c.line}), broker ${c.broker}`)
    if (c.allowed) out.push(`      allowed: ${c.allowed}`)
    else out.push(`      before: ${c.before}`, `      after:  ${c.after}`)
  }
  // Kept by another alternative of an `or` with the same sentence: gone by the criterion, but only a
  // reader can tell whether the words still claim the removed fact ("…and the broker was fenced").
  if (verbose) {
    const rerouted = new Map<string, ClaimCheck>()
    for (const c of claims.checks) if (c.outcome === 'other-evidence') rerouted.set(`${c.ruleId} without ${c.signal}`, c)
    if (rerouted.size) out.push(`  held by another alternative, same sentence (read it: does it still name the removed fact?):`)
    for (const [k, c] of rerouted) out.push(`    ${k}: ${c.after}`)
  }
  const none = ruleIds.filter((r) => !checkedRules.includes(r))
  if (none.length) out.push(`  no claim checked (no passing expect on which the rule alone fires): ${none.join(', ')}`)
  return out
}
