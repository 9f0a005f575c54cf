import { dirname } from 'node:path'
import { readCase } from '../corpus/corpus-case.js'
import type { RuleTestFile, TestFileError } from './test-file.js'

/**
 * A real-incident corpus case (`case.yaml` beside its published lines) read as a rule test, so
 * `kafka-why test test/corpus` checks each case with the same engine run, report, annotations and JUnit
 * as any rule test: a failure case expects its rule first for its broker, a healthy case expects
 * nothing at warning or above. The case file stays the one place the expectation is written.
 */
export async function corpusCaseTest(file: string): Promise<{ file: RuleTestFile; errors: TestFileError[] }> {
  const c = await readCase(dirname(file))
  if ('message' in c) return { file: { file, tests: [] }, errors: [{ file, line: 1, message: c.message }] }
  const base = { file, line: 1, incident: [c.dir], series: [], intervalMs: 60_000 }
  const test = c.healthy
    ? { ...base, name: `corpus ${c.id}: nothing at warning or above on broker ${c.broker}`, expect: [], absent: [{ severity: 'warning' as const, broker: c.broker, line: 1 }], quietWhenEmpty: true }
    : { ...base, name: `corpus ${c.id}: ${c.expect} first on broker ${c.broker}`, expect: [{ rule: c.expect!, broker: c.broker, rank: 1, line: 1 }], absent: [] }
  return { file: { file, tests: [test] }, errors: [] }
}
