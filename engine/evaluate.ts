import type { Cond, Rule, StreamCond } from '../dsl/ast.js'
import { describeAtom, describeCond } from './describe-cond.js'
import { combinePair, labelsCompatible } from './combine.js'
import { labelKey } from './eval-data.js'
import { evaluateAggregate } from './evaluate-aggregate.js'
import { evaluateStream, pointMatch } from './evaluate-stream.js'
import { compareAt } from './fact-compare.js'
import { atomFilter } from './filter.js'
import { signalKind } from './signal-kind.js'
import { evaluateTemporal } from './evaluate-temporal.js'
import type { EvalData, EvalWindow, Match } from './match.js'

/** A rule with the occasions it held in the window, oldest first. */
export type RuleResult = { rule: Rule; matches: Match[] }

/**
 * Evaluates one rule over one broker's data. Pure: same data and window, same answer, whatever the
 * clock says. A match is kept when it holds somewhere in [from, to].
 */
export function evaluateRule(rule: Rule, data: EvalData, window: EvalWindow): RuleResult {
  return { rule, matches: evaluateCond(rule.when, data, window) }
}

/** Evaluates every rule over the same data, loaded once. */
export function evaluateRules(rules: readonly Rule[], data: EvalData, window: EvalWindow): RuleResult[] {
  return rules.map((r) => evaluateRule(r, data, window))
}

/**
 * The matches of any condition within the window. `and`/`or`/`not` combine conditions over the whole
 * window: `not A` holds when A never held in it; `and` needs every operand to have held, joined on
 * the group labels they share (the latest match of each operand per group).
 */
export function evaluateCond(cond: Cond, data: EvalData, window: EvalWindow): Match[] {
  switch (cond.kind) {
    case 'group':
      return evaluateCond(cond.inner, data, window)
    case 'stream':
      return inWindow(streamOf(cond, data, window), window)
    case 'temporal': {
      // The side with the shorter series first: when it never held, the other is never materialised.
      const [first, second] = seriesLength(cond.left, data) <= seriesLength(cond.right, data) ? [cond.left, cond.right] : [cond.right, cond.left]
      if (streamOf(first, data, window).length === 0) return []
      if (streamOf(second, data, window).length === 0) return []
      const intervals = (c: StreamCond) => signalKind(c.atom.signal) === 'event'
      return inWindow(evaluateTemporal(cond, streamOf(cond.left, data, window), streamOf(cond.right, data, window), intervals(cond.left), intervals(cond.right)), window)
    }
    case 'aggregate':
      return memoised(data, window, `agg\u0000${cond.compare.value.value}\u0000${describeCond(cond)}`, () => inWindow(evaluateAggregate(cond, data, window), window))
    case 'not':
      return evaluateCond(cond.operand, data, window).length === 0
        ? [{ at: window.to, firstAt: window.from, lastAt: window.to, evidence: [], evidenceTotal: 0, labels: {}, values: {} }]
        : []
    case 'or':
      return cond.operands.flatMap((c) => evaluateCond(c, data, window)).sort((a, b) => a.at - b.at)
    case 'and': {
      let joined: Match[] | undefined
      for (const operand of cond.operands) {
        const latest = latestPerGroup(isPlainStream(operand) ? latestPoint(operand, data, window) : evaluateCond(operand, data, window))
        if (latest.length === 0) return []
        joined = joined ? join(joined, latest) : latest
        if (joined.length === 0) return []
      }
      return (joined ?? []).sort((a, b) => a.at - b.at)
    }
  }
}

const streams = new WeakMap<EvalData, Map<string, Match[]>>()

/**
 * Stream conditions recur across a rule pack (`zk.session_timeout` in every session rule), so each
 * distinct one is evaluated once per data set and window. Matches are never mutated after creation,
 * which is what makes sharing them safe.
 */
export function streamOf(cond: StreamCond, data: EvalData, window: EvalWindow): Match[] {
  const key = ['stream', cond.forMs ?? '', cond.compare?.op ?? '', cond.compare?.value.value ?? '', cond.compare?.of?.signal ?? '', describeAtom(cond.atom)].join('\u0000')
  return memoised(data, window, key, () => evaluateStream(cond, data, window))
}

function memoised(data: EvalData, window: EvalWindow, key: string, compute: () => Match[]): Match[] {
  let memo = streams.get(data)
  if (!memo) streams.set(data, (memo = new Map()))
  const full = `${window.from}\u0000${window.to}\u0000${window.now}\u0000${key}`
  let matches = memo.get(full)
  if (!matches) memo.set(full, (matches = compute()))
  return matches
}

function seriesLength(cond: StreamCond, data: EvalData): number {
  return data.series.get(cond.atom.signal)?.length ?? 0
}

/** An event or sample condition (not sustained, not a fact): its matches are single points. */
function isPlainStream(cond: Cond): cond is StreamCond {
  return cond.kind === 'stream' && cond.forMs === undefined && signalKind(cond.atom.signal) !== 'fact'
}

/**
 * What `and` keeps of a point condition: its latest match in the window, found walking back from the
 * window's end, instead of one match per sample (`safepoint.total < 1s` holds at nearly every sample).
 */
function latestPoint(cond: StreamCond, data: EvalData, window: EvalWindow): Match[] {
  const series = data.series.get(cond.atom.signal) ?? []
  const keep = atomFilter(cond.atom)
  let lo = 0
  let hi = series.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (series[mid].at <= window.to) lo = mid + 1
    else hi = mid
  }
  for (let i = lo - 1; i >= 0 && series[i].at >= window.from; i--) {
    const s = series[i]
    if (keep(s) && (!cond.compare || compareAt(s.value, cond.compare, data, s.at, s.labels))) return [pointMatch(s)]
  }
  return []
}

function inWindow(matches: Match[], window: EvalWindow): Match[] {
  return matches.filter((m) => m.at <= window.to && m.lastAt >= window.from)
}

function latestPerGroup(matches: readonly Match[]): Match[] {
  const latest = new Map<string, Match>()
  for (const m of matches) {
    const key = labelKey(m.labels)
    const prev = latest.get(key)
    if (!prev || m.at >= prev.at) latest.set(key, m)
  }
  return [...latest.values()]
}

function join(left: readonly Match[], right: readonly Match[]): Match[] {
  const out: Match[] = []
  for (const l of left) for (const r of right) if (labelsCompatible(l.labels, r.labels)) out.push(combinePair(l, r))
  return out
}
