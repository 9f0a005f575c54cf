import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { loadRuleSet, reportRuleErrors } from '../command-setup.js'
import type { CORPUS_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { UsageError } from '../usage-error.js'
import { renderCorpusDocs, renderCorpusText, spliceDocs } from '../corpus/render-corpus.js'
import { recordFirstSight } from '../corpus/record-first-sight.js'
import { runCorpus } from '../corpus/run-corpus.js'

/**
 * `kafka-why corpus [dir]`: replays the real-incident corpus and prints top-1 accuracy per failure mode,
 * overall, per input kind, and how many healthy excerpts stayed quiet; beside it the first-sight figure, the
 * verdicts recorded when cases were added before anything was changed for them. `--docs FILE` rewrites the
 * generated table in that file; `--record-first-sight` writes the verdict of cases still marked pending.
 */

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('corpus', argv)

/** The subcommand: runs the corpus, prints the report, optionally rewrites the docs table. */
export async function execute({ args, options }: CommandInput<typeof CORPUS_OPTIONS>): Promise<number> {
  const root = args[0] ?? 'test/corpus'
  if (!existsSync(root)) throw new UsageError(`no such corpus directory: ${root}`)
  const loaded = await loadRuleSet(options.rules)
  if ('error' in loaded) return reportRuleErrors(loaded.error)
  let report
  try {
    report = await runCorpus(root, loaded.rules)
  } catch (err) {
    console.error(`kafka-why corpus: ${(err as Error).message}`)
    return 1
  }
  if (options.recordFirstSight) {
    const recorded = await recordFirstSight(report, { commit: headCommit(), tree: treeState(root), date: new Date().toISOString() })
    for (const r of recorded) console.error(`first sight recorded: ${r.id}: ${r.verdict} (top ${r.top})`)
    if (recorded.length) report = await runCorpus(root, loaded.rules)
  }
  if (options.json) console.log(JSON.stringify(report, null, 2))
  else console.log(renderCorpusText(report))
  const docs = options.docs
  if (docs) {
    const existing = existsSync(docs) ? await readFile(docs, 'utf8') : '# Real-incident corpus\n'
    await writeFile(docs, spliceDocs(existing, renderCorpusDocs(report, headCommit())))
  }
  const broken = report.cases.some((c) => c.loadError) || report.caseErrors.length > 0 || report.staleGaps.length > 0
  return broken ? 1 : 0
}

/** Whether the working tree outside the corpus held uncommitted edits when a first-sight verdict was measured. */
function treeState(root: string): string {
  try {
    const out = execFileSync('git', ['status', '--porcelain', '--', '.', `:(exclude)${root}`], { encoding: 'utf8' }).trim()
    if (out === '') return 'clean'
    return `uncommitted edits in ${out.split('\n').length} path(s) outside the corpus (others' work in progress)`
  } catch {
    return 'unknown'
  }
}

/** The checked-out commit, so a published figure names the code it was measured on. */
function headCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}
