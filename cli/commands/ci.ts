import { writeFile } from 'node:fs/promises'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { openStore } from '../../engine/store/open-store.js'
import type { Store } from '../../engine/store/store.js'
import { GitError } from '../ci/git-changes.js'
import { renderCiMarkdown, renderCiText } from '../ci/render-ci.js'
import { ciFailed, newCriticalAlerts, runCi, type History } from '../ci/run-ci.js'
import { parseCommandArgs, readDuration, reportStoreUnavailable, usageError, UsageError } from '../command-setup.js'
import { ingestSources } from './replay.js'

const USAGE = `usage: kafka-why ci --base REF [--rules dir] [--tests dir] [--since 30d | --replay paths…]
                    [--format text|markdown|json] [--output FILE] [--fail-on-new-critical]

Checks a pull request's rule changes: the rule and rule-test files changed since the merge base with
REF (git, renames followed) are linted and format-checked, the rule tests that touch a changed rule
run, and the base and head versions of every changed rule are backtested over the same history —
the team's store (REDIS_URL, the last --since) or recorded incidents (--replay) — to show which
alerts would newly fire, stop firing or change severity.

  --base REF               the branch the pull request goes into (e.g. origin/main); required
  --rules dir              rule directory (default rules)
  --tests dir              where rule tests are searched (default: the rules directory)
  --since 30d              history read from the store (REDIS_URL) for the backtest (default 30d)
  --replay paths           backtest over recorded incidents / logs instead of the store (repeatable)
  --step 1m                time between evaluations in the backtest (default 1m; 15s with --replay)
  --window 6h              history read from the store at a time (default 6h)
  --format FORMAT          text (default), markdown (a pull-request comment) or json
  --output FILE            write the report to FILE instead of standard output
  --fail-on-new-critical   exit 1 when the change would raise a critical alert the base did not
Exit codes: 0 checks passed (backtest differences are information), 1 lint, fmt or a test failed
(or --fail-on-new-critical and a new critical alert), 2 bad usage or git problem.`

/** Runs the checks and prints the report; returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(
    argv,
    USAGE,
    {
      base: { type: 'string' },
      rules: { type: 'string', default: 'rules' },
      tests: { type: 'string' },
      since: { type: 'string' },
      replay: { type: 'string', multiple: true },
      step: { type: 'string' },
      window: { type: 'string', default: '6h' },
      format: { type: 'string', default: 'text' },
      output: { type: 'string' },
      'fail-on-new-critical': { type: 'boolean', default: false },
    },
    false,
  )
  if (typeof args === 'number') return args
  const v = args.values
  let sinceMs: number
  let stepMs: number
  let windowMs: number
  try {
    if (!v.base) throw new UsageError('--base is required: the git ref the pull request goes into, e.g. --base origin/main')
    if (v.format !== 'text' && v.format !== 'markdown' && v.format !== 'json') throw new UsageError(`--format must be text, markdown or json, not '${v.format}'`)
    if (v.since !== undefined && v.replay?.length) throw new UsageError('--since reads the store; --replay reads recordings: give one of them')
    sinceMs = readDuration(v.since ?? '30d', '--since')
    stepMs = readDuration(v.step ?? (v.replay?.length ? '15s' : '1m'), '--step')
    windowMs = readDuration(v.window!, '--window')
    if (sinceMs <= 0 || stepMs <= 0 || windowMs <= 0) throw new UsageError('--since, --step and --window must be longer than 0')
  } catch (err) {
    return usageError((err as Error).message)
  }
  const replay = v.replay ?? []
  const useStore = replay.length === 0 && Boolean(process.env.REDIS_URL?.trim())
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
    if (!useStore) return undefined
    store = openStore(process.env)
    const to = Date.now()
    return { store, from: to - sinceMs, to, source: `the store (REDIS_URL), last ${v.since ?? '30d'}` }
  }
  try {
    const report = await runCi({ base: v.base!, rulesDir: v.rules!, testsDir: v.tests ?? v.rules!, history, windowMs, stepMs })
    const text = v.format === 'markdown' ? renderCiMarkdown(report) : v.format === 'json' ? JSON.stringify(report, null, 2) : renderCiText(report)
    if (v.output) await writeFile(v.output, text.endsWith('\n') ? text : `${text}\n`)
    else console.log(text.replace(/\n$/, ''))
    if (ciFailed(report)) return 1
    if (v['fail-on-new-critical'] && newCriticalAlerts(report) > 0) {
      console.error(`kafka-why ci: the change would raise ${newCriticalAlerts(report)} critical alert(s) the base rules did not (--fail-on-new-critical)`)
      return 1
    }
    return 0
  } catch (err) {
    if (err instanceof GitError) {
      console.error(`kafka-why ci: ${err.message}`)
      return 2
    }
    if (err instanceof UsageError) return usageError(err.message)
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
