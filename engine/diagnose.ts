import type { Rule, Severity } from '../dsl/ast.js'
import { observedSignalsOfRule } from '../dsl/signals-of-rule.js'
import { summariseAbnormal } from './abnormal.js'
import { baselineCauses } from './baseline.js'
import { buildCause } from './cause.js'
import { addConsequences } from './consequences.js'
import { combineMatches } from './combine.js'
import type { Cause, Diagnosis, Evidence, NearMiss } from './diagnosis.js'
import { labelKey } from './eval-data.js'
import { evaluateRules } from './evaluate.js'
import { dataCoverage, dataSpans, withinPeersData, type DataEnds } from './data-span.js'
import { loadForRules } from './load-data.js'
import type { EvalData, EvalWindow, Match } from './match.js'
import { findNearMiss } from './near-miss.js'
import type { Store } from './store/store.js'
import { explainedNames, findTimesUnknown, findUnexplained, NOVELTY_LOOKBACK_MS, UNEXPLAINED_SIGNALS } from './unexplained.js'

/** Which broker and window to diagnose; `now` comes from the caller, never the clock. */
export type DiagnoseOptions = {
  cluster: string
  broker: string
  from: number
  to: number
  now: number
  /** Record the top causes in the store's diagnoses history (for the digest). Default true. */
  record?: boolean
  /** Where each broker's own data ends (a replay, shared logs): peers are read only inside theirs. */
  dataEnds?: DataEnds
}

/** Severity outweighs everything else in the score; corroboration next; recency breaks ties. */
export const SEVERITY_WEIGHT: Record<Severity, number> = { critical: 3000, warning: 2000, info: 1000 }
const PER_SIGNAL = 10
const RECENCY_MAX = 9
/** Matches of one rule and label set whose evidence is merged into its timeline. */
const MATCHES_IN_TIMELINE = 5
/** Causes written to the diagnoses history per call. */
const RECORDED = 3

/**
 * Answers "why is this broker sick": loads the broker's signals once, evaluates every rule, ranks the
 * causes (severity, independent corroborating signals, recency; a cause that `explains` another
 * ranks above it and the other is marked explained), attaches evidence timelines with the explained
 * consequences, lists near misses, and when nothing matched, what is abnormal anyway.
 */
export async function diagnose(rules: readonly Rule[], store: Store, opts: DiagnoseOptions): Promise<Diagnosis> {
  const [{ data, signalsRead }, priorTemplates] = await Promise.all([
    loadForRules(store, { cluster: opts.cluster, broker: opts.broker, rules, from: opts.from, to: opts.to, everything: true }),
    templatesBefore(store, opts),
  ])
  const diagnosis = diagnoseData(rules, withinPeersData(data, opts.dataEnds), { from: opts.from, to: opts.to, now: opts.now }, signalsRead, priorTemplates)
  if (opts.record !== false) {
    const top = diagnosis.causes.filter((c) => !c.explainedBy?.length).slice(0, RECORDED)
    for (const c of top) await store.recordDiagnosis({ at: opts.now, cluster: opts.cluster, broker: opts.broker, ruleId: c.ruleId, severity: c.severity, cause: c.cause })
  }
  return diagnosis
}

/** Error templates the broker (or its cluster's broker-less logs) showed in the day before the window. */
async function templatesBefore(store: Store, opts: DiagnoseOptions): Promise<Set<string>> {
  const q = { cluster: opts.cluster, names: [...UNEXPLAINED_SIGNALS], from: opts.from - NOVELTY_LOOKBACK_MS, to: opts.from - 1 }
  const lists = await Promise.all([store.query({ ...q, broker: opts.broker }), store.query(q)])
  const out = new Set<string>()
  for (const list of lists) for (const s of list) if (s.labels?.template) out.add(s.labels.template)
  return out
}

/**
 * The pure part of `diagnose`, over data already loaded. `priorTemplates` are the error templates of
 * the day before the window (novelty of unexplained errors); omitted, every template counts as new.
 */
export function diagnoseData(rules: readonly Rule[], data: EvalData, window: EvalWindow, signalsSeen: number, priorTemplates: ReadonlySet<string> = new Set()): Diagnosis {
  // Rates are taken over the part of their window the data covers (an excerpt spans minutes).
  if (!data.coverage) {
    const coverage = dataCoverage(data)
    if (coverage) data = { ...data, coverage }
  }
  const scope = { cluster: data.cluster, broker: data.broker }
  const causes: { cause: Cause; rule: Rule }[] = []
  const nearMisses: NearMiss[] = []
  for (const { rule, matches } of evaluateRules(rules, data, window)) {
    if (matches.length === 0) {
      const miss = findNearMiss(rule, data, window)
      if (miss) nearMisses.push(miss)
      continue
    }
    for (const group of groupByLabels(matches)) {
      const latest = group[group.length - 1]
      const shown = group.length > 1 ? { ...combineMatches(group.slice(-MATCHES_IN_TIMELINE)), at: latest.at, values: latest.values, labels: latest.labels } : latest
      const cause = buildCause(rule, shown, scope, group.slice(0, -1))
      cause.matchedAt = latest.at
      cause.matches = group.length
      addConsequences(cause, rule, data, window)
      causes.push({ cause, rule })
    }
  }
  markExplained(causes)
  score(causes.map((c) => c.cause), window)
  const ranked = causes.map((c) => c.cause).sort((a, b) => b.score - a.score || b.matchedAt - a.matchedAt || a.ruleId.localeCompare(b.ruleId))
  const shown = dropExplainedMisses(nearMisses, ranked)
  shown.sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || a.ruleId.localeCompare(b.ruleId))
  const covered = explainedNames(causes.map((c) => c.rule))
  const unexplained = findUnexplained(data, window, covered, priorTemplates)
  // Failure lines no rule explains become class-level baseline causes, ranked below every rule.
  const baselines = baselineCauses(data, window, covered)
  const timesUnknown = findTimesUnknown(data, window)
  return {
    cluster: data.cluster,
    broker: data.broker,
    from: window.from,
    to: window.to,
    at: window.now,
    causes: [...ranked, ...baselines],
    nearMisses: shown,
    abnormal: ranked.length ? [] : summariseAbnormal(data, window),
    signalsSeen,
    rulesEvaluated: rules.length,
    sources: dataSpans(data, window),
    unexplained: unexplained.rows,
    ...(unexplained.omitted ? { unexplainedOmitted: unexplained.omitted } : {}),
    ...(timesUnknown ? { timesUnknown } : {}),
  }
}

/**
 * A near miss whose observed part is already evidence of a cause that matched adds nothing (the
 * timeout was explained by the pause): only misses about unexplained observations are shown.
 */
function dropExplainedMisses(misses: NearMiss[], causes: readonly Cause[]): NearMiss[] {
  const key = (e: Evidence) => `${e.signal}\u0000${e.at}\u0000${e.source}`
  const explained = new Set(causes.flatMap((c) => c.evidence.map(key)))
  return misses.filter((m) => {
    const observed = m.evidence.filter((e) => e.signal !== m.missing)
    return observed.length === 0 || !observed.every((e) => explained.has(key(e)))
  })
}

function groupByLabels(matches: readonly Match[]): Match[][] {
  const groups = new Map<string, Match[]>()
  for (const m of matches) {
    const key = labelKey(m.labels)
    let g = groups.get(key)
    if (!g) groups.set(key, (g = []))
    g.push(m)
  }
  return [...groups.values()].map((g) => g.sort((a, b) => a.at - b.at))
}

/**
 * A cause explains another when every signal the other's match rests on (outside a `not`) is among its `explains`
 * or is what it rests on itself, and at least one is among its `explains`: the other is a consequence (e.g. ISR
 * shrinks after a session expiry; "no broker left" next to the refused connection it follows), not a rival cause.
 */
export function markExplained(causes: { cause: Cause; rule: Rule }[]): void {
  for (const x of causes) {
    const explains = new Set(x.rule.explains.map((e) => e.signal))
    if (!explains.size) continue
    const own = new Set(observedSignalsOfRule(x.rule))
    for (const y of causes) {
      if (y.rule === x.rule) continue
      const needs = observedSignalsOfRule(y.rule)
      if (!needs.length || !needs.every((n) => explains.has(n) || own.has(n)) || !needs.some((n) => explains.has(n))) continue
      if (!x.cause.explainsRules.includes(y.rule.id)) x.cause.explainsRules.push(y.rule.id)
      y.cause.explainedBy = [...(y.cause.explainedBy ?? []), x.rule.id].filter((v, i, a) => a.indexOf(v) === i)
    }
  }
}

/** Scores, then lifts every explaining cause above what it explains (bounded passes, cycle-safe). */
function score(causes: Cause[], window: EvalWindow): void {
  const span = Math.max(1, window.to - window.from)
  for (const c of causes) {
    const recency = Math.round(RECENCY_MAX * Math.min(1, Math.max(0, (c.matchedAt - window.from) / span)) * 10) / 10
    c.scoreParts = { severity: SEVERITY_WEIGHT[c.severity], corroboration: c.corroboration * PER_SIGNAL, recency, explains: 0 }
    c.score = c.scoreParts.severity + c.scoreParts.corroboration + recency
  }
  const byRule = new Map<string, Cause[]>()
  for (const c of causes) byRule.set(c.ruleId, [...(byRule.get(c.ruleId) ?? []), c])
  for (let pass = 0; pass < causes.length; pass++) {
    let changed = false
    for (const x of causes) {
      const explained = x.explainsRules.flatMap((id) => byRule.get(id) ?? [])
      const needed = Math.max(-Infinity, ...explained.map((y) => y.score + 1))
      if (needed > x.score) {
        x.scoreParts!.explains += needed - x.score
        x.score = needed
        changed = true
      }
    }
    if (!changed) break
  }
}

function severityRank(s: Severity): number {
  return SEVERITY_WEIGHT[s]
}
