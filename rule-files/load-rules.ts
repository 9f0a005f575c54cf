import { readdir, readFile, stat } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkDuplicateNames } from '../dsl/check.js'
import type { Rule, Span } from '../dsl/ast.js'
import type { Diagnostic } from '../dsl/diagnostics.js'
import { parseRules, type ParseOptions } from '../dsl/index.js'
import { MAX_FILE_CHARS } from '../dsl/parse-file.js'
import { diagnostic } from '../dsl/to-ast.js'

/**
 * Reads rule files for every entry point that runs rules (the CLI commands, serve, the bot): files and
 * directories of `*.rules`, recursively, in a stable order, with rule names checked across files.
 * dsl/ never touches the file system; this is the one place that does.
 */

/** Where commands look for rules when none are named. */
export const DEFAULT_RULES_PATH = 'rules/'

/** The rule pack shipped with kafka-why, for an installed package run outside a checkout. */
const BUNDLED_RULES = fileURLToPath(new URL('../rules/', import.meta.url))

/**
 * The default path `rules` means `./rules` when the working directory has one (a team's own pack),
 * else the shipped pack; any other path is taken as given.
 */
export function resolveRulesPath(p: string): string {
  return (p === 'rules' || p === 'rules/') && !existsSync(p) ? BUNDLED_RULES : p
}

/** Files above this size are not read at all (parseRules would refuse them anyway). */
const MAX_READ_BYTES = MAX_FILE_CHARS * 4

function fileSpan(file: string): Span {
  return { file, startLine: 1, startCol: 1, endLine: 1, endCol: 2, startOffset: 0, endOffset: 1 }
}

/** Expands paths to the `*.rules` files under them; explicitly named files are kept whatever their extension. */
export async function findRuleFiles(paths: string[], diagnostics: Diagnostic[] = []): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      const p = join(dir, e.name)
      if (e.isDirectory()) await walk(p)
      else if (e.isFile() && e.name.endsWith('.rules')) found.push(p)
    }
  }
  for (const given of paths) {
    const p = resolveRulesPath(given)
    try {
      const s = await stat(p)
      if (s.isDirectory()) await walk(p)
      else found.push(p)
    } catch (err) {
      diagnostics.push(diagnostic('DSL026', `cannot read '${p}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, fileSpan(p)))
    }
  }
  return [...new Set(found)]
}

/** Reads, parses and checks every rule file under `paths`. Never throws for bad files: they become diagnostics. */
export async function loadRules(paths: string[], options: ParseOptions = {}): Promise<{ rules: Rule[]; diagnostics: Diagnostic[]; sources: Record<string, string> }> {
  const diagnostics: Diagnostic[] = []
  const sources: Record<string, string> = {}
  const rules: Rule[] = []
  for (const file of await findRuleFiles(paths.length ? paths : [DEFAULT_RULES_PATH], diagnostics)) {
    let text: string
    try {
      const s = await stat(file)
      if (s.size > MAX_READ_BYTES) {
        diagnostics.push(diagnostic('DSL009', `rule file is ${(s.size / 1024 / 1024).toFixed(1)} MiB; the limit is ${MAX_FILE_CHARS / 1024 / 1024} MiB`, fileSpan(file), { hint: 'split the rules over several files in a directory' }))
        continue
      }
      text = await readFile(file, 'utf8')
    } catch (err) {
      diagnostics.push(diagnostic('DSL026', `cannot read '${file}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, fileSpan(file)))
      continue
    }
    sources[file] = text
    const parsed = parseRules(text, file, options)
    for (const r of parsed.rules) rules.push(r)
    for (const d of parsed.diagnostics) diagnostics.push(d)
  }
  checkDuplicateNames(rules, diagnostics, { acrossFiles: true })
  return { rules, diagnostics, sources }
}
