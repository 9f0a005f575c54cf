import { INPUT_KINDS } from './corpus-case.js'
import { percent, type CaseOutcome, type CorpusReport, type Tally } from './run-corpus.js'

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

/** The recorded first-sight verdict as a mark: ✓, ✗, "pending", or "–" for a case scored after its rule was written. */
function firstMark(o: CaseOutcome): string {
  const v = o.firstSight?.verdict
  return v === 'right' ? '✓' : v === 'wrong' ? '✗' : v === 'pending' ? 'pending' : '–'
}

const ratio = (t: Tally) => `${t.right}/${t.of} (${percent(t)})`

/** First-sight beside fitted, overall and per input kind: one row each. */
function firstSightRows(r: CorpusReport): { kind: string; first: Tally; fittedSame: Tally; fittedAll: Tally }[] {
  const rows = [{ kind: 'all', first: r.firstSight.overall, fittedSame: r.fittedOnFirstSight.overall, fittedAll: r.overall }]
  for (const k of INPUT_KINDS) rows.push({ kind: k, first: r.firstSight.byKind[k], fittedSame: r.fittedOnFirstSight.byKind[k], fittedAll: r.fittedByKind[k] })
  return rows
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
  lines.push('')
  lines.push('first sight (recorded when each case was added, never rescored) beside fitted (this run):')
  for (const row of firstSightRows(r)) {
    lines.push(`  ${row.kind.padEnd(10)} first sight ${ratio(row.first).padEnd(16)} fitted, same cases ${ratio(row.fittedSame).padEnd(16)} fitted, all cases ${ratio(row.fittedAll)}`)
  }
  if (r.pendingFirstSight.length) lines.push(`first sight pending (run with --record-first-sight): ${r.pendingFirstSight.join(', ')}`)
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
  out.push(
    `**First sight: ${r.firstSight.overall.right} of ${r.firstSight.overall.of} failure cases right (${percent(r.firstSight.overall)})** — each scored once, when it was added, before anything was changed for it; today the same cases score ${r.fittedOnFirstSight.overall.right} of ${r.fittedOnFirstSight.overall.of} (${percent(r.fittedOnFirstSight.overall)}).`,
    '',
  )
  out.push('| input kind | first sight | fitted, same cases | fitted, all cases |', '|---|---|---|---|')
  for (const row of firstSightRows(r)) out.push(`| ${row.kind} | ${ratio(row.first)} | ${ratio(row.fittedSame)} | ${ratio(row.fittedAll)} |`)
  out.push('', 'A case counts under each of its input kinds; "all" counts it once. Cases without a first-sight mark (–) carry no first-sight verdict: the cases older than first-sight scoring, scored after rules were written from them, and new cases whose lines went into the product before they could be scored (their source.md says so).', '')
  if (r.pendingFirstSight.length) out.push(`First sight pending: ${r.pendingFirstSight.map((id) => `\`${id}\``).join(', ')}.`, '')
  out.push('| mode | case | kinds | expected top rule | got | | first sight |', '|---|---|---|---|---|---|---|')
  const sorted = [...r.cases].sort((a, b) => Number(a.healthy) - Number(b.healthy) || a.mode.localeCompare(b.mode) || a.id.localeCompare(b.id))
  for (const o of sorted) {
    const want = o.healthy ? 'nothing above info' : `\`${o.expect}\`${o.expectMissing ? ' (proposed)' : ''}`
    const got = o.healthy || o.gap || o.loadError || !o.got ? result(o) : `\`${o.got}\``
    const how = o.rightBy === 'baseline' ? ' (baseline)' : ''
    out.push(`| ${o.mode} | [${o.id}](../test/corpus/${o.id}/source.md) | ${o.kinds.join(', ')} | ${want} | ${cell(got)}${how} | ${mark(o)} | ${firstMark(o)} |`)
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
