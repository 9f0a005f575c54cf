import { CATALOGUE } from '../signals/catalogue.js'
import type { Signal } from '../signals/signal.js'
import { TickReads, type SignalReader } from './tick-reads.js'
import { CLUSTER_LOSS_SERIES, CLUSTER_LOSS_WINDOW_MS, deriveClusterLoss, isClusterLossSeries } from './cluster-loss.js'
import { CONTROLLER_REPORT_FRESH_MS, CONTROLLER_SUM_SERIES, CONTROLLER_SUM_SOURCE, controllerSumOnce, deriveControllerSum, isControllerSumSeries } from './controller-sum.js'
import { withDerivedSources } from './derived-facts.js'
import { readConsumerLagStatus } from './consumer-lag-load.js'
import { isConsumerLagSeries } from './consumer-lag-series.js'
import { deriveTimeToFull, FILL_FIT_WINDOW_MS, TIME_TO_FULL_SERIES, TIME_TO_FULL_SOURCE } from './disk-time-to-full.js'
import { latestFacts, mergeSorted } from './eval-data.js'
import type { EvalData } from './match.js'
import { isClusterWide, signalKind } from './signal-kind.js'
import { lookbackMs } from './rule-signals.js'
import type { Rule } from '../dsl/ast.js'
import { factRefsOfRule, signalsOfRule } from '../dsl/signals-of-rule.js'

/** What to load for one broker's evaluation. */
export type LoadRequest = {
  cluster: string
  broker: string
  /** Signal names to read; omit to read everything stored for the broker. */
  names?: Iterable<string>
  /** Inclusive epoch ms, already widened by the rules' look-back. */
  from: number
  to: number
  /** Also read the latest facts (default true). */
  facts?: boolean
}

/** The evaluator's input plus how many signals were read, so "no data" differs from "nothing wrong". */
export type LoadedData = { data: EvalData; signalsRead: number }

const CLUSTER_WIDE_NAMES = Object.keys(CATALOGUE).filter(isClusterWide)

/**
 * Reads exactly what a broker's evaluation needs: its own series, the cluster's broker-less series
 * (client logs, cluster metrics) and the catalogue's cluster-wide signals whichever broker reported
 * them, plus the latest facts of the broker and of the cluster. One round of queries for all rules.
 */
export async function loadEvalData(store: SignalReader, req: LoadRequest): Promise<LoadedData> {
  const wanted = req.names ? [...new Set(req.names)] : undefined
  const seriesNames = wanted?.filter((n) => signalKind(n) !== 'fact')
  const factNames = wanted ? withDerivedSources(wanted.filter((n) => signalKind(n) === 'fact')) : undefined
  const clusterWide = (seriesNames ?? CLUSTER_WIDE_NAMES).filter((n) => isClusterWide(n) && !isClusterLossSeries(n) && !isControllerSumSeries(n))
  const derived = (seriesNames ?? Object.keys(CLUSTER_LOSS_SERIES)).filter(isClusterLossSeries)
  const controllerSum = seriesNames ? seriesNames.includes(CONTROLLER_SUM_SERIES) : true
  const timeToFull = seriesNames ? seriesNames.includes(TIME_TO_FULL_SERIES) : true
  const consumerLag = seriesNames ? seriesNames.some(isConsumerLagSeries) : true
  const range = { cluster: req.cluster, from: req.from, to: req.to }
  const reads: Promise<Map<string, Signal[]>>[] = []
  if (!seriesNames || seriesNames.length) {
    reads.push(store.querySeries({ ...range, broker: req.broker, names: seriesNames }))
    reads.push(store.querySeries({ ...range, names: seriesNames }))
  }
  if (clusterWide.length) {
    // The reads above are already in flight: when the brokers lookup fails first they must not be
    // left to reject unobserved (an unhandled rejection ends the process with a driver trace); the
    // failure reaches the caller once, as the lookup's own error.
    for (const r of reads) r.catch(() => undefined)
    const others = (await store.brokers()).filter((b) => b.cluster === req.cluster && b.broker !== req.broker)
    for (const b of others) reads.push(store.querySeries({ ...range, broker: b.broker, names: clusterWide }))
  }
  const factReads = req.facts !== false && (!factNames || factNames.size) ? [store.facts(req.cluster, req.broker), store.facts(req.cluster)] : []
  // The derived series read every broker's sources: asked now, they are answered while the reads
  // above are decoded, instead of one round after another once those are done.
  const derivedReads = derived.map((name) => readClusterLoss(store, name, req))
  const controllerSumRead = controllerSum ? readControllerSum(store, req) : Promise.resolve([])
  const timeToFullRead = timeToFull ? readTimeToFull(store, req) : Promise.resolve([])
  const consumerLagRead = consumerLag ? readConsumerLagStatus(store, req) : Promise.resolve(new Map<string, Signal[]>())
  const [lists, factLists, derivedLists, controllerSumList, timeToFullList, consumerLagLists] = await Promise.all([
    Promise.all(reads),
    Promise.all(factReads),
    Promise.all(derivedReads),
    controllerSumRead,
    timeToFullRead,
    consumerLagRead,
  ])
  const series = new Map<string, Signal[]>()
  const facts: Signal[] = []
  let signalsRead = 0
  // Each store list is one name's time-sorted series: scopes are merged per name, never re-sorted.
  // Names enter the map in order of their first signal, as they appear in a time-ordered read.
  for (const byName of lists) {
    const entries = [...byName].sort(([a, x], [b, y]) => x[0].at - y[0].at || (a < b ? -1 : a > b ? 1 : 0))
    for (const [name, l] of entries) {
      if (signalKind(name) === 'fact') {
        for (const f of l) facts.push(f)
        continue
      }
      signalsRead += l.length
      const prev = series.get(name)
      series.set(name, prev ? mergeSorted(prev, l) : l)
    }
  }
  derived.forEach((name, i) => {
    if (derivedLists[i].length) {
      series.set(name, derivedLists[i])
      signalsRead += derivedLists[i].length
    }
  })
  if (controllerSumList.length) {
    series.set(CONTROLLER_SUM_SERIES, controllerSumList)
    signalsRead += controllerSumList.length
  }
  if (timeToFullList.length) {
    series.set(TIME_TO_FULL_SERIES, timeToFullList)
    signalsRead += timeToFullList.length
  }
  for (const [name, list] of consumerLagLists) {
    series.set(name, list)
    signalsRead += list.length
  }
  for (const list of factLists) for (const f of list) if (!factNames || factNames.has(f.name)) facts.push(f)
  signalsRead += facts.length
  return { data: { cluster: req.cluster, broker: req.broker, series, facts: latestFacts(facts) }, signalsRead }
}

/** What to load for a set of rules over one broker's window. */
export type RulesLoadRequest = {
  cluster: string
  broker: string
  rules: readonly Rule[]
  from: number
  to: number
  /** Read every stored signal in the window, not only the rules' (for the abnormal summary). */
  everything?: boolean
}

/**
 * Loads a broker's data for a rule set, each signal only as far back as the rules that read it need:
 * a `trend(heap.after_gc) over 24h` rule does not make every other series load a day of history.
 * The window itself is read once; the older history is read per look-back and put in front of it.
 */
export async function loadForRules(store: SignalReader, req: RulesLoadRequest): Promise<LoadedData> {
  const lookbackOf = lookbacksOf(req.rules)
  const scope = { cluster: req.cluster, broker: req.broker }
  const names = req.everything ? undefined : [...lookbackOf.keys()]
  const current = names && names.length === 0 ? undefined : loadEvalData(store, { ...scope, names, from: req.from, to: req.to })
  const byLookback = new Map<number, string[]>()
  for (const [name, back] of lookbackOf) if (back > 0) byLookback.set(back, [...(byLookback.get(back) ?? []), name])
  const older = [...byLookback].map(([back, group]) =>
    loadEvalData(store, { ...scope, names: group, from: req.from - back, to: req.from - 1, facts: false }),
  )
  const [now, ...history] = await Promise.all([current ?? Promise.resolve(undefined), ...older])
  // The lists are the loader's own, fresh per call: they are handed on without copying.
  const series = new Map<string, Signal[]>()
  let signalsRead = now?.signalsRead ?? 0
  for (const h of history) {
    signalsRead += h.signalsRead
    for (const [name, list] of h.data.series) series.set(name, list as Signal[])
  }
  for (const [name, list] of now?.data.series ?? []) {
    const before = series.get(name)
    series.set(name, before ? before.concat(list) : (list as Signal[]))
  }
  return { data: { ...scope, series, facts: now?.data.facts ?? [] }, signalsRead }
}

const LOOKBACKS = new WeakMap<readonly Rule[], Map<string, number>>()

/** How far back each signal a rule set reads is looked at; worked out once per rule set, since the alert loop asks for every broker on every tick. */
function lookbacksOf(rules: readonly Rule[]): Map<string, number> {
  const known = LOOKBACKS.get(rules)
  if (known) return known
  const lookbackOf = new Map<string, number>()
  for (const rule of rules) {
    const back = lookbackMs(rule.when)
    for (const name of signalsOfRule(rule)) lookbackOf.set(name, Math.max(lookbackOf.get(name) ?? 0, back))
    for (const e of rule.explains) if (!lookbackOf.has(e.signal)) lookbackOf.set(e.signal, 0)
    for (const f of factRefsOfRule(rule)) if (!lookbackOf.has(f)) lookbackOf.set(f, 0)
  }
  LOOKBACKS.set(rules, lookbackOf)
  return lookbackOf
}

/** A derived cluster-wide series (cluster-loss.ts) from every broker's source events in the window. */
async function readClusterLoss(store: SignalReader, name: string, req: LoadRequest): Promise<Signal[]> {
  const brokers = (await store.brokers()).filter((b) => b.cluster === req.cluster).map((b) => b.broker)
  const names = [...CLUSTER_LOSS_SERIES[name].from]
  // Source events up to a window before `from` count towards a loss that happens inside it.
  const lists = await Promise.all(brokers.map((broker) => store.querySeries({ cluster: req.cluster, broker, names, from: req.from - CLUSTER_LOSS_WINDOW_MS, to: req.to })))
  const byBroker = new Map<string, Signal[]>()
  lists.forEach((byName, i) => byBroker.set(brokers[i], [...byName.values()].flat()))
  return deriveClusterLoss(name, req.cluster, byBroker, brokers.length).filter((s) => s.at >= req.from)
}

/** The derived time to full (disk-time-to-full.ts) from the broker's free-space samples, with a fit window of history before `from`. */
async function readTimeToFull(store: SignalReader, req: LoadRequest): Promise<Signal[]> {
  const byName = await store.querySeries({ cluster: req.cluster, broker: req.broker, names: [TIME_TO_FULL_SOURCE], from: req.from - FILL_FIT_WINDOW_MS, to: req.to })
  return deriveTimeToFull(byName.get(TIME_TO_FULL_SOURCE) ?? []).filter((s) => s.at >= req.from)
}

/** The derived controller count (controller-sum.ts) from every broker's reports in the window. */
async function readControllerSum(store: SignalReader, req: LoadRequest): Promise<Signal[]> {
  const derive = async () => {
    const brokers = (await store.brokers()).filter((b) => b.cluster === req.cluster).map((b) => b.broker)
    const names = [CONTROLLER_SUM_SOURCE]
    // Reports up to the freshness window before `from` still count at its start.
    const lists = await Promise.all(brokers.map((broker) => store.querySeries({ cluster: req.cluster, broker, names, from: req.from - CONTROLLER_REPORT_FRESH_MS, to: req.to })))
    const byBroker = new Map<string, Signal[]>()
    lists.forEach((byName, i) => byBroker.set(brokers[i], [...byName.values()].flat()))
    return deriveControllerSum(req.cluster, byBroker).filter((s) => s.at >= req.from)
  }
  // Evaluation reads the signals and never changes them, so one tick's brokers share one list.
  return (await controllerSumOnce(store, store instanceof TickReads, JSON.stringify([req.cluster, req.from, req.to]), derive)).slice()
}
