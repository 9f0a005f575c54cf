import type { Cond, Rule } from './ast.js'
import type { Diagnostic } from './diagnostics.js'
import { parseFile, type CommentLine } from './parse-file.js'
import { formatCond, PREC } from './format-cond.js'
import { quoteText } from './text.js'

export { formatAtom, formatCond } from './format-cond.js'

/**
 * The one canonical layout of a rule file, so diffs of rules show meaning, not taste:
 *
 *   # doc comment
 *   rule name
 *     severity critical
 *     when <condition on one line>
 *     then cause "…"
 *          advise "…"
 *          runbook "…"
 *          explains a, b
 *          run "…"
 *
 * Unnamed rules start at `when` and carry their severity after their outputs (before `when` it
 * would belong to the previous rule). Severity is written when it is not the default (warning) or
 * was written in the source. A condition too long for one line gets one top-level operand per line. Rules are
 * separated by one blank line; comment blocks that stand apart stay where they are; comments inside
 * a rule move above it, after its doc. A file with syntax errors is returned unchanged.
 */

/** Formats one rule (with its doc comment) in the canonical layout, without a trailing newline. */
export function formatRule(rule: Rule): string {
  const lines = rule.doc.map((d) => (d === '' ? '#' : `# ${d}`))
  const outputs: string[] = [`cause ${quoteText(rule.cause.raw)}`]
  if (rule.advise) outputs.push(`advise ${quoteText(rule.advise.raw)}`)
  if (rule.runbook) outputs.push(`runbook ${quoteText(rule.runbook.raw)}`)
  if (rule.explains.length) outputs.push(`explains ${rule.explains.map((e) => e.signal).join(', ')}`)
  for (const r of rule.run) outputs.push(`run ${quoteText(r.raw)}`)
  const severity = rule.severity !== 'warning' || rule.severitySpan ? `severity ${rule.severity}` : undefined
  if (rule.name !== undefined) {
    lines.push(`rule ${rule.name}`)
    if (severity) lines.push(`  ${severity}`)
    lines.push(...formatWhen(rule.when, '  '))
  } else {
    lines.push(...formatWhen(rule.when, ''))
    if (severity) outputs.push(severity)
  }
  lines.push(`  then ${outputs[0]}`, ...outputs.slice(1).map((o) => `       ${o}`))
  return lines.join('\n')
}

/** Conditions longer than this go one top-level operand per line. */
export const MAX_WHEN_WIDTH = 100

/**
 * `when` and its condition: one line when it fits, else one operand of the top-level `and`/`or`
 * per line with the operator right-aligned under `when`.
 */
function formatWhen(cond: Cond, indent: string): string[] {
  const one = `${indent}when ${formatCond(cond)}`
  if (one.length <= MAX_WHEN_WIDTH || (cond.kind !== 'and' && cond.kind !== 'or')) return [one]
  const minPrec = cond.kind === 'and' ? PREC.not : PREC.and
  const pad = indent + ' '.repeat(4 - cond.kind.length)
  return cond.operands.map((o, i) => (i === 0 ? `${indent}when ` : `${pad}${cond.kind} `) + formatCond(o, minPrec))
}

/** Formats a file's text; unchanged text comes back when the file has syntax errors. */
export function formatRules(text: string, file: string): { text: string; diagnostics: Diagnostic[] } {
  try {
    return formatParsed(text, file)
  } catch (err) {
    const span = { file, startLine: 1, startCol: 1, endLine: 1, endCol: 2, startOffset: 0, endOffset: 1 }
    return { text, diagnostics: [{ code: 'DSL003', severity: 'error', message: `the formatter failed on this file: ${(err as Error).message}`, span }] }
  }
}

function formatParsed(text: string, file: string): { text: string; diagnostics: Diagnostic[] } {
  const parsed = parseFile(text, file)
  if (parsed.syntaxErrors) return { text, diagnostics: parsed.diagnostics }
  const docLines = new Set<number>()
  const inside = new Map<number, CommentLine[]>()
  for (const [i, p] of parsed.rules.entries()) {
    for (let k = 1; k <= p.rule.doc.length; k++) docLines.add(p.startLine - k)
    for (const c of parsed.comments) if (c.line >= p.startLine && c.line <= p.endLine) inside.set(i, [...(inside.get(i) ?? []), c])
  }
  type Item = { line: number; text: string }
  const items: Item[] = []
  let block: CommentLine[] = []
  const flush = () => {
    if (block.length) items.push({ line: block[0].line, text: block.map((c) => (c.text === '' ? '#' : `# ${c.text}`)).join('\n') })
    block = []
  }
  const insideLines = new Set([...inside.values()].flat().map((c) => c.line))
  for (const c of parsed.comments) {
    if (docLines.has(c.line) || insideLines.has(c.line)) continue
    if (block.length && block[block.length - 1].line !== c.line - 1) flush()
    block.push(c)
  }
  flush()
  for (const [i, p] of parsed.rules.entries()) {
    const extra = (inside.get(i) ?? []).map((c) => c.text)
    const rule = extra.length ? { ...p.rule, doc: [...p.rule.doc, ...extra] } : p.rule
    items.push({ line: p.startLine - p.rule.doc.length, text: formatRule(rule) })
  }
  items.sort((a, b) => a.line - b.line)
  const out = items.map((i) => i.text).join('\n\n')
  return { text: out ? `${out}\n` : '', diagnostics: parsed.diagnostics }
}
