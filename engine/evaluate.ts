import type { Cond, Rule, StreamCond } from '../dsl/ast.js'
import { describeAtom, describeCond } from './describe-cond.js'
import { combineMatches, labelsCompatible } from './combine.js'
import { labelKey } from './eval-data.js'
import { evaluateAggregate } from './evaluate-aggregate.js'
import { evaluateStream } from './evaluate-stream.js'
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
    case 'temporal':
      return inWindow(evaluateTemporal(cond, streamOf(cond.left, data, window), streamOf(cond.right, data, window)), window)
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
        const latest = latestPerGroup(evaluateCond(operand, data, window))
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
  const key = ['stream', cond.forMs ?? '', cond.compare?.op ?? '', cond.compare?.value.value ?? '', describeAtom(cond.atom)].join('\u0000')
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
  for (const l of left) for (const r of right) if (labelsCompatible(l.labels, r.labels)) out.push(combineMatches([l, r]))
  return out
}
