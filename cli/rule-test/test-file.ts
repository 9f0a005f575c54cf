import { dirname, resolve } from 'node:path'
import { ruleTestFileSchema, type RuleTestFileData, type TimeSpec } from '../../file-formats/rule-test-file.js'
import { validateYaml } from '../../file-formats/yaml-validate.js'

/**
 * The rule-test file format (YAML, schema in file-formats/rule-test-file.ts), loaded into plain data
 * with a line number on every test and assertion so a failure points at the line to fix. The format
 * is documented in docs/rules.md's rules section; `rules/tests/*.yaml` are the examples.
 */

export type { TimeSpec }

type CaseData = RuleTestFileData['tests'][number]

/** "This rule fires", with whatever the author wants pinned down; `line` is where it is written. */
export type FireExpectation = NonNullable<CaseData['expect']>[number] & { line: number; col?: number }

/** "This must not fire": a rule, or any cause at or above a severity (`severity: critical` on a control). */
export type AbsentExpectation = NonNullable<CaseData['absent']>[number] & { line: number; col?: number }

/** An inline series line and where it was written. */
export type SeriesSpec = { text: string; line: number }

/** One test case: its data (an incident and/or inline series), its window and its assertions. */
export type RuleTestCase = Pick<CaseData, 'name' | 'cluster' | 'start' | 'at' | 'from' | 'to'> & {
  file: string
  line: number
  /** Incident directories, JSONL files or log files, resolved against the test file. */
  incident: string[]
  series: SeriesSpec[]
  intervalMs: number
  windowMs?: number
  expect: FireExpectation[]
  absent: AbsentExpectation[]
  /**
   * Input that may rightly yield no signal (a healthy corpus excerpt of INFO lines): with nothing loaded
   * the `absent` assertions hold instead of the test failing to load.
   */
  quietWhenEmpty?: boolean
}

/** A loaded test file. */
export type RuleTestFile = {
  file: string
  /** Rule files/dirs this file is about, resolved against it; undefined = the run's rules. */
  rules?: string[]
  tests: RuleTestCase[]
}

/** A problem in a test file: where (line, and column where known), and what. */
export type TestFileError = { file: string; line: number; col?: number; message: string }

const DEFAULT_INTERVAL_MS = 60_000

/** Parses one test file's text. Never throws: problems come back as errors with line and column. */
export function parseTestFile(text: string, file: string): { file: RuleTestFile; errors: TestFileError[] } {
  const out: RuleTestFile = { file, tests: [] }
  const checked = validateYaml(text, file, ruleTestFileSchema)
  if (!checked.ok) {
    return { file: out, errors: checked.problems.map((p) => ({ file, line: p.line, col: p.col, message: p.path ? `${p.path}: ${p.message}` : p.message })) }
  }
  const lineOf = (...path: (string | number)[]) => checked.locate(path).line
  const at = (...path: (string | number)[]) => checked.locate(path)
  const base = dirname(file)
  const data = checked.data
  if (data.rules) out.rules = data.rules.map((p) => resolve(base, p))
  data.tests.forEach((c, i) => {
    const tc: RuleTestCase = {
      name: c.name,
      file,
      line: lineOf('tests', i),
      incident: (c.incident ?? []).map((p) => resolve(base, p)),
      series: (c.series ?? []).map((text, j) => ({ text, line: lineOf('tests', i, 'series', j) })),
      intervalMs: c.interval ?? DEFAULT_INTERVAL_MS,
      expect: (c.expect ?? []).map((e, j) => ({ ...e, ...at('tests', i, 'expect', j) })),
      absent: (c.absent ?? []).map((a, j) => ({ ...a, ...at('tests', i, 'absent', j) })),
    }
    for (const k of ['cluster', 'start', 'at', 'from', 'to'] as const) if (c[k] !== undefined) Object.assign(tc, { [k]: c[k] })
    if (c.window !== undefined) tc.windowMs = c.window
    out.tests.push(tc)
  })
  return { file: out, errors: [] }
}
