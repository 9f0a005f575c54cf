import { readFile, writeFile } from 'node:fs/promises'
import { diagnosticsToJson, formatRules, renderDiagnostics, type Diagnostic } from '../../dsl/index.js'
import { SYNTAX_CODES } from '../../dsl/parse-file.js'
import { DEFAULT_RULES_PATH, findRuleFiles } from '../../rule-files/load-rules.js'
import type { FMT_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { checkRulePaths } from '../rule-paths.js'

/**
 * `kafka-why fmt [--check | --stdout] [paths…]`: one canonical layout for rule files, so reviews
 * see meaning rather than spacing. Rewrites files in place by default; files with syntax errors are
 * never touched. Exit codes: 0 done (or already formatted), 1 a file is not formatted under
 * --check or has syntax errors, 2 bad usage.
 */

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('fmt', argv)

/** Runs fmt; returns the exit code. */
export async function execute({ args: paths, options }: CommandInput<typeof FMT_OPTIONS>): Promise<number> {
  const { check, stdout } = options
  const json = options.format === 'json'
  const diagnostics: Diagnostic[] = []
  const sources: Record<string, string> = {}
  await checkRulePaths(paths.length ? paths : [DEFAULT_RULES_PATH])
  const files = await findRuleFiles(paths.length ? paths : [DEFAULT_RULES_PATH], diagnostics)
  let failed = diagnostics.length > 0
  const unformatted: string[] = []
  for (const file of files) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (err) {
      console.error(`kafka-why fmt: cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
      failed = true
      continue
    }
    sources[file] = text
    const result = formatRules(text, file)
    const syntax = result.diagnostics.filter((d) => SYNTAX_CODES.has(d.code))
    if (syntax.length) {
      for (const d of syntax) diagnostics.push(d)
      failed = true
      continue
    }
    if (stdout) {
      process.stdout.write(result.text)
      continue
    }
    if (result.text === text) continue
    unformatted.push(file)
    if (!check) await writeFile(file, result.text)
  }
  if (json) console.log(diagnosticsToJson(diagnostics))
  else if (diagnostics.length) console.error(renderDiagnostics(diagnostics, sources))
  if (!stdout) {
    const say = json ? console.error : console.log
    for (const f of unformatted) say(check ? `not formatted: ${f}` : `formatted ${f}`)
  }
  return failed || (check && unformatted.length > 0) ? 1 : 0
}
