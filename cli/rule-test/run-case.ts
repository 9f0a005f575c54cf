import { stat } from 'node:fs/promises'
import { readSignalSources, emptySourceStats } from '../../adapters/incident.js'
import type { Rule } from '../../dsl/ast.js'
import { diagnose } from '../../engine/diagnose.js'
import type { Cause, Diagnosis } from '../../engine/diagnosis.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'
import { checkAbsent, checkExpectation, type AssertionResult } from './assertions.js'
import { parseSeriesLine, SeriesError, seriesToSignals } from './series.js'
import type { RuleTestCase, TimeSpec } from './test-file.js'

/**
 * Runs one rule-test case: loads its incident and inline series into a fresh MemoryStore, diagnoses
 * every broker with the engine's own `diagnose` (exactly what `why` does), and checks the assertions.
 */

/** Where inline series start when the test names no `start`. */
export const DEFAULT_START = 0

/** The evaluation a case ran, for messages and coverage. */
export type CaseRun = {
  from: number
  to: number
  now: number
  signals: number
  /** Signals the store refused, by reason (bad JSONL lines are counted by the reader). */
  rejected: Record<string, number>
  /** Log lines the adapters could not parse, and refused JSONL lines. */
  unparsed: number
  diagnoses: Diagnosis[]
}

/** One case's outcome: every assertion with its explanation, and what fired. */
export type CaseResult = {
  test: RuleTestCase
  ok: boolean
  durationMs: number
  assertions: AssertionResult[]
  run?: CaseRun
  /** Rule ids that fired on any broker in this case. */
  fired: Set<string>
  /** Every signal the case loaded, when asked for (`keepSignals`): the claims pass replays them with facts removed. */
  signals?: Signal[]
}

/** How to run a case: `keepSignals` returns the loaded data on the result for the claims pass. */
export type RunCaseOptions = { keepSignals?: boolean }

/** A problem loading a case's data: reported as a failed assertion, never thrown. */
function loadFailure(tc: RuleTestCase, line: number, message: string): AssertionResult {
  return { ok: false, kind: 'load', line, title: `load ${tc.name}`, detail: message }
}

/** Runs one case against `rules`. Never throws for bad data: it becomes a failed assertion. */
export async function runCase(
  tc: RuleTestCase,
  rules: readonly Rule[],
  clock: () => number = performance.now.bind(performance),
  opts: RunCaseOptions = {},
): Promise<CaseResult> {
  const started = clock()
  const kept: Signal[] | undefined = opts.keepSignals ? [] : undefined
  const store = new MemoryStore()
  const assertions: AssertionResult[] = []
  const rejected: Record<string, number> = {}
  let minAt = Infinity
  let maxAt = -Infinity
  let count = 0
  const clusters = new Set<string>()
  const add = async (signals: Signal[]) => {
    const r = await store.append(signals)
    kept?.push(...signals)
    for (const [k, v] of Object.entries(r.rejected)) rejected[k] = (rejected[k] ?? 0) + v
    for (const s of signals) {
      if (!Number.isFinite(s.at)) continue
      if (s.at < minAt) minAt = s.at
      if (s.at > maxAt) maxAt = s.at
      clusters.add(s.cluster)
    }
    count += r.accepted
  }
  const stats = emptySourceStats()
  for (const p of tc.incident) {
    if (!(await stat(p).then(() => true, () => false))) assertions.push(loadFailure(tc, tc.line, `incident not found: ${p}`))
  }
  if (tc.incident.length && assertions.length === 0) {
    try {
      for await (const batch of readSignalSources(tc.incident, { cluster: tc.cluster, stats })) await add(batch)
    } catch (err) {
      assertions.push(loadFailure(tc, tc.line, `cannot read ${tc.incident.join(', ')}: ${(err as Error).message}`))
    }
    const missing = stats.files.length === 0
    if (missing && assertions.length === 0) assertions.push(loadFailure(tc, tc.line, `no signal source found in ${tc.incident.join(', ')}`))
  }
  const start = tc.start ?? DEFAULT_START
  const seriesCluster = tc.cluster ?? [...clusters][0] ?? 'test'
  for (const s of tc.series) {
    try {
      const line = parseSeriesLine(s.text)
      await add(seriesToSignals(line, { start, intervalMs: tc.intervalMs, cluster: seriesCluster, source: `test:${tc.file}:${s.line}` }))
    } catch (err) {
      const col = err instanceof SeriesError ? `:${err.column}` : ''
      assertions.push(loadFailure(tc, s.line, `series at ${tc.file}:${s.line}${col}: ${(err as Error).message}\n  ${s.text}`))
    }
  }
  const unparsed = Object.values(stats.logs.unparsed).reduce((a, b) => a + b, 0) + stats.jsonlRejects.length
  if (assertions.length) return { test: tc, ok: false, durationMs: clock() - started, assertions, fired: new Set() }
  if (count === 0 && tc.quietWhenEmpty && tc.expect.length === 0 && !unparsed) {
    const quiet = tc.absent.map((a): AssertionResult => ({ ok: true, kind: 'absent', line: a.line, col: a.col, title: 'absent: nothing fired (the input yields no signal)', rule: a.rule }))
    return { test: tc, ok: true, durationMs: clock() - started, assertions: quiet, fired: new Set() }
  }
  if (count === 0) {
    const refused = Object.entries(rejected).map(([k, v]) => `${v} refused (${k})`)
    const notes = [...refused, ...(unparsed ? [`${unparsed} input lines not understood`] : [])]
    assertions.push(loadFailure(tc, tc.line, `the test loaded no signals at all${notes.length ? `: ${notes.join(', ')}` : ''}`))
    return { test: tc, ok: false, durationMs: clock() - started, assertions, fired: new Set() }
  }

  const base = tc.series.length && tc.start !== undefined ? tc.start : tc.series.length && !tc.incident.length ? start : minAt
  const resolve = (t: TimeSpec | undefined): number | undefined => (t === undefined ? undefined : 'abs' in t ? t.abs : base + t.rel)
  const to = resolve(tc.to) ?? resolve(tc.at) ?? maxAt
  const now = resolve(tc.at) ?? to
  const from = resolve(tc.from) ?? (tc.windowMs !== undefined ? to - tc.windowMs : Math.min(minAt, base))

  const refs = (await store.brokers()).filter((r) => clusters.has(r.cluster))
  const wanted = new Set(refs.map((r) => JSON.stringify([r.cluster, r.broker])))
  for (const e of [...tc.expect, ...tc.absent]) {
    if (e.broker === undefined) continue
    for (const c of clusters) wanted.add(JSON.stringify([c, e.broker]))
  }
  const diagnoses: Diagnosis[] = []
  for (const key of [...wanted].sort()) {
    const [cluster, broker] = JSON.parse(key) as [string, string]
    diagnoses.push(await diagnose(rules, store, { cluster, broker, from, to, now, record: false }))
  }
  await store.close()
  const run: CaseRun = { from, to, now, signals: count, rejected, unparsed, diagnoses }
  for (const e of tc.expect) assertions.push(checkExpectation(e, run, base))
  for (const a of tc.absent) assertions.push(checkAbsent(a, run))
  const fired = new Set<string>(diagnoses.flatMap((d) => d.causes.map((c: Cause) => c.ruleId)))
  return { test: tc, ok: assertions.every((a) => a.ok), durationMs: clock() - started, assertions, run, fired, ...(kept ? { signals: kept } : {}) }
}
