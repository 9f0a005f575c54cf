import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { loadRuleSet, reportRuleErrors } from '../command-setup.js'
import type { CORPUS_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { UsageError } from '../usage-error.js'
import { renderCorpusDocs, renderCorpusText, spliceDocs } from '../corpus/render-corpus.js'
import { runCorpus } from '../corpus/run-corpus.js'

/**
 * `kafka-why corpus [dir]`: replays the real-incident corpus and prints top-1 accuracy per failure mode,
 * overall, and how many healthy excerpts stayed quiet — the measure of the rule pack on incidents it was
 * not written from. `--docs FILE` rewrites the generated table in that file.
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

/** The checked-out commit, so a published figure names the code it was measured on. */
function headCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}
