import type { AggregateCond, Cond, Rule, StreamCond, TemporalCond } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'
import { describeCond, describeStream, formatMs } from './describe-cond.js'
import type { NearMiss } from './diagnosis.js'
import { evaluateCond, streamOf } from './evaluate.js'
import { evaluateAggregate } from './evaluate-aggregate.js'
import { intervalGap } from './evaluate-temporal.js'
import { compareAt, thresholdAt } from './fact-compare.js'
import { formatComparison } from '../dsl/format-cond.js'
import { lookupSignal } from '../signals/catalogue.js'
import { timeOfDay, toEvidence } from './evidence.js'
import { atomFilter, moreTelling } from './filter.js'
import type { EvalData, EvalWindow, Match } from './match.js'
import { MISSING_HINTS, NO_DATA_HINTS, phraseOf } from './signal-phrases.js'
import { signalDimension, signalKind } from './signal-kind.js'

/** A value at least this share of its threshold makes an unmet comparison worth mentioning. */
const NEAR_RATIO = 0.5

/** `hint` replaces the missing signal's usual hint when the evidence says otherwise. */
type Partial = { message: string; evidence: Signal[]; missing?: string; hint?: string }

/** How far a near miss looks for a partner that would have matched but was too far away. */
const FAR_PARTNER_MIN_MS = 60_000

/**
 * For a rule that did not match: did part of it hold? A temporal rule with only one side present, an
 * `and` with some operands true, an aggregate or comparison that came within reach of its threshold.
 * The message says what held, what was missing, and where to look instead.
 */
export function findNearMiss(rule: Rule, data: EvalData, window: EvalWindow): NearMiss | undefined {
  const partial = partialOf(rule.when, data, window)
  if (!partial) return undefined
  const hint = partial.hint ?? (partial.missing ? MISSING_HINTS[partial.missing] : undefined)
  const miss: NearMiss = {
    ruleId: rule.id,
    severity: rule.severity,
    message: hint ? `${partial.message} — ${hint}` : partial.message,
    evidence: dedupe(partial.evidence).map((s) => toEvidence(s)),
  }
  if (partial.missing) miss.missing = partial.missing
  return miss
}

function partialOf(cond: Cond, data: EvalData, window: EvalWindow): Partial | undefined {
  switch (cond.kind) {
    case 'group':
      return partialOf(cond.inner, data, window)
    case 'temporal':
      return partialTemporal(cond, data, window)
    case 'and':
      return partialAnd(cond.operands, data, window)
    case 'aggregate':
      return partialAggregate(cond, data, window)
    case 'stream':
      return partialStream(cond, data, window)
    default:
      return undefined
  }
}

function partialTemporal(cond: TemporalCond, data: EvalData, window: EvalWindow): Partial | undefined {
  const inWindow = (ms: Match[]) => ms.filter((m) => m.at >= window.from && m.at <= window.to)
  const left = inWindow(streamOf(cond.left, data, window))
  const right = inWindow(streamOf(cond.right, data, window))
  const relation = cond.op === 'within' ? `within ${cond.windowText}` : `${cond.op} it within ${cond.windowText}`
  if (left.length && right.length) {
    const [l, r] = closestPair(left, right)
    const gap = formatMs(intervalGap(l.firstAt, l.lastAt, r.firstAt, r.lastAt))
    return {
      message: `${occurrence(cond.left, l)} and ${occurrence(cond.right, r)}, but not ${relation} of each other (${gap} apart)`,
      evidence: [...l.evidence, ...r.evidence],
    }
  }
  const [present, presentCond, absentCond] = left.length ? [left, cond.left, cond.right] : [right, cond.right, cond.left]
  if (!present.length) return undefined
  const latest = present[present.length - 1]
  const more = present.length > 1 ? ` (${present.length} in the window)` : ''
  const absent = absentCond.atom.signal
  const head = `${occurrence(presentCond, latest)}${more}, but no ${describeStream(absentCond)} ${relation}`
  // One that does satisfy the comparison, only too far away: say so, and never advise that it was too small.
  const far = farPartner(absentCond, data, latest, Math.max(FAR_PARTNER_MIN_MS, cond.windowMs * 10))
  if (far) {
    const gap = formatMs(Math.round(intervalGap(far.start, far.signal.at, latest.firstAt, latest.lastAt)))
    return {
      message: `${head} (${phraseOf(absent)} of ${valueText(far.signal)} ending at ${timeOfDay(far.signal.at)} was ${gap} away)`,
      evidence: [...latest.evidence, far.signal],
      missing: absent,
      hint: `one was logged ${gap} away: check that the two logs' clocks and time zones agree before looking elsewhere`,
    }
  }
  const nearby = closestValue(absentCond, data, latest.at, cond.windowMs)
  const nearbyText = nearby ? ` (${phraseOf(absent).replace(/^an? /, 'the nearest ')} was ${valueText(nearby)} at ${timeOfDay(nearby.at)})` : ''
  const partial: Partial = { message: `${head}${nearbyText}`, evidence: nearby ? [...latest.evidence, nearby] : latest.evidence, missing: absent }
  if (!data.series.get(absent)?.length && NO_DATA_HINTS[absent]) partial.hint = NO_DATA_HINTS[absent]
  return partial
}

function partialAnd(operands: Cond[], data: EvalData, window: EvalWindow): Partial | undefined {
  const held: { cond: Cond; match: Match }[] = []
  const missing: Cond[] = []
  for (const c of operands) {
    const ms = evaluateCond(c, data, window)
    if (ms.length) held.push({ cond: c, match: ms[ms.length - 1] })
    else missing.push(c)
  }
  // An exclusion that failed (`not X` where X happened) means the rule does not apply: not a near miss.
  // A `not` or a standing fact holding is no sign of the cause either: something must have happened.
  if (!missing.length || missing.every((m) => unwrap(m).kind === 'not')) return undefined
  if (!held.some((h) => isOccurrence(h.cond))) return undefined
  // Authors lead with the trigger: without it, only a majority of the other parts makes a near miss,
  // or a trigger that itself nearly held (the timeout was there, the pause too short).
  const positives = operands.filter((o) => unwrap(o).kind !== 'not')
  const heldPositives = held.filter((h) => unwrap(h.cond).kind !== 'not').length
  const triggerNearly = missing.includes(positives[0]) && partialOf(positives[0], data, window) !== undefined
  if (!held.some((h) => h.cond === positives[0]) && heldPositives * 2 <= positives.length && !triggerNearly) return undefined
  const shown = held.filter((h) => unwrap(h.cond).kind !== 'not')
  const heldText = shown.map((h) => `${describeCond(h.cond)} held (last at ${timeOfDay(h.match.at)})`).join(' and ')
  const positive = missing.filter((m) => unwrap(m).kind !== 'not')
  if (!positive.length) return undefined
  const inner = positive.map((m) => partialOf(m, data, window))
  const missingText = positive.map((m, i) => (inner[i] ? inner[i]!.message : `no ${describeCond(m)}`)).join('; ')
  const firstMissing = unwrap(positive[0])
  const result: Partial = {
    message: `${heldText}, but ${missingText}`,
    evidence: [...shown.flatMap((h) => h.match.evidence.slice(-3)), ...inner.flatMap((p) => p?.evidence ?? [])],
    missing: inner[0]?.missing ?? (firstMissing.kind === 'stream' || firstMissing.kind === 'aggregate' ? firstMissing.atom.signal : undefined),
  }
  if (inner[0]?.hint) result.hint = inner[0].hint
  return result
}

function unwrap(c: Cond): Cond {
  return c.kind === 'group' ? unwrap(c.inner) : c
}

/** Something happened (an event, a sample, an aggregate), as opposed to a standing fact or an absence. */
function isOccurrence(c: Cond): boolean {
  const u = unwrap(c)
  if (u.kind === 'not') return false
  if (u.kind === 'stream') return signalKind(u.atom.signal) !== 'fact'
  if (u.kind === 'and' || u.kind === 'or') return u.operands.some(isOccurrence)
  return true
}

function partialAggregate(cond: AggregateCond, data: EvalData, window: EvalWindow): Partial | undefined {
  const op = cond.compare.op
  const greater = op === '>' || op === '>='
  if (!greater && op !== '<' && op !== '<=') return undefined
  const open: AggregateCond = { ...cond, compare: { op: greater ? '>=' : '<=', value: { ...cond.compare.value, value: greater ? -Infinity : Infinity } } }
  let peak: Match | undefined
  for (const m of evaluateAggregate(open, data, window)) {
    if (m.at < window.from) continue
    if (!peak || moreTelling(cond.compare, m.values[cond.atom.signal].value, peak.values[cond.atom.signal].value)) peak = m
  }
  if (!peak) return undefined
  const v = peak.values[cond.atom.signal]
  if (!closeEnough(v.value, cond.compare.value.value, greater)) return undefined
  const where = Object.entries(peak.labels).map(([k, val]) => `${k}=${val}`).join(', ')
  // The evidence is the window at its peak; its last event is when the peak was reached.
  const peakAt = peak.evidence[peak.evidence.length - 1]?.at ?? peak.at
  return {
    message: `${cond.fn}(${cond.atom.signal}) over ${cond.overText} ${greater ? 'peaked' : 'bottomed'} at ${formatValue(v.value, v.dimension)}${v.suffix ?? ''}${where ? ` (${where})` : ''} at ${timeOfDay(peakAt)}, short of ${cond.compare.op} ${cond.compare.value.text}`,
    evidence: peak.evidence.slice(-5),
  }
}

function partialStream(cond: StreamCond, data: EvalData, window: EvalWindow): Partial | undefined {
  if (!cond.compare || cond.forMs !== undefined) return undefined
  const op = cond.compare.op
  const greater = op === '>' || op === '>='
  if (!greater && op !== '<' && op !== '<=') return undefined
  const keep = atomFilter(cond.atom)
  let best: Signal | undefined
  for (const s of data.series.get(cond.atom.signal) ?? []) {
    if (s.at < window.from || s.at > window.to || !keep(s) || s.value === undefined) continue
    if (!best || moreTelling(cond.compare, s.value, best.value!)) best = s
  }
  const threshold = best ? thresholdAt(cond.compare, data, best.at, best.labels) : undefined
  if (!best || threshold === undefined || !closeEnough(best.value!, threshold, greater)) return undefined
  const limit = cond.compare.of ? `${formatComparison(cond.compare)} (${formatValue(threshold, signalDimension(cond.atom.signal))})` : cond.compare.value.text
  return {
    message: `the ${greater ? 'largest' : 'smallest'} ${cond.atom.signal} was ${valueText(best)} at ${timeOfDay(best.at)}, short of ${op} ${limit}`,
    evidence: [best],
  }
}

function closeEnough(value: number, threshold: number, greater: boolean): boolean {
  if (!Number.isFinite(value) || threshold <= 0) return false
  return greater ? value >= threshold * NEAR_RATIO : value <= threshold / NEAR_RATIO
}

/** "a ZooKeeper session timeout (7.8s) at 01:28:02" */
function occurrence(cond: StreamCond, m: Match): string {
  const s = m.evidence.find((e) => e.name === cond.atom.signal) ?? m.evidence[0]
  const value = s && s.value !== undefined ? ` (${valueText(s)})` : ''
  return `${phraseOf(cond.atom.signal)}${value} at ${timeOfDay(m.at)}`
}

function valueText(s: Signal): string {
  return s.value === undefined ? '' : formatValue(s.value, signalDimension(s.name))
}

/** The atom's most telling value (ignoring the comparison) within d of t: what the missing side did do. */
function closestValue(cond: StreamCond, data: EvalData, t: number, d: number): Signal | undefined {
  const keep = atomFilter(cond.atom)
  let best: Signal | undefined
  for (const s of data.series.get(cond.atom.signal) ?? []) {
    if (s.at < t - d) continue
    if (s.at > t + d) break
    if (!keep(s) || s.value === undefined) continue
    if (!best || moreTelling(cond.compare, s.value, best.value!)) best = s
  }
  return best
}

/**
 * The event of `cond` nearest to `m` (by the gap between their intervals) that satisfies the whole
 * condition, looking `range` either side: a partner that would have matched had it been closer.
 */
function farPartner(cond: StreamCond, data: EvalData, m: Match, range: number): { signal: Signal; start: number } | undefined {
  const keep = atomFilter(cond.atom)
  const lasting = lookupSignal(cond.atom.signal)?.lasting === true
  let best: { signal: Signal; start: number; gap: number } | undefined
  for (const s of data.series.get(cond.atom.signal) ?? []) {
    if (s.at < m.firstAt - range) continue
    const start = lasting && s.value !== undefined ? s.at - s.value : s.at
    if (start > m.lastAt + range) break
    if (!keep(s) || (cond.compare && !compareAt(s.value, cond.compare, data, s.at, s.labels))) continue
    const gap = intervalGap(start, s.at, m.firstAt, m.lastAt)
    if (!best || gap < best.gap) best = { signal: s, start, gap }
  }
  return best
}

/** The two matches, one of each list, closest in time: a linear merge. */
function closestPair(a: readonly Match[], b: readonly Match[]): [Match, Match] {
  let best: [Match, Match] = [a[0], b[0]]
  let gap = Infinity
  let j = 0
  for (const m of a) {
    while (j + 1 < b.length && b[j + 1].at <= m.at) j++
    for (const k of [j, j + 1]) {
      if (k >= b.length) continue
      const g = Math.abs(b[k].at - m.at)
      if (g < gap) {
        gap = g
        best = [m, b[k]]
      }
    }
  }
  return best
}

function dedupe(signals: Signal[]): Signal[] {
  return [...new Set(signals)].sort((x, y) => x.at - y.at)
}
