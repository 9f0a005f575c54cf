import type { StreamCond } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { labelKey } from './eval-data.js'
import { factsOf } from './derived-facts.js'
import { compareAt, factAt, gaugeAt } from './fact-compare.js'
import { atomFilter, moreTelling } from './filter.js'
import { lookupSignal } from '../signals/catalogue.js'
import type { EvalData, EvalWindow, Match, MatchValue } from './match.js'
import { signalDimension, signalKind } from './signal-kind.js'

/**
 * Stream conditions: the events of an atom where the comparison holds, a gauge sustained over a
 * duration, or a fact's latest value. Returns matches up to `window.to`, including those before
 * `window.from`, because a temporal operator may pair them with an event inside the window.
 */
export function evaluateStream(cond: StreamCond, data: EvalData, window: EvalWindow): Match[] {
  const name = cond.atom.signal
  if (signalKind(name) === 'fact') return evaluateFact(cond, data, window)
  const keep = atomFilter(cond.atom)
  const series = data.series.get(name) ?? []
  if (cond.forMs !== undefined && cond.compare) return evaluateSustained(cond, series, data, window)
  const out: Match[] = []
  for (const s of series) {
    if (s.at > window.to) break
    if (!keep(s)) continue
    if (cond.compare && !compareAt(s.value, cond.compare, data, s.at, s.labels)) continue
    out.push(cond.compare?.of ? withFactValue(pointMatch(s), cond.compare.of.signal, data, s.at, s.labels) : pointMatch(s))
  }
  return out
}

/** Shared by every point match: group labels only come from `by`, and matches are never mutated. */
const NO_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>

/**
 * A match resting on one signal. A lasting signal (a pause: its value is how long it lasted, `at` its
 * end) starts its value earlier, so `firstAt` is the pause's start.
 */
export function pointMatch(s: Signal): Match {
  return {
    at: s.at,
    firstAt: s.value !== undefined && s.value > 0 && lookupSignal(s.name)?.lasting ? s.at - s.value : s.at,
    lastAt: s.at,
    evidence: [s],
    evidenceTotal: 1,
    labels: NO_LABELS,
    values: valueOf(s),
  }
}

/** The fact a comparison read, as a value the rule's text can name: `{zk.session_timeout_limit}`. */
function withFactValue(m: Match, fact: string, data: EvalData, t: number, labels?: Readonly<Record<string, string>>): Match {
  const f = signalKind(fact) === 'gauge' ? gaugeAt(data, fact, t, labels) : factAt(data, fact, t)
  if (f?.value !== undefined) m.values[fact] = { value: f.value, dimension: signalDimension(fact) }
  return m
}

function valueOf(s: Signal): Record<string, MatchValue> {
  return s.value === undefined ? {} : { [s.name]: { value: s.value, dimension: signalDimension(s.name) } }
}

/**
 * Facts hold from when they were recorded until replaced, so a match starts when the fact was
 * recorded (possibly before the window) and lasts to the window's end. Facts recorded after `now`
 * are not yet known.
 */
function evaluateFact(cond: StreamCond, data: EvalData, window: EvalWindow): Match[] {
  const keep = atomFilter(cond.atom)
  const out: Match[] = []
  for (const f of factsOf(data)) {
    if (f.name !== cond.atom.signal || f.at > window.now || !keep(f)) continue
    if (cond.compare && !compareAt(f.value, cond.compare, data, f.at, f.labels)) continue
    out.push({
      at: Math.min(f.at, window.to),
      firstAt: f.at,
      lastAt: window.to,
      evidence: [f],
      evidenceTotal: 1,
      labels: factScope(f),
      values: valueOf(f),
    })
  }
  return out.sort((a, b) => a.at - b.at)
}

/**
 * The labels that say what a fact is about (a topic's config), so `and` joins it with that topic's
 * events only; a broker-wide fact has none and joins every topic. Labels that describe the value
 * (`version`, `from`) are not scope.
 */
function factScope(f: Signal): Record<string, string> {
  return f.labels?.topic === undefined ? {} : { topic: f.labels.topic }
}

/**
 * `gauge > X for D`: every sample of one series (one reporter's, one label set's) over D satisfies X, and the samples span at least D.
 * A run breaks at a failing sample or at a gap longer than D (no samples cover it). One match per run,
 * starting when the run first spanned D.
 */
function evaluateSustained(cond: StreamCond, series: readonly Signal[], data: EvalData, window: EvalWindow): Match[] {
  const keep = atomFilter(cond.atom)
  const forMs = cond.forMs ?? 0
  const compare = cond.compare!
  const runs = new Map<string, { start: Signal; last: Signal; worst: Signal; count: number }>()
  const out: Match[] = []
  // A gauge keeps its value until the next sample: a run ended by a failing sample held until just
  // before it; a run still open held to the window's end, unless its last sample is older than D.
  const close = (run: { start: Signal; last: Signal; worst: Signal; count: number }, endedBy?: Signal) => {
    if (run.last.at - run.start.at < forMs) return
    const evidence = [run.start, run.worst, run.last].filter((s, i, a) => a.indexOf(s) === i).sort((a, b) => a.at - b.at)
    const heldUntil = endedBy && endedBy.at - run.last.at <= forMs ? endedBy.at - 1 : Math.min(window.to, run.last.at + forMs)
    out.push({
      at: run.start.at + forMs,
      firstAt: run.start.at,
      lastAt: Math.max(run.last.at, heldUntil),
      evidence,
      evidenceTotal: run.count,
      labels: {},
      values: valueOf(run.worst),
    })
  }
  for (const s of series) {
    if (s.at > window.to) break
    if (!keep(s)) continue
    // A gauge is one series per reporter: a cluster-wide gauge every broker reports (OfflinePartitionsCount,
    // non-zero on the active controller only) must not have its run broken by another broker's zeros.
    const key = `${s.broker ?? ''}\u0000${s.labels ? labelKey(s.labels) : ''}`
    const run = runs.get(key)
    const ok = compareAt(s.value, compare, data, s.at, s.labels)
    if (run && (!ok || s.at - run.last.at > forMs)) {
      close(run, s)
      runs.delete(key)
    }
    if (!ok) continue
    const current = runs.get(key)
    if (!current) runs.set(key, { start: s, last: s, worst: s, count: 1 })
    else {
      current.last = s
      current.count++
      if (moreTelling(compare, s.value!, current.worst.value!)) current.worst = s
    }
  }
  for (const run of runs.values()) close(run)
  return out.sort((a, b) => a.at - b.at)
}
