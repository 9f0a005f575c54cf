import { writeFile } from 'node:fs/promises'
import { findingsOfTestRun } from '../annotations/finding.js'
import { renderFindings } from '../annotations/render.js'
import { toJUnit } from '../rule-test/junit.js'
import { renderReport } from '../rule-test/report.js'
import { checkTestPaths, runRuleTests } from '../rule-test/run-tests.js'
import { DEFAULT_RULES_PATH, resolveRulesPath } from '../../rule-files/load-rules.js'
import { checkRulePaths } from '../rule-paths.js'
import type { TEST_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/**
 * `kafka-why test [paths…] [--rules PATH]… [--format …] [--junit FILE] [--verbose] [--claims]`: replays recorded incidents and
 * inline timelines through the real engine and checks which rules fire and which must not, so a rule
 * change is proven in CI. Exit codes: 0 all passed, 1 a test failed (or rules/tests did not load), 2 usage.
 */

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('test', argv)

/** The subcommand: runs the tests, prints the report, writes JUnit, returns the exit code. */
export async function execute({ args: paths, options }: CommandInput<typeof TEST_OPTIONS>): Promise<number> {
  const { rules, junit, verbose, format, claims } = options
  // No path: ./rules when the working directory has one, else the rule pack shipped with the package.
  const testPaths = paths.length ? paths : [resolveRulesPath(DEFAULT_RULES_PATH)]
  await checkRulePaths(rules, '--rules')
  await checkTestPaths(testPaths)
  const result = await runRuleTests({ paths: testPaths, rules, claims: claims === true })
  if (format === 'text') console.log(renderReport(result, { verbose }))
  else if (format === 'json') console.log(JSON.stringify(findingsOfTestRun(result), null, 2))
  else {
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

