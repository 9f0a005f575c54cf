import { diagnosticsToJson, hasErrors, renderDiagnostics } from '../../dsl/index.js'
import { findingsOfDiagnostics } from '../annotations/finding.js'
import { isAnnotationFormat, renderFindings } from '../annotations/render.js'
import { readQuantity } from '../../dsl/quantity.js'
import { DEFAULT_RULES_PATH, loadRules } from '../../rule-files/load-rules.js'

/**
 * `kafka-why lint [--format text|json|github|sarif|checkstyle] [--retention 7d] [paths…]`: every lexer, parser and
 * semantic problem in the rule files, so CI fails before a bad rule reaches the bot.
 * Exit codes: 0 no errors (warnings allowed), 1 errors, 2 bad usage.
 */

const USAGE = `usage: kafka-why lint [--format text|json|github|sarif|checkstyle] [--retention DURATION] [files|dirs…]

Checks rule files (directories are searched for *.rules; default ${DEFAULT_RULES_PATH}).
  --format json        print diagnostics as a JSON array
  --format github      GitHub Actions annotations (::error file=…,line=…,col=…::…)
  --format sarif       SARIF 2.1.0 (for code-scanning uploads)
  --format checkstyle  Checkstyle XML
  --retention 7d       also report windows longer than the store's retention (DSL021)
Exit codes: 0 clean (warnings allowed), 1 errors found, 2 bad usage.`

/** Parsed command line shared by lint and fmt: flags, their values, and the remaining paths. */
export type LintArgs = { format: 'text' | 'json' | 'github' | 'sarif' | 'checkstyle'; retentionMs?: number; paths: string[] }

/** Reads lint's command line, or returns a usage error text. */
export function parseLintArgs(argv: string[]): LintArgs | { error: string } {
  const args: LintArgs = { format: 'text', paths: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = (): string | undefined => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i])
    if (a === '--format' || a.startsWith('--format=')) {
      const v = value()
      if (v !== 'text' && v !== 'json' && !isAnnotationFormat(v)) return { error: `--format must be text, json, github, sarif or checkstyle, not '${v ?? ''}'` }
      args.format = v
    } else if (a === '--retention' || a.startsWith('--retention=')) {
      const v = value() ?? ''
      const q = readQuantity(v)
      if ('message' in q || q.dimension !== 'duration') return { error: `--retention needs a duration such as 7d, not '${v}'` }
      args.retentionMs = q.value
    } else if (a.startsWith('-') && a !== '-') {
      return { error: `unknown option '${a}'` }
    } else args.paths.push(a)
  }
  return args
}

/** Runs lint; returns the exit code (the dispatcher in cli/main.ts sets it). */
export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE)
    return 0
  }
  const args = parseLintArgs(argv)
  if ('error' in args) {
    console.error(`kafka-why lint: ${args.error}\n\n${USAGE}`)
    return 2
  }
  const { rules, diagnostics, sources } = await loadRules(args.paths, { retentionMs: args.retentionMs })
  if (args.format === 'json') {
    console.log(diagnosticsToJson(diagnostics))
  } else if (isAnnotationFormat(args.format)) {
    const out = renderFindings(args.format, findingsOfDiagnostics(diagnostics), 'kafka-why lint')
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
