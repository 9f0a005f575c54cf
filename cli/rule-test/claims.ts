import { readFile } from 'node:fs/promises'
import { parse as parseYaml } from 'yaml'
import type { Atom, CompareOp, Comparison, Cond, Rule, Text } from '../../dsl/ast.js'
import { observedSignalsOfRule } from '../../dsl/signals-of-rule.js'
import { CLUSTER_LOSS_SERIES, isClusterLossSeries } from '../../engine/cluster-loss.js'
import { CONSUMER_LAG_SOURCES, consumerLagInputsOf, isConsumerLagSeries } from '../../engine/consumer-lag-series.js'
import { CONTROLLER_SUM_SOURCE, isControllerSumSeries } from '../../engine/controller-sum.js'
import { isTimeToFullSeries, TIME_TO_FULL_SOURCE } from '../../engine/disk-time-to-full.js'
import { diagnose } from '../../engine/diagnose.js'
import type { Cause, Evidence } from '../../engine/diagnosis.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'
import type { CaseResult } from './run-case.js'

/**
 * The claims pass of `kafka-why test --claims`: a cause's sentence must rest on its evidence. For every
 * passing `expect` of a case, each signal the rule's condition reads outside any `not` is removed from
 * the case's data in turn (for a literal comparison, `safepoint.sync > 2s`, only the events that
 * satisfy it; for a series the engine derives, such as zk.cluster_session_loss or group.status, the
 * events it is derived from: for a consumer group's status, that group's commits and its partitions'
 * log ends) and the rule is evaluated again on the same window, alone. The claim is gone when:
 *   1. the rule no longer fires on that broker; or
 *   2. its cause text interpolates the signal (`{safepoint.sync}`) and the value it showed is no longer
 *      in the text; or
 *   3. the signal is not required by the condition (it sits in one alternative of an `or`), the rule's
 *      remaining match cites no event of it, and the text does not interpolate it: another alternative
 *      holds on other evidence and the sentence does not mention the removed fact.
 * Anything else survived: the sentence still stands with its fact gone. A reasoned allow-list
 * (rules/tests/claims-allow.yaml) names the survivals that are right.
 */

/** How one claim ended: gone (and how), survived, or not checkable (the rule alone did not fire). */
export type ClaimOutcome = 'not-fired' | 'text-changed' | 'other-evidence' | 'survived' | 'unchecked'

/** One claim check: a rule, a broker, a removed signal, in one test case. */
export type ClaimCheck = {
  ruleId: string
  signal: string
  broker: string
  cluster: string
  test: string
  file: string
  line: number
  outcome: ClaimOutcome
  /** Events removed from the case's data. */
  removed: number
  /** The cause text before and after the removal (after: only when the rule still fired). */
  before?: string
  after?: string
  /** The allow-list's reason, when a survival is allowed. */
  allowed?: string
}

/** One allow-list entry: a survival that is right, and why. */
export type ClaimAllowance = { rule: string; signal: string; why: string }

/** An allow-list file's entries, or the problem reading it. */
export async function readClaimAllowList(file: string): Promise<{ entries: ClaimAllowance[]; error?: string }> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return { entries: [] }
  }
  try {
    const data = parseYaml(text) as { allow?: unknown } | null
    const list = data?.allow ?? []
    if (!Array.isArray(list)) return { entries: [], error: `${file}: \`allow:\` is a list of { rule, signal, why }` }
    const entries: ClaimAllowance[] = []
    for (const [i, e] of list.entries()) {
      const ok = e && typeof e === 'object' && typeof e.rule === 'string' && typeof e.signal === 'string' && typeof e.why === 'string' && e.why.trim().length > 0
      if (!ok) return { entries: [], error: `${file}: allow[${i}] needs rule, signal and a non-empty why` }
      entries.push({ rule: e.rule, signal: e.signal, why: e.why })
    }
    return { entries }
  } catch (err) {
    return { entries: [], error: `${file}: ${(err as Error).message}` }
  }
}

const HOLDS: Record<CompareOp, (a: number, b: number) => boolean> = {
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
}

/**
 * Which events of `signal` carry the rule's claim: with only literal comparisons on the signal's own
 * values (`safepoint.sync > 2s`), those satisfying one of them; otherwise (no comparison, an aggregate,
 * a share of a fact) every event of that name. For a derived series, the recorded events it is worked
 * out from (derivedRemoval): `claimed` is the cause as it stood, whose evidence says which group the
 * claim is about, and the case's data.
 */
export function removalOf(rule: Rule, signal: string, claimed?: { cause: Cause; signals: readonly Signal[] }): (s: Signal) => boolean {
  const derived = derivedRemoval(signal, claimed?.cause.evidence ?? [], claimed?.signals ?? [])
  if (derived) return derived
  const comparisons: Comparison[] = []
  let all = false
  const visit = (cond: Cond): void => {
    switch (cond.kind) {
      case 'not':
        return
      case 'group':
        return visit(cond.inner)
      case 'and':
      case 'or':
        return cond.operands.forEach(visit)
      case 'temporal':
        visit(cond.left)
        visit(cond.right)
        return
      case 'aggregate':
        if (cond.atom.signal === signal) all = true
        return
      case 'stream':
        if (cond.atom.signal !== signal) return
        if (!cond.compare || cond.compare.of || cond.forMs !== undefined) all = true
        else comparisons.push(cond.compare)
    }
  }
  visit(rule.when)
  if (all || comparisons.length === 0) return (s) => s.name === signal
  return (s) => s.name === signal && s.value !== undefined && comparisons.some((c) => HOLDS[c.op](s.value!, c.value.value))
}

/**
 * The signals a series the engine derives at evaluation time is made of (a cluster-wide loss, the
 * controller count, a disk's time to full, a consumer group's status): no event of the derived name
 * is in the data, so its claim is removed at its source.
 */
export function derivedFrom(signal: string): readonly string[] | undefined {
  if (isClusterLossSeries(signal)) return CLUSTER_LOSS_SERIES[signal].from
  if (isControllerSumSeries(signal)) return [CONTROLLER_SUM_SOURCE]
  if (isTimeToFullSeries(signal)) return [TIME_TO_FULL_SOURCE]
  if (isConsumerLagSeries(signal)) return CONSUMER_LAG_SOURCES
  return undefined
}

/**
 * The recorded events a derived series' claim rests on, or undefined for a recorded signal. A
 * consumer group's status is removed for the groups (or group-partitions) the cause's evidence
 * names: their commits and their partitions' log ends, so the group has no status left while other
 * groups keep theirs. Any other derived series, or a cause citing none of its events, loses every
 * source event.
 */
export function derivedRemoval(signal: string, evidence: readonly Evidence[], signals: readonly Signal[]): ((s: Signal) => boolean) | undefined {
  const sources = derivedFrom(signal)
  if (!sources) return undefined
  const cited = evidence.filter((e) => !e.consequence && e.signal === signal && e.labels?.group)
  if (isConsumerLagSeries(signal) && cited.length) return consumerLagInputsOf(cited, signals)
  return (s) => sources.includes(s.name)
}

/** The signals every alternative of a condition needs (outside `not`): an `or` needs only what all its operands need. */
export function requiredSignals(cond: Cond): Set<string> {
  const atoms = (a: Atom[]) => new Set(a.map((x) => x.signal))
  switch (cond.kind) {
    case 'not':
      return new Set()
    case 'group':
      return requiredSignals(cond.inner)
    case 'stream':
    case 'aggregate':
      return atoms([cond.atom])
    case 'temporal':
      return atoms([cond.left.atom, cond.right.atom])
    case 'and':
      return new Set(cond.operands.flatMap((o) => [...requiredSignals(o)]))
    case 'or': {
      const [first, ...rest] = cond.operands.map(requiredSignals)
      return new Set([...first].filter((s) => rest.every((r) => r.has(s))))
    }
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The value a placeholder took in a rendered text, read back against the rule's template; undefined when not found. */
export function interpolatedValue(template: Text, rendered: string, name: string): string | undefined {
  if (!template.parts.some((p) => p.kind === 'ref' && p.name === name)) return undefined
  const groups: string[] = []
  const re = template.parts.map((p) => (p.kind === 'literal' ? escapeRe(p.text) : (groups.push(p.name), '([\\s\\S]*?)'))).join('')
  const m = new RegExp(`^${re}$`).exec(rendered)
  if (!m) return undefined
  const i = groups.indexOf(name)
  return m[i + 1]
}

/** Runs the rule alone over `signals` for one broker and returns its cause there, if it fired. */
async function causeOf(rule: Rule, signals: readonly Signal[], at: { cluster: string; broker: string; from: number; to: number; now: number }): Promise<Cause | undefined> {
  const store = new MemoryStore()
  if (signals.length) await store.append([...signals])
  const d = await diagnose([rule], store, { ...at, record: false })
  await store.close()
  return d.causes.find((c) => c.ruleId === rule.id)
}

function findRule(rules: readonly Rule[], name: string): Rule | undefined {
  return rules.find((r) => r.id === name || r.name === name) ?? rules.find((r) => r.id.endsWith(`#${name}`))
}

/**
 * The claim checks of one case that ran with its data kept (`signals`): every passing `expect`, on
 * each broker where its rule fired (or the broker it names), for each signal the rule observes.
 */
export async function checkClaimsOfCase(result: CaseResult, rules: readonly Rule[], signals: readonly Signal[]): Promise<ClaimCheck[]> {
  const run = result.run
  if (!run) return []
  const out: ClaimCheck[] = []
  const seen = new Set<string>()
  const passed = result.assertions.filter((a) => a.kind === 'expect' && a.ok && a.rule)
  for (const a of passed) {
    const rule = findRule(rules, a.rule!)
    if (!rule) continue
    const exp = result.test.expect.find((e) => e.line === a.line && e.rule === a.rule)
    const diags = run.diagnoses.filter((d) => (exp?.broker === undefined || d.broker === exp.broker) && d.causes.some((c) => c.ruleId === rule.id))
    const required = requiredSignals(rule.when)
    for (const d of diags) {
      const key = `${rule.id}\0${d.cluster}\0${d.broker}`
      if (seen.has(key)) continue
      seen.add(key)
      const at = { cluster: d.cluster, broker: d.broker, from: run.from, to: run.to, now: run.now }
      const base = await causeOf(rule, signals, at)
      for (const signal of observedSignalsOfRule(rule)) {
        const check: ClaimCheck = { ruleId: rule.id, signal, broker: d.broker, cluster: d.cluster, test: result.test.name, file: result.test.file, line: a.line, outcome: 'unchecked', removed: 0 }
        out.push(check)
        if (!base) continue
        check.before = base.cause
        const drop = removalOf(rule, signal, { cause: base, signals })
        const kept = signals.filter((s) => !drop(s))
        check.removed = signals.length - kept.length
        const after = await causeOf(rule, kept, at)
        check.outcome = judge(rule, signal, required.has(signal), base, after)
        if (after) check.after = after.cause
      }
    }
  }
  return out
}

/** The criterion of the module comment, applied to one removal. */
export function judge(rule: Rule, signal: string, required: boolean, before: Cause, after: Cause | undefined): ClaimOutcome {
  if (!after) return 'not-fired'
  const value = interpolatedValue(rule.cause, before.cause, signal)
  if (value !== undefined && !after.cause.includes(value)) return 'text-changed'
  const interpolates = rule.cause.parts.some((p) => p.kind === 'ref' && p.name === signal)
  if (!required && !interpolates && !after.evidence.some((e) => !e.consequence && e.signal === signal)) return 'other-evidence'
  return 'survived'
}
