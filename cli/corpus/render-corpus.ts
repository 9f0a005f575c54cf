import { percent, type CaseOutcome, type CorpusReport } from './run-corpus.js'

/**
 * The corpus report in two shapes: a terminal summary for whoever runs `kafka-why corpus`, and the
 * generated table of docs/corpus.md, so the published figures are always the output of a run, never typed.
 */

/** Markers around the generated part of docs/corpus.md; text outside them is kept as written. */
export const DOCS_BEGIN = '<!-- corpus:generated:begin (kafka-why corpus --docs; do not edit by hand) -->'
export const DOCS_END = '<!-- corpus:generated:end -->'

function result(o: CaseOutcome): string {
  if (o.loadError) return 'load error'
  if (o.gap) return 'no signals'
  if (o.healthy) return o.ok ? (o.signals === 0 ? 'quiet (no signals)' : 'quiet') : `raised ${o.alarms.join(', ')}`
  return o.got ?? '(no cause)'
}

function mark(o: CaseOutcome): string {
  return o.ok ? '✓' : '✗'
}

/** The terminal report: per-mode top-1, overall, healthy precision, gaps and load problems. */
export function renderCorpusText(r: CorpusReport): string {
  const lines: string[] = []
  const w = Math.max(...r.cases.map((c) => c.id.length), 10)
  for (const o of r.cases) {
    const want = o.healthy ? '(healthy)' : `${o.expect}${o.expectMissing ? ' (not in pack)' : ''}`
    const rank = !o.ok && o.expectRank ? ` [expected ranked #${o.expectRank}]` : ''
    lines.push(`${mark(o)} ${o.id.padEnd(w)}  want ${want}  got ${result(o)}${rank}  (${o.signals} signals${o.unparsed ? `, ${o.unparsed} lines not understood` : ''})`)
  }
  lines.push('')
  lines.push('per mode (top-1):')
  for (const [mode, t] of Object.entries(r.byMode).sort(([a], [b]) => a.localeCompare(b))) lines.push(`  ${mode.padEnd(32)} ${t.right}/${t.of}`)
  lines.push('')
  lines.push(`top-1 overall: ${r.overall.right} of ${r.overall.of} failure cases (${percent(r.overall)}) across ${r.modes} modes`)
  lines.push(`healthy excerpts quiet: ${r.healthy.right} of ${r.healthy.of} (${percent(r.healthy)})`)
  const gaps = Object.entries(r.gaps)
  if (gaps.length) {
    lines.push(`known gaps (no signals yet): ${gaps.length}`)
    for (const [id, why] of gaps) lines.push(`  ${id}: ${why}`)
  }
  for (const id of r.closedGaps) lines.push(`gap closed: ${id} now yields signals; remove it from known-gaps.yaml`)
  for (const id of r.staleGaps) lines.push(`stale gap: known-gaps.yaml names ${id}, which is not a case`)
  const broken = r.cases.filter((o) => o.loadError)
  for (const o of broken) lines.push(`load error: ${o.id}: ${o.loadError}`)
  for (const e of r.caseErrors) lines.push(`case error: ${e.file}: ${e.message}`)
  return lines.join('\n')
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|')
}

/** The generated part of docs/corpus.md: mode → case → expected → got → ✓/✗, then the totals. */
export function renderCorpusDocs(r: CorpusReport, commit: string): string {
  const out: string[] = [DOCS_BEGIN, '']
  out.push(`Measured at commit \`${commit}\` with the rule pack in \`rules/\`.`, '')
  out.push(`**Top-1: ${r.overall.right} of ${r.overall.of} failure cases right (${percent(r.overall)}), ${r.modes} failure modes.**`)
  out.push(`**Healthy excerpts with nothing at warning or critical: ${r.healthy.right} of ${r.healthy.of}.**`, '')
  out.push('| mode | case | expected top rule | got | |', '|---|---|---|---|---|')
  const sorted = [...r.cases].sort((a, b) => Number(a.healthy) - Number(b.healthy) || a.mode.localeCompare(b.mode) || a.id.localeCompare(b.id))
  for (const o of sorted) {
    const want = o.healthy ? 'nothing above info' : `\`${o.expect}\`${o.expectMissing ? ' (proposed)' : ''}`
    const got = o.healthy || o.gap || o.loadError || !o.got ? result(o) : `\`${o.got}\``
    out.push(`| ${o.mode} | [${o.id}](../test/corpus/${o.id}/source.md) | ${want} | ${cell(got)} | ${mark(o)} |`)
  }
  out.push('', '| mode | right | cases |', '|---|---|---|')
  for (const [mode, t] of Object.entries(r.byMode).sort(([a], [b]) => a.localeCompare(b))) out.push(`| ${mode} | ${t.right} | ${t.of} |`)
  out.push(`| **all failure modes** | **${r.overall.right}** | **${r.overall.of}** |`)
  const gaps = Object.entries(r.gaps)
  if (gaps.length) {
    out.push('', 'Known gaps (cases whose lines yield no signal yet):', '')
    for (const [id, why] of gaps) out.push(`- \`${id}\`: ${why}`)
  }
  out.push('', DOCS_END)
  return out.join('\n')
}

/** Replaces the generated block of an existing docs file, or appends one; hand-written text is kept. */
export function spliceDocs(existing: string, generated: string): string {
  const a = existing.indexOf(DOCS_BEGIN)
  const b = existing.indexOf(DOCS_END)
  if (a >= 0 && b > a) return existing.slice(0, a) + generated + existing.slice(b + DOCS_END.length)
  return `${existing.replace(/\s*$/, '')}\n\n${generated}\n`
}
