import { diagnosticsToJson, hasErrors, renderDiagnostics } from '../../dsl/index.js'
import { findingsOfDiagnostics } from '../annotations/finding.js'
import { isAnnotationFormat, renderFindings } from '../annotations/render.js'
import { readQuantity } from '../../dsl/quantity.js'
import { DEFAULT_RULES_PATH, loadRules } from '../../rule-files/load-rules.js'
import type { LINT_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { checkRulePaths } from '../rule-paths.js'
import { UsageError } from '../usage-error.js'

/**
 * `kafka-why lint [--format text|json|github|sarif|checkstyle] [--retention 7d] [paths…]`: every lexer, parser and
 * semantic problem in the rule files, so CI fails before a bad rule reaches the bot.
 * Exit codes: 0 no errors (warnings allowed), 1 errors, 2 bad usage.
 */

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('lint', argv)

/** Runs lint; returns the exit code. */
export async function execute({ args, options }: CommandInput<typeof LINT_OPTIONS>): Promise<number> {
  let retentionMs: number | undefined
  if (options.retention !== undefined) {
    const q = readQuantity(options.retention)
    if ('message' in q || q.dimension !== 'duration') throw new UsageError(`--retention needs a duration such as 7d, not '${options.retention}'`)
    retentionMs = q.value
  }
  await checkRulePaths(args.length ? args : [DEFAULT_RULES_PATH])
  const { rules, diagnostics, sources } = await loadRules(args, { retentionMs })
  if (options.format === 'json') {
    console.log(diagnosticsToJson(diagnostics))
  } else if (isAnnotationFormat(options.format)) {
    const out = renderFindings(options.format, findingsOfDiagnostics(diagnostics), 'kafka-why lint')
    if (out) console.log(out)
  } else {
    if (diagnostics.length) console.log(renderDiagnostics(diagnostics, sources))
    const errors = diagnostics.filter((d) => d.severity === 'error').length
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length
    const files = Object.keys(sources).length
    console.log(`${files} file${files === 1 ? '' : 's'}, ${rules.length} rule${rules.length === 1 ? '' : 's'}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`)
  }
  return hasErrors(diagnostics) ? 1 : 0
}
