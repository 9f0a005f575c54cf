import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { parseCommandArgs, loadRuleSet, reportRuleErrors, usageError } from '../command-setup.js'
import { renderCorpusDocs, renderCorpusText, spliceDocs } from '../corpus/render-corpus.js'
import { runCorpus } from '../corpus/run-corpus.js'

/**
 * `kafka-why corpus [dir]`: replays the real-incident corpus and prints top-1 accuracy per failure mode,
 * overall, and how many healthy excerpts stayed quiet — the measure of the rule pack on incidents it was
 * not written from. `--docs FILE` rewrites the generated table in that file.
 */

const USAGE = `usage: kafka-why corpus [dir] [--rules PATH] [--json] [--docs FILE]

Replays every case of the real-incident corpus (default test/corpus/; each case directory has
case.yaml, incident.yaml, source.md and the published log lines) through the engine, takes the top
cause for the case's broker and compares it with the expected rule.
  --rules PATH  rule file or directory (default rules/)
  --json        the full report as one JSON object
  --docs FILE   also rewrite the generated table in FILE (e.g. docs/corpus.md)
Exit codes: 0 ran (whatever the accuracy), 1 a case could not be loaded, 2 bad usage.`

/** The subcommand: runs the corpus, prints the report, optionally rewrites the docs table. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, USAGE, {
    rules: { type: 'string', default: 'rules' },
    json: { type: 'boolean', default: false },
    docs: { type: 'string' },
  })
  if (typeof args === 'number') return args
  if (args.positionals.length > 1) return usageError(`one corpus directory at most, got ${args.positionals.length}\n\n${USAGE}`)
  const root = args.positionals[0] ?? 'test/corpus'
  if (!existsSync(root)) return usageError(`no such corpus directory: ${root}`)
  const loaded = await loadRuleSet(args.values.rules as string)
  if ('error' in loaded) return reportRuleErrors(loaded.error)
  let report
  try {
    report = await runCorpus(root, loaded.rules)
  } catch (err) {
    console.error(`kafka-why corpus: ${(err as Error).message}`)
    return 1
  }
  if (args.values.json) console.log(JSON.stringify(report, null, 2))
  else console.log(renderCorpusText(report))
  const docs = args.values.docs as string | undefined
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
