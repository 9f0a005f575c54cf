import { describe, expect, it } from 'vitest'
import { loadRules } from '../../rule-files/load-rules.js'
import { formatRules } from '../../dsl/index.js'
import { runCase } from '../../cli/rule-test/run-case.js'
import { runRuleTests } from '../../cli/rule-test/run-tests.js'

/** The shipped pack against the recorded incidents, asserted here directly as well as by rules/tests. */
describe('rules', () => {
  it('passes its own rule tests with every rule asserted to fire somewhere', async () => {
    const run = await runRuleTests({ paths: ['rules/'] })
    const failed = run.files.flatMap((f) => [...f.errors.map((e) => `${e.file}:${e.line} ${e.message}`), ...f.cases.filter((c) => !c.ok).map((c) => c.test.name)])
    expect(failed).toEqual([])
    expect(run.ok).toBe(true)
    expect(run.rules.length).toBeGreaterThanOrEqual(16)
    expect(run.coverage.filter((c) => c.asserted === 0).map((c) => c.ruleId)).toEqual([])
    // Every rule test of the pack (about 170, each replaying its incident) runs in this one case.
  }, 300_000)

  it('is lint-clean and in the canonical layout', async () => {
    const { rules, diagnostics, sources } = await loadRules(['rules/'])
    expect(diagnostics.map((d) => `${d.span.file}:${d.span.startLine} ${d.code} ${d.message}`)).toEqual([])
    expect(new Set(rules.map((r) => r.file)).size).toBeGreaterThanOrEqual(6)
    for (const [file, text] of Object.entries(sources)) expect(formatRules(text, file).text, file).toBe(text)
  })

  it.each([
    ['seed-000-stw-session-expiry', '1', 'stw_pause_session_expiry', /safepoint took 3\.3s/],
    ['seed-001-roll-storm-map-failed', '1', 'roll_storm_resource_exhaustion', /LoadTestingTopic has segment\.ms = 100ms/],
    ['seed-002-down-conversion-oom', '1001', 'down_conversion_heap_oom', /down-converting voltetraffica\.data/],
    ['seed-003-selector-leak-group-churn', '3', 'selector_leak_group_churn', /group audit-ingest .*Selector leak \(fixed in 2\.2\.1\)/],
  ])('%s: broker %s is diagnosed with %s first', async (slug, broker, rule, text) => {
    const { rules } = await loadRules(['rules/'])
    const r = await runCase({ name: slug, file: 'test', line: 1, incident: [`test/incidents/${slug}`], series: [], intervalMs: 60_000, expect: [], absent: [{ rule: 'none', line: 1 }] }, rules)
    const d = r.run!.diagnoses.find((x) => x.broker === broker)!
    expect(d.causes[0].ruleId).toBe(rule)
    expect(d.causes[0].severity).toBe('critical')
    expect(d.causes[0].cause).toMatch(text)
    expect(d.causes.slice(1).every((c) => c.score < d.causes[0].score)).toBe(true)
  })

  it.each(['healthy-day', 'zk-timeout-network-cut', 'planned-rolling-restart'])('control %s: nothing critical on any broker', async (slug) => {
    const { rules } = await loadRules(['rules/'])
    const r = await runCase({ name: slug, file: 'test', line: 1, incident: [`test/incidents/${slug}`], series: [], intervalMs: 60_000, expect: [], absent: [{ severity: 'critical', line: 1 }] }, rules)
    expect(r.run!.diagnoses.length).toBeGreaterThan(0)
    expect(r.run!.diagnoses.flatMap((d) => d.causes.filter((c) => c.severity === 'critical').map((c) => `${d.broker}: ${c.ruleId}`))).toEqual([])
    expect(r.ok).toBe(true)
  })
})
