import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { CaseOutcome, CorpusReport } from './run-corpus.js'

/**
 * Writes first-sight verdicts into case.yaml: a case added with `first_sight: pending` gets this run's verdict,
 * the commit, the time, the top answer and the state of the working tree, once. A verdict already written is
 * never touched, so the first-sight figure stays what the pack did before anything was changed for the case.
 */

/** One verdict written. */
export type RecordedVerdict = { id: string; verdict: 'right' | 'wrong'; top: string }

/** Where and when the run was measured. */
export type Measurement = { commit: string; date: string; tree: string }

const PENDING = /^first_sight:[ \t]*pending[ \t]*$/m

/** The top answer as one short phrase: the rule id (and how it counted), or why there was none. */
export function topAnswer(o: CaseOutcome): string {
  if (o.gap || o.signals === 0) return 'no signals'
  if (o.loadError) return 'load error'
  if (!o.got) return '(no cause)'
  return o.rightBy === 'baseline' ? `${o.got} (baseline criterion)` : o.got
}

const quote = (s: string) => JSON.stringify(s)

/** Records the verdict of every pending failure case of `report`; returns what was written. */
export async function recordFirstSight(report: CorpusReport, at: Measurement): Promise<RecordedVerdict[]> {
  const written: RecordedVerdict[] = []
  for (const o of report.cases) {
    if (o.firstSight?.verdict !== 'pending') continue
    const file = path.join(report.root, o.id, 'case.yaml')
    const text = await readFile(file, 'utf8')
    if (!PENDING.test(text)) continue
    const verdict = o.ok ? 'right' : 'wrong'
    const top = topAnswer(o)
    const block = [
      `first_sight: ${verdict}`,
      `first_sight_commit: ${quote(at.commit)}`,
      `first_sight_date: ${quote(at.date)}`,
      `first_sight_top: ${quote(top)}`,
      `first_sight_tree: ${quote(at.tree)}`,
    ].join('\n')
    await writeFile(file, text.replace(PENDING, block))
    written.push({ id: o.id, verdict, top })
  }
  return written
}
