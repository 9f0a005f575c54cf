import { emptySourceStats, readSignalSources } from '../../adapters/incident.js'
import type { Rule, Severity } from '../../dsl/ast.js'
import { diagnose } from '../../engine/diagnose.js'
import type { Cause } from '../../engine/diagnosis.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { INPUT_KINDS, listCases, readKnownGaps, type BaselineExpectation, type CaseError, type CorpusCase, type FirstSight, type InputKind, type KnownGaps } from './corpus-case.js'

/**
 * Replays every corpus case through the real engine exactly as `why` would diagnose it (the case's
 * broker, the whole span of its data) and scores the top cause against the case's expectation, so the
 * rule pack's accuracy is a number that can only be argued with data. Most older cases were scored after rules
 * were written from them (the fitted figure); the first-sight verdicts recorded in case.yaml are the honest one.
 */

/** How one case came out. */
export type CaseOutcome = {
  id: string
  mode: string
  broker: string
  healthy: boolean
  expect?: string
  /** The expected rule is not in the rule pack under test. */
  expectMissing: boolean
  /** Top cause's rule id (first cause not explained by another), or undefined when nothing fired. */
  got?: string
  gotSeverity?: Severity
  /** 1-based rank of the expected rule among the unexplained causes, when it fired at all. */
  expectRank?: number
  /** Healthy cases: causes at warning or critical (each `ruleId:severity`). */
  alarms: string[]
  ok: boolean
  signals: number
  /** Log lines the adapters could not turn into anything. */
  unparsed: number
  /** True when no line carried a timestamp, so the window is unknown. */
  untimed: boolean
  /** Set when the case yields no signal and known-gaps.yaml explains why. */
  gap?: string
  /** Set when the case could not be replayed (or yields no signal and is not a known gap). */
  loadError?: string
  kinds: InputKind[]
  /** The verdict recorded when the case was added, if it was scored at first sight. */
  firstSight?: FirstSight
  /** How a right failure case was right: its expected rule, or a baseline answer meeting the case's criterion. */
  rightBy?: 'rule' | 'baseline'
}

/** Accuracy over a group of failure cases. */
export type Tally = { right: number; of: number }

/** Everything one run measured, ready for the terminal, JSON or the docs table. */
export type CorpusReport = {
  root: string
  cases: CaseOutcome[]
  /** Unreadable case.yaml files. */
  caseErrors: CaseError[]
  /** Failure cases by mode. */
  byMode: Record<string, Tally>
  /** Top-1 over all failure cases (healthy ones excluded). */
  overall: Tally
  /** Healthy cases that stayed quiet (nothing at warning or critical). */
  healthy: Tally
  /** Known gaps that were listed (case id → reason). */
  gaps: KnownGaps
  /** Distinct failure modes with at least one case. */
  modes: number
  /** known-gaps.yaml entries naming no case directory (typos or removed cases). */
  staleGaps: string[]
  /** known-gaps.yaml entries whose case now yields signals: the entry can be removed. */
  closedGaps: string[]
  /** Today's top-1 over failure cases, per input kind (a case counts under each of its kinds). */
  fittedByKind: Record<InputKind, Tally>
  /** First-sight verdicts as recorded in case.yaml (never rescored): overall and per input kind. */
  firstSight: { overall: Tally; byKind: Record<InputKind, Tally> }
  /** Today's top-1 over the same cases as `firstSight`, for the side-by-side figure. */
  fittedOnFirstSight: { overall: Tally; byKind: Record<InputKind, Tally> }
  /** Cases added with `first_sight: pending`, waiting for `--record-first-sight`. */
  pendingFirstSight: string[]
}

const ALARM: ReadonlySet<Severity> = new Set<Severity>(['warning', 'critical'])

/** Replays one case into a fresh in-memory store and scores its diagnosis. Never throws for bad data. */
export async function runCorpusCase(c: CorpusCase, rules: readonly Rule[], gaps: KnownGaps): Promise<CaseOutcome> {
  const out: CaseOutcome = {
    id: c.id, mode: c.mode, broker: c.broker, healthy: c.healthy, expect: c.expect, kinds: c.kinds,
    ...(c.firstSight ? { firstSight: c.firstSight } : {}),
    expectMissing: c.expect !== undefined && !rules.some((r) => r.id === c.expect),
    alarms: [], ok: false, signals: 0, unparsed: 0, untimed: false,
  }
  const store = new MemoryStore()
  const stats = emptySourceStats()
  let minAt = Infinity
  let maxAt = -Infinity
  const clusters = new Set<string>()
  try {
    for await (const batch of readSignalSources([c.dir], { stats })) {
      const r = await store.append(batch)
      out.signals += r.accepted
      for (const s of batch) {
        clusters.add(s.cluster)
        if (!Number.isFinite(s.at)) continue
        if (s.at < minAt) minAt = s.at
        if (s.at > maxAt) maxAt = s.at
      }
    }
  } catch (err) {
    out.loadError = (err as Error).message
    await store.close()
    return out
  }
  out.unparsed = Object.values(stats.logs.unparsed).reduce((a, b) => a + b, 0)
  if (out.signals === 0) {
    await store.close()
    // A healthy excerpt of INFO lines yields nothing and so raises nothing: quiet, as it should be.
    if (c.healthy) out.ok = true
    else if (gaps[c.id]) out.gap = gaps[c.id]
    else out.loadError = `no signals from ${stats.files.length} file(s) (${out.unparsed} lines not understood); fix the parser or list the case in known-gaps.yaml`
    return out
  }
  out.untimed = !Number.isFinite(minAt)
  const from = out.untimed ? 0 : minAt
  const to = out.untimed ? 0 : maxAt
  const cluster = [...clusters][0] ?? 'corpus'
  const d = await diagnose(rules, store, { cluster, broker: c.broker, from, to, now: to, record: false })
  await store.close()
  const ranked: Cause[] = d.causes.filter((x) => !x.explainedBy?.length)
  const top = ranked[0]
  out.got = top?.ruleId
  out.gotSeverity = top?.severity
  if (c.healthy) {
    out.alarms = d.causes.filter((x) => ALARM.has(x.severity)).map((x) => `${x.ruleId}:${x.severity}`)
    out.ok = out.alarms.length === 0
  } else {
    const at = ranked.findIndex((x) => x.ruleId === c.expect)
    if (at >= 0) out.expectRank = at + 1
    if (top?.ruleId === c.expect) out.rightBy = 'rule'
    else if (top && c.baseline && baselineAnswers(top, c.baseline)) out.rightBy = 'baseline'
    out.ok = out.rightBy !== undefined
  }
  return out
}

const words = (s: string) => ` ${s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()} `

/**
 * The written criterion for a baseline answer (docs/corpus.md): the top cause names the case's failure class
 * (in its rule id, name, cause text or labels; any one part of a class written "a/b") and one of its evidence
 * lines contains the case's established line. Mechanical, so a verdict never depends on who scored it.
 */
export function baselineAnswers(top: Cause, want: BaselineExpectation): boolean {
  const text = words([top.ruleId, top.ruleName ?? '', top.cause, ...Object.values(top.labels)].join(' '))
  const named = want.class.split('/').some((part) => {
    const w = words(part)
    return w.trim() !== '' && text.includes(w)
  })
  return named && top.evidence.some((e) => e.text?.includes(want.line) === true)
}

const emptyByKind = (): Record<InputKind, Tally> =>
  Object.fromEntries(INPUT_KINDS.map((k) => [k, { right: 0, of: 0 }])) as Record<InputKind, Tally>

function count(t: Tally, right: boolean): void {
  t.of++
  if (right) t.right++
}

/** Runs every case under `root` against `rules` and tallies top-1 accuracy per mode and overall. */
export async function runCorpus(root: string, rules: readonly Rule[]): Promise<CorpusReport> {
  const { cases, errors } = await listCases(root)
  const gaps = await readKnownGaps(root)
  const outcomes: CaseOutcome[] = []
  for (const c of cases) outcomes.push(await runCorpusCase(c, rules, gaps))
  const byMode: Record<string, Tally> = {}
  const overall: Tally = { right: 0, of: 0 }
  const healthy: Tally = { right: 0, of: 0 }
  for (const o of outcomes) {
    if (o.healthy) {
      healthy.of++
      if (o.ok) healthy.right++
      continue
    }
    const t = (byMode[o.mode] ??= { right: 0, of: 0 })
    t.of++
    overall.of++
    if (o.ok) {
      t.right++
      overall.right++
    }
  }
  const fittedByKind = emptyByKind()
  const firstSight = { overall: { right: 0, of: 0 }, byKind: emptyByKind() }
  const fittedOnFirstSight = { overall: { right: 0, of: 0 }, byKind: emptyByKind() }
  const pendingFirstSight: string[] = []
  for (const o of outcomes) {
    if (o.firstSight?.verdict === 'pending') pendingFirstSight.push(o.id)
    if (o.healthy) continue
    for (const k of o.kinds) count(fittedByKind[k], o.ok)
    const v = o.firstSight?.verdict
    if (v !== 'right' && v !== 'wrong') continue
    count(firstSight.overall, v === 'right')
    count(fittedOnFirstSight.overall, o.ok)
    for (const k of o.kinds) {
      count(firstSight.byKind[k], v === 'right')
      count(fittedOnFirstSight.byKind[k], o.ok)
    }
  }
  const listed: KnownGaps = {}
  for (const o of outcomes) if (o.gap) listed[o.id] = o.gap
  const ids = new Set(cases.map((c) => c.id))
  const staleGaps = Object.keys(gaps).filter((id) => !ids.has(id))
  const closedGaps = outcomes.filter((o) => gaps[o.id] !== undefined && o.signals > 0).map((o) => o.id)
  return {
    root, cases: outcomes, caseErrors: errors, byMode, overall, healthy, gaps: listed, modes: Object.keys(byMode).length, staleGaps, closedGaps,
    fittedByKind, firstSight, fittedOnFirstSight, pendingFirstSight,
  }
}

/** Fraction right as a percentage with one decimal, "–" for an empty group. */
export function percent(t: Tally): string {
  return t.of === 0 ? '–' : `${((100 * t.right) / t.of).toFixed(1)} %`
}
