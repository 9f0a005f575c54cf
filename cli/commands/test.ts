import { writeFile } from 'node:fs/promises'
import { findingsOfTestRun } from '../annotations/finding.js'
import { isAnnotationFormat, renderFindings } from '../annotations/render.js'
import { toJUnit } from '../rule-test/junit.js'
import { renderReport } from '../rule-test/report.js'
import { runRuleTests } from '../rule-test/run-tests.js'

/**
 * `kafka-why test [paths…] [--rules PATH]… [--format …] [--junit FILE] [--verbose]`: replays recorded incidents and
 * inline timelines through the real engine and checks which rules fire and which must not, so a rule
 * change is proven in CI. Exit codes: 0 all passed, 1 a test failed (or rules/tests did not load), 2 usage.
 */

const USAGE = `usage: kafka-why test [paths…] [--rules PATH]… [--format FORMAT] [--junit FILE] [--verbose]

Runs rule tests (YAML files with a top-level \`tests:\`; directories are searched, default rules/).
Rules under test are the *.rules files found in the same paths (default rules/); --rules overrides.
  --rules PATH     rule file or directory to test instead (repeatable)
  --format FORMAT  text (default); json: every failure with file, line, col; github: GitHub Actions
                   annotations; sarif: SARIF 2.1.0; checkstyle: Checkstyle XML
  --junit FILE     also write a JUnit XML report
  --verbose        per-rule coverage table and input notes for passing tests
Exit codes: 0 all passed, 1 failures, 2 bad usage.`

/** The subcommand: parses flags, runs the tests, prints the report, writes JUnit, returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const paths: string[] = []
  const rules: string[] = []
  let junit: string | undefined
  let verbose = false
  let format = 'text'
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = (): string | undefined => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i])
    if (a === '--help' || a === '-h') {
      console.log(USAGE)
      return 0
    } else if (a === '--junit' || a.startsWith('--junit=')) {
      junit = value()
      if (!junit) return usage('--junit needs a file name')
    } else if (a === '--format' || a.startsWith('--format=')) {
      format = value() ?? ''
      if (format !== 'text' && format !== 'json' && !isAnnotationFormat(format)) return usage(`--format must be text, json, github, sarif or checkstyle, not '${format}'`)
    } else if (a === '--rules' || a.startsWith('--rules=')) {
      const v = value()
      if (!v) return usage('--rules needs a path')
      rules.push(v)
    } else if (a === '--verbose' || a === '-v') verbose = true
    else if (a.startsWith('-')) return usage(`unknown option '${a}'`)
    else paths.push(a)
  }
  const result = await runRuleTests({ paths: paths.length ? paths : ['rules/'], rules })
  if (format === 'text') console.log(renderReport(result, { verbose }))
  else if (format === 'json') console.log(JSON.stringify(findingsOfTestRun(result), null, 2))
  else if (isAnnotationFormat(format)) {
    const out = renderFindings(format, findingsOfTestRun(result), 'kafka-why test')
    if (out) console.log(out)
  }
  if (junit) {
    try {
      await writeFile(junit, toJUnit(result))
    } catch (err) {
      console.error(`kafka-why test: cannot write ${junit}: ${(err as Error).message}`)
      return 1
    }
  }
  return result.ok ? 0 : 1
}

function usage(message: string): number {
  console.error(`kafka-why test: ${message}\n\n${USAGE}`)
  return 2
}
