import { readFile, writeFile } from 'node:fs/promises'
import { diagnosticsToJson, formatRules, renderDiagnostics, type Diagnostic } from '../../dsl/index.js'
import { SYNTAX_CODES } from '../../dsl/parse-file.js'
import { DEFAULT_RULES_PATH, findRuleFiles } from '../../rule-files/load-rules.js'

/**
 * `kafka-why fmt [--check | --stdout] [paths…]`: one canonical layout for rule files, so reviews
 * see meaning rather than spacing. Rewrites files in place by default; files with syntax errors are
 * never touched. Exit codes: 0 done (or already formatted), 1 a file is not formatted under
 * --check or has syntax errors, 2 bad usage.
 */

const USAGE = `usage: kafka-why fmt [--check | --stdout] [--format text|json] [files|dirs…]

Rewrites rule files in the canonical layout (directories are searched for *.rules; default ${DEFAULT_RULES_PATH}).
  --check     change nothing; list files that are not formatted and exit 1 if any
  --stdout    print the formatted text instead of rewriting
  --format json   print syntax diagnostics as JSON
Files with syntax errors are left unchanged and reported; exit code 1.`

/** Runs fmt; returns the exit code (the dispatcher in cli/main.ts sets it). */
export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE)
    return 0
  }
  let check = false
  let stdout = false
  let json = false
  const paths: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--check') check = true
    else if (a === '--stdout') stdout = true
    else if (a === '--format' || a.startsWith('--format=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]
      if (v !== 'text' && v !== 'json') {
        console.error(`kafka-why fmt: --format must be text or json\n\n${USAGE}`)
        return 2
      }
      json = v === 'json'
    } else if (a.startsWith('-')) {
      console.error(`kafka-why fmt: unknown option '${a}'\n\n${USAGE}`)
      return 2
    } else paths.push(a)
  }
  if (check && stdout) {
    console.error(`kafka-why fmt: --check and --stdout do not combine\n\n${USAGE}`)
    return 2
  }
  const diagnostics: Diagnostic[] = []
  const sources: Record<string, string> = {}
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
