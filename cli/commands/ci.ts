import { stat, writeFile } from 'node:fs/promises'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { openStore, sharedStoreSource } from '../../engine/store/open-store.js'
import type { Store } from '../../engine/store/store.js'
import { GitError } from '../ci/git-changes.js'
import { renderCiMarkdown, renderCiText } from '../ci/render-ci.js'
import { ciFailed, newCriticalAlerts, runCi, type History } from '../ci/run-ci.js'
import { readDuration, reportStoreUnavailable } from '../command-setup.js'
import type { CI_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { checkRulePaths, describeMissing } from '../rule-paths.js'
import { UsageError } from '../usage-error.js'
import { ingestSources } from './replay.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('ci', argv)

/** Runs the checks and prints the report; returns the exit code. */
export async function execute({ options: v }: CommandInput<typeof CI_OPTIONS>): Promise<number> {
  const sinceMs = readDuration(v.since ?? '30d', '--since')
  const stepMs = readDuration(v.step ?? (v.replay.length ? '15s' : '1m'), '--step')
  const windowMs = readDuration(v.window, '--window')
  if (sinceMs <= 0 || stepMs <= 0 || windowMs <= 0) throw new UsageError('--since, --step and --window must be longer than 0')
  const replay = v.replay
  await checkRulePaths([v.rules], '--rules')
  for (const p of [...replay, ...(v.tests ? [v.tests] : [])]) {
    try {
      await stat(p)
    } catch (err) {
      throw new UsageError(describeMissing(p, err))
    }
  }
  const storeSource = replay.length === 0 ? sharedStoreSource(process.env) : undefined
  let store: Store | undefined
  const history = async (): Promise<History | undefined> => {
    if (replay.length) {
      store = new MemoryStore()
      const ingest = await ingestSources(store, replay)
      const times = [...ingest.times.values()].flat()
      if (times.length === 0) return undefined
      const from = times.reduce((m, t) => Math.min(m, t), Infinity)
      const to = times.reduce((m, t) => Math.max(m, t), -Infinity)
      return { store, from, to, source: `${replay.length === 1 ? replay[0] : `${replay.length} recordings`} (${ingest.accepted.toLocaleString('en-US')} signals)` }
    }
    if (!storeSource) return undefined
    store = openStore(process.env)
    const to = Date.now()
    return { store, from: to - sinceMs, to, source: `the store (${storeSource}), last ${v.since ?? '30d'}` }
  }
  try {
    const report = await runCi({ base: v.base, rulesDir: v.rules, testsDir: v.tests ?? v.rules, history, windowMs, stepMs })
    const text = v.format === 'markdown' ? renderCiMarkdown(report) : v.format === 'json' ? JSON.stringify(report, null, 2) : renderCiText(report)
    if (v.output) await writeFile(v.output, text.endsWith('\n') ? text : `${text}\n`)
    else console.log(text.replace(/\n$/, ''))
    if (ciFailed(report)) return 1
    if (v.failOnNewCritical && newCriticalAlerts(report) > 0) {
      console.error(`kafka-why ci: the change would raise ${newCriticalAlerts(report)} critical alert(s) the base rules did not (--fail-on-new-critical)`)
      return 1
    }
    return 0
  } catch (err) {
    if (err instanceof GitError) {
      console.error(`kafka-why ci: ${err.message}`)
      return 2
    }
    const unavailable = reportStoreUnavailable('kafka-why ci', err)
    if (unavailable !== undefined) return unavailable
    if (typeof (err as { code?: unknown }).code === 'string' && /^E[A-Z]+$/.test((err as { code: string }).code)) {
      console.error(`kafka-why ci: ${(err as Error).message}`)
      return 1
    }
    throw err
  } finally {
    await store?.close().catch(() => undefined)
  }
}
