import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../cli/commands/test.js'
import { toJUnit } from '../../cli/rule-test/junit.js'
import { renderReport } from '../../cli/rule-test/report.js'
import { runRuleTests } from '../../cli/rule-test/run-tests.js'

/** A rule PR that breaks a threshold must fail its test, and say why. */
describe('cli/commands/test', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-why-rules-'))
    await cp('rules', dir, { recursive: true, filter: (src) => !src.includes('tests') })
    const file = join(dir, 'jvm.rules')
    const text = await readFile(file, 'utf8')
    const broken = text.replace('when zk.session_timeout within 5s of safepoint.sync > 33% of zk.session_timeout_limit', 'when zk.session_timeout within 5s of safepoint.sync > 100% of zk.session_timeout_limit')
    expect(broken).not.toBe(text)
    await writeFile(file, broken)
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('fails seed 000 with what fired, what was expected and the nearest miss', async () => {
    const result = await runRuleTests({ paths: ['rules/tests/jvm.yaml'], rules: [dir] })
    expect(result.ok).toBe(false)
    const failed = result.files.flatMap((f) => f.cases.filter((c) => !c.ok))
    expect(failed.map((c) => c.test.name)).toEqual(['seed 000 ranks the safepoint stall first on broker 1', 'the same pause against a 6 s session names the pause and the timeout'])
    const report = renderReport(result)
    expect(report).toContain('rules/tests/jvm.yaml:7: expect stw_pause_session_expiry on broker 1 at rank 1 as critical: FAILED')
    expect(report).toContain('did not fire on broker 1')
    expect(report).toMatch(/what fired instead:\n\s+1\. not_leader_errors \[info/)
    expect(report).toMatch(/nearest miss: .*no safepoint\.sync > 100% of zk\.session_timeout_limit within 5s \(the nearest safepoint sync was 3\.3s/)
    const n = result.files[0].cases.length
    expect(n).toBeGreaterThan(1)
    expect(report).toContain(`FAIL: ${n - 2} passed, 2 failed`)
    const xml = toJUnit(result)
    expect(xml).toMatch(/<testcase classname="rules\/tests\/jvm.yaml" name="seed 000 ranks the safepoint stall first on broker 1"[^>]*><failure message="expect stw_pause_session_expiry on broker 1 at rank 1 as critical">/)
    expect(xml).toContain('no safepoint.sync &gt; 100% of zk.session_timeout_limit within 5s')
    expect((xml.match(/<testcase /g) ?? []).length).toBe(n)
    expect((xml.match(/<failure /g) ?? []).length).toBe(2)
  })

  it.each([
    [['rules/tests/jvm.yaml'], 0],
    [['rules/tests/jvm.yaml', '--rules', '__DIR__'], 1],
    [['--junit'], 2],
    [['--frobnicate'], 2],
    // A missing path, or one with no rule tests, is bad usage (exit 2) for every command.
    [['rules/tests/no-such-file.yaml'], 2],
    [['signals'], 2],
  ])('exit code of kafka-why test %j is %i', async (argv, code) => {
    const log = console.log
    const err = console.error
    console.log = () => {}
    console.error = () => {}
    try {
      expect(await run(argv.map((a) => (a === '__DIR__' ? dir : a)))).toBe(code)
    } finally {
      console.log = log
      console.error = err
    }
  })
})
