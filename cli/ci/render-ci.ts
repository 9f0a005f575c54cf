import type { Evidence } from '../../engine/diagnosis.js'
import type { AlertEpisode, RuleBacktest } from '../../engine/backtest.js'
import { codeTitle, type Finding } from '../annotations/finding.js'
import type { CiReport } from './run-ci.js'

/**
 * `kafka-why ci`'s report for people: plain text for a terminal, Markdown for a pull-request comment.
 * Text from brokers (cause text, evidence lines) is data: in Markdown it goes into code spans and
 * fences that it cannot close, and table cells are escaped, so a log line never becomes markup.
 */

/** How many example alerts and evidence lines a rule's section shows. */
const EXAMPLES = 3
const EVIDENCE_LINES = 3

/** ISO time without milliseconds, UTC. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`
  return `${(ms / 60_000).toFixed(1)} min`
}

function span(ms: number): string {
  const d = ms / 86_400_000
  return d >= 1 ? `${d.toFixed(d >= 10 ? 0 : 1)} days` : duration(ms)
}

function where(e: AlertEpisode): string {
  const labels = Object.entries(e.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  return `${e.cluster}/${e.broker ?? '-'}${labels ? ` {${labels}}` : ''}`
}

function evidenceLine(ev: Evidence): string {
  const text = ev.text ?? `${ev.signal}${ev.valueText ? ` = ${ev.valueText}` : ''}`
  return `${iso(ev.at)} ${ev.broker !== undefined ? `broker ${ev.broker} ` : ''}${text}`.replace(/[\r\n]+/g, ' ')
}

function findingLine(f: Finding): string {
  return `${f.file}:${f.line}:${f.col} ${f.severity} ${f.code} ${f.message.split('\n')[0]}`
}

function changesOf(r: RuleBacktest): string {
  const parts: string[] = []
  if (r.newlyFiring.length) parts.push(`${r.newlyFiring.length} newly firing`)
  if (r.stoppedFiring.length) parts.push(`${r.stoppedFiring.length} no longer firing`)
  if (r.severityChanged.length) parts.push(`${r.severityChanged.length} with another severity`)
  return parts.length ? parts.join(', ') : 'no difference'
}

/** The report for a terminal. */
export function renderCiText(r: CiReport): string {
  const out: string[] = [`kafka-why ci: changes since ${r.base} (merge base ${r.mergeBase})`]
  out.push(`changed rule files: ${r.changedRuleFiles.map((c) => (c.from ? `${c.from} → ${c.path}` : `${c.path} (${c.status})`)).join(', ') || 'none'}`)
  if (r.changedTestFiles.length) out.push(`changed test files: ${r.changedTestFiles.map((c) => c.path).join(', ')}`)
  const errors = r.lint.filter((f) => f.severity === 'error').length
  out.push('', `lint: ${errors} error${errors === 1 ? '' : 's'}, ${r.lint.length - errors} other finding${r.lint.length - errors === 1 ? '' : 's'}`)
  for (const f of r.lint) out.push(`  ${findingLine(f)}`)
  out.push(`fmt --check: ${r.unformatted.length ? `not formatted: ${r.unformatted.join(', ')}` : 'ok'}`)
  out.push(`tests: ${r.tests.note ?? `${r.tests.passed} passed, ${r.tests.failed} failed (${r.tests.files.join(', ')})`}`)
  if (r.tests.leftOut.length) out.push(`  rule files left out of the tests (lint errors): ${r.tests.leftOut.join(', ')}`)
  for (const f of r.tests.failures) out.push(`  ${findingLine(f)}`)
  out.push('', 'changed rules:')
  for (const c of r.rules) out.push(`  ${c.status.padEnd(7)} ${c.rule} (${c.file}:${c.line})${c.notBacktested ? ` — not backtested: ${c.notBacktested}` : ''}`)
  if (r.rules.length === 0) out.push('  none')
  if (!r.backtest) {
    out.push('', `backtest: ${r.noBacktest}`)
    return out.join('\n')
  }
  const b = r.backtest
  out.push('', `backtest over ${b.source}, ${iso(b.from)} to ${iso(b.to)} (${span(b.to - b.from)}): ${b.signalsRead.toLocaleString('en-US')} signals read in ${b.windows} window${b.windows === 1 ? '' : 's'}, took ${duration(b.tookMs)}`)
  for (const x of b.rules) {
    out.push(`  ${x.rule}: ${x.base} alert${x.base === 1 ? '' : 's'} before, ${x.head} after — ${changesOf(x)}`)
    const show = (label: string, list: AlertEpisode[]) => {
      for (const e of list.slice(0, EXAMPLES)) {
        out.push(`    ${label} ${iso(e.evidenceAt)} ${e.severity} ${where(e)}: ${e.cause}`)
        for (const ev of e.evidence.slice(0, EVIDENCE_LINES)) out.push(`        ${evidenceLine(ev)}`)
      }
      if (list.length > EXAMPLES) out.push(`    … ${list.length - EXAMPLES} more`)
    }
    show('+', x.newlyFiring)
    show('-', x.stoppedFiring)
    for (const p of x.severityChanged.slice(0, EXAMPLES)) out.push(`    ~ ${iso(p.head.evidenceAt)} ${where(p.head)}: ${p.base.severity} → ${p.head.severity}`)
  }
  return out.join('\n')
}

/** A table cell: no pipes or line breaks of its own. */
function cell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ')
}

/** Inline code that its content cannot close. */
function code(s: string): string {
  const text = s.replace(/[\r\n]+/g, ' ')
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length))
  const fence = '`'.repeat(longest + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** A fenced block its content cannot close. */
function block(lines: string[]): string[] {
  const longest = Math.max(2, ...lines.flatMap((l) => (l.match(/`+/g) ?? []).map((m) => m.length)))
  const fence = '`'.repeat(longest + 1)
  return [fence, ...lines, fence]
}

/** The report as a pull-request comment (GitHub- and GitLab-flavoured Markdown). */
export function renderCiMarkdown(r: CiReport): string {
  const errors = r.lint.filter((f) => f.severity === 'error').length
  const failed = errors > 0 || r.unformatted.length > 0 || r.tests.failed > 0
  const out: string[] = [`### kafka-why ci: ${failed ? '❌ checks failed' : '✅ checks passed'}`, '']
  out.push(`Rule changes since ${code(r.base)} (merge base ${code(r.mergeBase)}).`, '')
  out.push('| check | result |', '|---|---|')
  out.push(`| lint | ${errors ? `**${errors} error${errors === 1 ? '' : 's'}**` : 'no errors'}${r.lint.length - errors ? `, ${r.lint.length - errors} warning${r.lint.length - errors === 1 ? '' : 's'}` : ''} |`)
  out.push(`| fmt --check | ${r.unformatted.length ? `**not formatted:** ${r.unformatted.map(code).join(', ')}` : 'formatted'} |`)
  out.push(`| tests | ${r.tests.note ?? `${r.tests.failed ? `**${r.tests.failed} failed**, ` : ''}${r.tests.passed} passed (${r.tests.files.map(code).join(', ')})`} |`)
  out.push('')
  if (r.lint.length) {
    out.push('<details open><summary>Lint findings</summary>', '')
    out.push(...block(r.lint.map((f) => `${findingLine(f)}${f.hint ? ` (hint: ${f.hint})` : ''}`)))
    out.push('', '</details>', '')
  }
  if (r.tests.failures.length) {
    out.push('<details><summary>Test failures</summary>', '')
    out.push(...block(r.tests.failures.flatMap((f) => [`${f.file}:${f.line}:${f.col} ${codeTitle(f.code)}`, ...f.message.split('\n').map((l) => `  ${l}`)])))
    out.push('', '</details>', '')
  }
  if (r.tests.leftOut.length) out.push(`Rule files with lint errors were left out of the test run: ${r.tests.leftOut.map(code).join(', ')}.`, '')
  out.push('#### Changed rules', '')
  if (r.rules.length === 0) out.push('No rule changed.', '')
  else {
    out.push('| rule | change | file | severity |', '|---|---|---|---|')
    for (const c of r.rules) {
      const sev = c.severity.base && c.severity.head && c.severity.base !== c.severity.head ? `${c.severity.base} → ${c.severity.head}` : (c.severity.head ?? c.severity.base ?? '')
      out.push(`| ${code(c.rule)} | ${c.status}${c.notBacktested ? ` (not backtested: ${cell(c.notBacktested)})` : ''} | ${code(`${c.file}:${c.line}`)} | ${sev} |`)
    }
    out.push('')
  }
  out.push('#### Backtest', '')
  if (!r.backtest) {
    out.push(`Not run: ${cell(r.noBacktest ?? '')}.`)
    return out.join('\n') + '\n'
  }
  const b = r.backtest
  out.push(`Base and head versions of the changed rules over ${cell(b.source)}, ${iso(b.from)} to ${iso(b.to)} (${span(b.to - b.from)}): ${b.signalsRead.toLocaleString('en-US')} signals read in ${b.windows} window${b.windows === 1 ? '' : 's'}, took ${duration(b.tookMs)}.`, '')
  out.push('| rule | alerts before | alerts after | newly fire | stop firing | severity changed |', '|---|---:|---:|---:|---:|---:|')
  for (const x of b.rules) out.push(`| ${code(x.rule)} | ${x.base} | ${x.head} | ${x.newlyFiring.length} | ${x.stoppedFiring.length} | ${x.severityChanged.length} |`)
  out.push('')
  for (const x of b.rules) {
    if (!x.newlyFiring.length && !x.stoppedFiring.length && !x.severityChanged.length) continue
    out.push(`<details><summary><code>${escapeHtml(x.rule)}</code>: ${changesOf(x)}</summary>`, '')
    const show = (title: string, list: AlertEpisode[]) => {
      if (!list.length) return
      out.push(`**${title}**${list.length > EXAMPLES ? ` (first ${EXAMPLES} of ${list.length})` : ''}`, '')
      for (const e of list.slice(0, EXAMPLES)) {
        out.push(`- ${iso(e.evidenceAt)} ${e.severity} ${code(where(e))}: ${code(e.cause)}`, '')
        const lines = e.evidence.slice(0, EVIDENCE_LINES).map(evidenceLine)
        if (lines.length) out.push(...block(lines).map((l) => `  ${l}`), '')
      }
    }
    show('Newly firing', x.newlyFiring)
    show('No longer firing', x.stoppedFiring)
    if (x.severityChanged.length) {
      out.push('**Severity changed**', '')
      for (const p of x.severityChanged.slice(0, EXAMPLES)) out.push(`- ${iso(p.head.evidenceAt)} ${code(where(p.head))}: ${p.base.severity} → ${p.head.severity}`)
      out.push('')
    }
    out.push('</details>', '')
  }
  return out.join('\n') + '\n'
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
