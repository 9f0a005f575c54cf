import { describe, expect, it } from 'vitest'
import { parseTestFile } from '../../cli/rule-test/test-file.js'

const GOOD = `tests:
  - name: seed 000
    incident: ../incidents/seed-000
    window: 1h
    expect:
      - { rule: stw_pause_session_expiry, broker: 1, rank: 1, between: [2018-08-13T22:16:06-04:00, 10m] }
    absent:
      - severity: critical
        broker: "2"
`

describe('cli/rule-test/test-file', () => {
  it('reads a test case with line numbers and resolved paths', () => {
    const { file, errors } = parseTestFile(GOOD, '/repo/rules/tests/jvm.yaml')
    expect(errors).toEqual([])
    const [tc] = file.tests
    expect(tc).toMatchObject({ name: 'seed 000', line: 2, incident: ['/repo/rules/incidents/seed-000'], windowMs: 3_600_000 })
    expect(tc.expect[0]).toMatchObject({ rule: 'stw_pause_session_expiry', broker: '1', rank: 1, line: 6 })
    expect(tc.expect[0].between).toEqual([{ abs: Date.parse('2018-08-13T22:16:06-04:00') }, { rel: 600_000 }])
    expect(tc.absent[0]).toMatchObject({ severity: 'critical', broker: '2', line: 8 })
  })

  it.each([
    ['tests:\n  - name: x\n    series: ["isr.shrink: 1"]\n', 2, 'asserts nothing'],
    ['tests:\n  - series: ["isr.shrink: 1"]\n    absent: [{ rule: r }]\n', 2, 'needs a `name:`'],
    ['tests:\n  - name: x\n    absent: [{ rule: r }]\n', 2, 'needs `incident:` or `series:`'],
    ['tests:\n  - name: x\n    series: ["isr.shrink: 1"]\n    expect:\n      - { rule: r, severity: fatal }\n', 5, 'info, warning or critical'],
    ['tests:\n  - name: x\n    series: ["isr.shrink: 1"]\n    at: yesterday\n    absent: [{ rule: r }]\n', 4, '`at:` is a date-time'],
    ['tests:\n  - name: x\n    serie: ["isr.shrink: 1"]\n', 3, 'tests[0].serie: unknown key (known: name, incident, series'],
    ['tests: [\n', 1, 'end with a ]'],
    ['- just a list\n', 1, 'a mapping with a `tests:` list'],
  ])('reports a bad file with its line (%#)', (text, line, message) => {
    const { errors } = parseTestFile(text, 't.yaml')
    expect(errors.length).toBeGreaterThan(0)
    const hit = errors.find((e) => e.message.includes(message))
    expect(hit, JSON.stringify(errors)).toBeDefined()
    expect(hit!.line).toBe(line)
  })

  it('places a bad value at its column, under its key path', () => {
    const { errors } = parseTestFile('tests:\n  - name: x\n    series: ["isr.shrink: 1"]\n    expect:\n      - { rule: r, severity: fatal }\n', 't.yaml')
    expect(errors).toEqual([{ file: 't.yaml', line: 5, col: 30, message: 'tests[0].expect[0].severity: `severity:` is info, warning or critical' }])
  })
})
