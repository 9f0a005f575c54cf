import { readFile, writeFile } from 'node:fs/promises'
import { basename, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Rule } from '../../dsl/ast.js'
import { formatCond, signalsOfRule } from '../../dsl/index.js'
import { loadRules } from '../../rule-files/load-rules.js'

/**
 * The reference of every shipped rule in docs/rules.md, generated from the rule files so it can never
 * drift from them. Run `npx tsx cli/rule-test/gen-reference.ts` after changing a rule (`--check` in CI
 * exits 1 when the page is stale). It rewrites only the block between the generated markers inside
 * the page's rules section.
 */

/** Markers of the generated block; the command is in the marker so a reader of the raw page finds it. */
export const REFERENCE_PAGE = 'docs/rules.md'
export const BEGIN = '<!-- generated:rules-reference (npx tsx cli/rule-test/gen-reference.ts) -->'
export const END = '<!-- /generated:rules-reference -->'
const SECTION_BEGIN = '<!-- section:rules -->'
const SECTION_END = '<!-- /section:rules -->'

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()
}

/** What a rule means: its doc comment, else its cause text. */
function meaning(rule: Rule): string {
  const doc = rule.doc.join(' ').trim()
  return doc || rule.cause.raw
}

/** Markdown tables, one per rule file, in file order. */
export function renderReference(rules: readonly Rule[], cwd = process.cwd()): string {
  const byFile = new Map<string, Rule[]>()
  for (const r of rules) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r])
  const out: string[] = [`${rules.length} rules in ${byFile.size} files.`, '']
  for (const [file, list] of byFile) {
    out.push(`**${basename(file, '.rules')}** (\`${relative(cwd, file) || file}\`)`, '')
    out.push('| rule | severity | what it means | needs | condition |', '|---|---|---|---|---|')
    for (const r of list) {
      const needs = signalsOfRule(r).map((s) => `\`${s}\``).join(', ')
      out.push(`| \`${r.name ?? r.id}\` | ${r.severity} | ${cell(meaning(r))} | ${needs} | \`${cell(formatCond(r.when))}\` |`)
    }
    out.push('')
  }
  return out.join('\n').trimEnd()
}

/** Replaces the generated block inside the rules section; throws when the markers are missing. */
export function spliceReference(readme: string, reference: string): string {
  const s = readme.indexOf(SECTION_BEGIN)
  const e = readme.indexOf(SECTION_END)
  if (s < 0 || e < s) throw new Error(`the page has no ${SECTION_BEGIN} … ${SECTION_END} section`)
  const section = readme.slice(s, e)
  const b = section.indexOf(BEGIN)
  const en = section.indexOf(END)
  if (b < 0 || en < b) throw new Error(`the rules section has no ${BEGIN} … ${END} block`)
  const next = `${section.slice(0, b + BEGIN.length)}\n\n${reference}\n\n${section.slice(en)}`
  return readme.slice(0, s) + next + readme.slice(e)
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check')
  const paths = argv.filter((a) => !a.startsWith('--'))
  const { rules, diagnostics } = await loadRules(paths.length ? paths : ['rules/'])
  const errors = diagnostics.filter((d) => d.severity === 'error')
  if (errors.length) {
    console.error(`rule files have ${errors.length} errors; run kafka-why lint rules/`)
    return 1
  }
  const page = await readFile(REFERENCE_PAGE, 'utf8')
  const next = spliceReference(page, renderReference(rules))
  if (check) {
    if (next !== page) {
      console.error(`${REFERENCE_PAGE}: rules reference is stale: run npx tsx cli/rule-test/gen-reference.ts`)
      return 1
    }
    return 0
  }
  if (next !== page) await writeFile(REFERENCE_PAGE, next)
  console.log(`${REFERENCE_PAGE}: reference of ${rules.length} rules ${next === page ? 'already up to date' : 'rewritten'}`)
  return 0
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2))
