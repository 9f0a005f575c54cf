import { CATALOGUE } from '../signals/catalogue.js'
import type { Signal } from '../signals/signal.js'
import type { Store } from './store/store.js'
import { latestFacts, mergeSorted } from './eval-data.js'
import type { EvalData } from './match.js'
import { isClusterWide, signalKind } from './signal-kind.js'

/** What to load for one broker's evaluation. */
export type LoadRequest = {
  cluster: string
  broker: string
  /** Signal names to read; omit to read everything stored for the broker. */
  names?: Iterable<string>
  /** Inclusive epoch ms, already widened by the rules' look-back. */
  from: number
  to: number
}

/** The evaluator's input plus how many signals were read, so "no data" differs from "nothing wrong". */
export type LoadedData = { data: EvalData; signalsRead: number }

const CLUSTER_WIDE_NAMES = Object.keys(CATALOGUE).filter(isClusterWide)

/**
 * Reads exactly what a broker's evaluation needs: its own series, the cluster's broker-less series
 * (client logs, cluster metrics) and the catalogue's cluster-wide signals whichever broker reported
 * them, plus the latest facts of the broker and of the cluster. One round of queries for all rules.
 */
export async function loadEvalData(store: Store, req: LoadRequest): Promise<LoadedData> {
  const wanted = req.names ? [...new Set(req.names)] : undefined
  const seriesNames = wanted?.filter((n) => signalKind(n) !== 'fact')
  const factNames = wanted ? new Set(wanted.filter((n) => signalKind(n) === 'fact')) : undefined
  const clusterWide = (seriesNames ?? CLUSTER_WIDE_NAMES).filter(isClusterWide)
  const range = { cluster: req.cluster, from: req.from, to: req.to }
  const reads: Promise<Signal[]>[] = []
  if (!seriesNames || seriesNames.length) {
    reads.push(store.query({ ...range, broker: req.broker, names: seriesNames }))
    reads.push(store.query({ ...range, names: seriesNames }))
  }
  if (clusterWide.length) {
    const others = (await store.brokers()).filter((b) => b.cluster === req.cluster && b.broker !== req.broker)
    for (const b of others) reads.push(store.query({ ...range, broker: b.broker, names: clusterWide }))
  }
  const factReads = !factNames || factNames.size ? [store.facts(req.cluster, req.broker), store.facts(req.cluster)] : []
  const [lists, factLists] = await Promise.all([Promise.all(reads), Promise.all(factReads)])
  const series = new Map<string, Signal[]>()
  const facts: Signal[] = []
  let signalsRead = 0
  for (const list of lists) {
    const byName = new Map<string, Signal[]>()
    for (const s of list) {
      if (signalKind(s.name) === 'fact') {
        facts.push(s)
        continue
      }
      let l = byName.get(s.name)
      if (!l) byName.set(s.name, (l = []))
      l.push(s)
    }
    for (const [name, l] of byName) {
      signalsRead += l.length
      const prev = series.get(name)
      series.set(name, prev ? mergeSorted(prev, l) : l)
    }
  }
  for (const list of factLists) for (const f of list) if (!factNames || factNames.has(f.name)) facts.push(f)
  signalsRead += facts.length
  return { data: { cluster: req.cluster, broker: req.broker, series, facts: latestFacts(facts) }, signalsRead }
}
