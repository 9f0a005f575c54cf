import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findingsOfTestRun } from '../../cli/annotations/finding.js'
import type { Rule } from '../../dsl/ast.js'
import { parseRules } from '../../dsl/index.js'
import { checkClaimsOfCase, derivedFrom, readClaimAllowList, removalOf, requiredSignals } from '../../cli/rule-test/claims.js'
import { CATALOGUE } from '../../signals/catalogue.js'
import { runCase } from '../../cli/rule-test/run-case.js'
import { runRuleTests } from '../../cli/rule-test/run-tests.js'
import { parseTestFile } from '../../cli/rule-test/test-file.js'
import { renderReport } from '../../cli/rule-test/report.js'
import { toJUnit } from '../../cli/rule-test/junit.js'

// Each rule is built to end one way when its facts are removed one at a time.
const RULES = `
rule pause
  severity critical
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "pause of {safepoint.sync}"
rule either
  severity warning
  when safepoint.sync > 2s or gc.pause > 2s
  then cause "a pause of {safepoint.sync}"
rule few_rebalances
  severity info
  when count(group.rebalance) over 1h < 5 and zk.session_timeout
  then cause "the consumer groups were stable while ZooKeeper timed out"
`

function rules(): Rule[] {
  const parsed = parseRules(RULES, 'test.rules')
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return parsed.rules
}

async function claims(rule: string, rs = rules()) {
  const yaml = `tests:
  - name: x
    interval: 1s
    series:
      - 'safepoint.sync{broker="1"}: _x9 3300ms 500ms'
      - 'gc.pause{broker="1"}: _x9 2500ms'
      - 'zk.session_timeout{broker="1"}: _x10 7768ms'
      - 'group.rebalance{broker="1",group="g"}: _x8 1'
    expect:
      - { rule: ${rule}, broker: "1" }
`
  const parsed = parseTestFile(yaml, '/t/rules/tests/x.yaml')
  expect(parsed.errors).toEqual([])
  const r = await runCase(parsed.file.tests[0], rs, undefined, { keepSignals: true })
  expect(r.ok).toBe(true)
  return Object.fromEntries((await checkClaimsOfCase(r, rs, r.signals!)).map((c) => [c.signal, c]))
}

describe('cli/rule-test/claims', () => {
  it('removes only the events a literal comparison holds for, and everything under a fact or an aggregate', () => {
    const [pause, , few] = rules()
    const drop = removalOf(pause, 'safepoint.sync')
    expect(drop({ name: 'safepoint.sync', at: 0, value: 3300, cluster: 'c', source: 's' } as never)).toBe(true)
    expect(drop({ name: 'safepoint.sync', at: 0, value: 500, cluster: 'c', source: 's' } as never)).toBe(false)
    expect(removalOf(few, 'group.rebalance')({ name: 'group.rebalance', at: 0, value: 1, cluster: 'c', source: 's' } as never)).toBe(true)
    expect(removalOf(pause, 'zk.cluster_session_loss')({ name: 'zk.disconnected', at: 0, cluster: 'c', source: 's' } as never)).toBe(true)
  })

  it('requires of an or only what every alternative needs', () => {
    const [pause, either] = rules()
    expect([...requiredSignals(pause.when)].sort()).toEqual(['safepoint.sync', 'zk.session_timeout'])
    expect([...requiredSignals(either.when)]).toEqual([])
  })

  it('finds a claim gone when its rule stops firing', async () => {
    const c = await claims('pause')
    expect(c['safepoint.sync']).toMatchObject({ outcome: 'not-fired', removed: 1 })
    expect(c['zk.session_timeout'].outcome).toBe('not-fired')
  })

  it('finds a claim gone when another alternative holds and the sentence changes or rests on other evidence', async () => {
    const c = await claims('either')
    // The text names the sync time; without it the value left the sentence.
    expect(c['safepoint.sync'].outcome).toBe('text-changed')
    expect(c['safepoint.sync'].before).toContain('3.3s')
    expect(c['safepoint.sync'].after).not.toContain('3.3s')
    expect(c['gc.pause'].outcome).toBe('other-evidence')
  })

  it('reports a sentence that still stands with its fact removed', async () => {
    const c = await claims('few_rebalances')
    expect(c['group.rebalance']).toMatchObject({ outcome: 'survived', removed: 1 })
    expect(c['group.rebalance'].after).toBe(c['group.rebalance'].before)
  })

  it('removes a consumer group status at its source: the claimed group\'s commits and its partitions\' log ends, not another group\'s', async () => {
    const parsed = parseRules(
      `rule stopped
  severity critical
  when group.status{status="STOPPED"}
  then cause "Consumer group {group} stopped while {group.status} messages wait"
`,
      'lag.rules',
    )
    const rs = parsed.rules
    // billing stops committing on orders-0 while the log end grows; audit keeps up on payments-0.
    const yaml = `tests:
  - name: x
    interval: 1m
    series:
      - 'partition.log_end{broker="1", topic="orders", partition="0"}: 100+100x30'
      - 'group.commit{broker="1", group="billing", topic="orders", partition="0"}: 100+100x9'
      - 'partition.log_end{broker="1", topic="payments", partition="0"}: 100+100x30'
      - 'group.commit{broker="1", group="audit", topic="payments", partition="0"}: 100+100x30'
    expect:
      - { rule: stopped, broker: "1" }
`
    const file = parseTestFile(yaml, '/t/rules/tests/lag.yaml')
    expect(file.errors).toEqual([])
    const r = await runCase(file.file.tests[0], rs, undefined, { keepSignals: true })
    expect(r.ok).toBe(true)
    const [check] = await checkClaimsOfCase(r, rs, r.signals!)
    // 10 commits of billing and the 31 log ends of orders-0; audit's 31 commits and payments' 31 log ends stay.
    expect(check).toMatchObject({ signal: 'group.status', outcome: 'not-fired', removed: 41 })
  })

  it('knows what every series the engine derives is made of', () => {
    // A derived series has no event of its own in a case's data: a claim on one it cannot trace to
    // its sources would survive every removal unchecked.
    const derived = Object.entries(CATALOGUE).filter(([, e]) => e.kind !== 'fact' && e.doc.startsWith('derived:'))
    expect(derived.length).toBeGreaterThan(0)
    expect(derived.filter(([name]) => !derivedFrom(name)).map(([name]) => name)).toEqual([])
  })

  it('reads an allow-list only with a reason per entry', async () => {
    expect((await readClaimAllowList('rules/tests/claims-allow.yaml')).error).toBeUndefined()
    expect((await readClaimAllowList('/nonexistent/claims-allow.yaml')).entries).toEqual([])
  })

  it('fails a run on a survival, in the report, JUnit and annotations, until the allow-list says why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-why-claims-'))
    try {
      await writeFile(join(dir, 'x.rules'), RULES)
      await writeFile(
        join(dir, 'x.yaml'),
        `tests:\n  - name: stable groups\n    interval: 1s\n    series:\n      - 'zk.session_timeout{broker="1"}: _x10 7768ms'\n      - 'group.rebalance{broker="1",group="g"}: _x8 1'\n    expect:\n      - { rule: few_rebalances, broker: "1" }\n`,
      )
      const plain = await runRuleTests({ paths: [dir] })
      expect(plain.ok).toBe(true)
      const run = await runRuleTests({ paths: [dir], claims: true })
      expect(run.ok).toBe(false)
      expect(renderReport(run, { cwd: dir })).toContain('✗ few_rebalances: claim survived removing every group.rebalance it rests on (1 events)')
      expect(toJUnit(run, dir)).toMatch(/<testcase classname="claims" name="few_rebalances: 2 claims removed"><failure message="claim survived removing group.rebalance">/)
      expect(findingsOfTestRun(run, dir)).toEqual([expect.objectContaining({ file: 'x.yaml', line: 8, code: 'rule-test/claim' })])
      await writeFile(join(dir, 'claims-allow.yaml'), 'allow:\n  - { rule: few_rebalances, signal: group.rebalance, why: "the sentence is about stability: no rebalance is the fact" }\n')
      const allowed = await runRuleTests({ paths: [dir], claims: true })
      expect(allowed.ok).toBe(true)
      expect(renderReport(allowed, { cwd: dir })).toContain('allowed: the sentence is about stability')
      await writeFile(join(dir, 'claims-allow.yaml'), 'allow:\n  - { rule: few_rebalances, signal: group.rebalance }\n')
      const unreasoned = await runRuleTests({ paths: [dir], claims: true })
      expect(unreasoned.ok).toBe(false)
      expect(unreasoned.claims!.allowListError).toContain('non-empty why')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('no shipped rule keeps its sentence when the fact it claims is removed', { timeout: 300_000 }, async () => {
    const run = await runRuleTests({ paths: ['rules/'], claims: true })
    const claims = run.claims!
    expect(claims.allowListError).toBeUndefined()
    const survived = claims.checks.filter((c) => c.outcome === 'survived' && !c.allowed)
    expect(survived.map((c) => `${c.ruleId} without ${c.signal} (${c.test}): ${c.after}`)).toEqual([])
    // Every shipped rule with a passing expect has its claims checked; the rest are listed in docs/rules.md.
    const checked = new Set(claims.checks.filter((c) => c.outcome !== 'unchecked').map((c) => c.ruleId))
    expect(checked.size).toBeGreaterThan(run.rules.length * 0.9)
    expect(renderReport(run)).toMatch(/^claims: \d+ checked over \d+\/\d+ rules/m)
    expect(toJUnit(run)).toContain('<testsuite name="claims"')
  })
})
