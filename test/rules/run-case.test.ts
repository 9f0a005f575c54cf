import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Rule } from '../../dsl/ast.js'
import { parseRules } from '../../dsl/index.js'
import { runCase } from '../../cli/rule-test/run-case.js'
import { parseTestFile } from '../../cli/rule-test/test-file.js'

const RULES = `
rule stw
  severity critical
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "pause of {safepoint.sync}"
rule old_broker
  severity info
  when broker.version < 2.2.1
  then cause "old {broker.version}"
`

function cases(yaml: string, file = '/t/rules/tests/x.yaml') {
  const parsed = parseTestFile(yaml, file)
  expect(parsed.errors).toEqual([])
  return parsed.file.tests
}

describe('cli/rule-test/run-case', () => {
  let rules: Rule[]
  let dir: string
  beforeAll(async () => {
    const parsed = parseRules(RULES, 'test.rules')
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    rules = parsed.rules
    dir = await mkdtemp(join(tmpdir(), 'kafka-why-case-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const series = `
    interval: 1s
    series:
      - 'safepoint.sync{broker="1"}: _x9 3300ms'
      - 'zk.session_timeout{broker="1"}: _x10 7768ms'`

  it.each([
    ['the whole series', '', true],
    ['up to before the pause', '\n    to: 5s', false],
    ['a window that ends before the timeout', '\n    from: 0s\n    to: 9s', false],
    ['the last second only', '\n    window: 1s', true],
  ])('sees the pause over %s', async (_, window, fires) => {
    const [tc] = cases(`tests:\n  - name: x${series}${window}\n    expect:\n      - { rule: stw, broker: "1", between: [9s, 10s], cause: "3.3s" }\n`)
    const r = await runCase(tc, rules)
    expect(r.ok).toBe(fires)
    if (!fires) expect(r.assertions[0].detail).toContain('did not fire on broker 1')
  })

  it('knows a fact only from the time it was recorded (at)', async () => {
    const [before, after] = cases(`tests:
  - name: before
    interval: 1m
    series: ['broker.version{broker="3"}: _x5 0.10.2.1', 'request_handler.idle{broker="3"}: 0.5x9']
    at: 2m
    absent: [{ rule: old_broker }]
  - name: after
    interval: 1m
    series: ['broker.version{broker="3"}: _x5 0.10.2.1', 'request_handler.idle{broker="3"}: 0.5x9']
    expect: [{ rule: old_broker, cause: "old 0.10.2.1" }]
`)
    expect((await runCase(before, rules)).ok).toBe(true)
    expect((await runCase(after, rules)).ok).toBe(true)
  })

  it('reports an absence that fired with its evidence', async () => {
    const [tc] = cases(`tests:\n  - name: x${series}\n    absent:\n      - severity: critical\n`)
    const r = await runCase(tc, rules)
    expect(r.ok).toBe(false)
    expect(r.assertions[0].title).toBe('absent anything critical')
    expect(r.assertions[0].detail).toMatch(/fired on broker 1: 1\. stw \[critical, score [\d.]+\] at 1970-01-01T00:00:10\.000Z: pause of 3\.3s\n\s+evidence: 1970-01-01T00:00:09\.000Z safepoint\.sync = 3\.3s/)
  })

  it.each([
    ['a missing incident directory', `incident: ../no-such-incident`, /incident not found: .*no-such-incident/],
    ['a bad series value', `series: ['safepoint.sync{broker="1"}: 0 3.3GiB']`, /series at .*x\.yaml:\d+:\d+: '3\.3GiB' is a bytes, but this signal is measured in duration/],
    ['a JSONL file of bad lines only', `incident: bad.jsonl`, /loaded no signals at all: 2 input lines not understood/],
  ])('fails %s with a clear message instead of crashing', async (_, source, message) => {
    await writeFile(join(dir, 'bad.jsonl'), '{"name":"safepoint.sync"}\nnot json\n')
    const [tc] = cases(`tests:\n  - name: x\n    ${source}\n    absent: [{ rule: stw }]\n`, join(dir, 'x.yaml'))
    const r = await runCase(tc, rules)
    expect(r.ok).toBe(false)
    expect(r.assertions.map((a) => a.detail).join('\n')).toMatch(message)
  })
})
