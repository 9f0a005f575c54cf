import type { Signal } from '../signals/signal.js'
import type { SeriesCache } from './series-cache.js'
import type { BrokerRef, SignalQuery, Store } from './store/store.js'

/** The reads evaluation needs from a store (what load-data.ts calls). */
export type SignalReader = Pick<Store, 'querySeries' | 'facts' | 'brokers'>

/**
 * One alert tick's reads, each asked of the store once. Evaluating a broker also reads the
 * cluster-wide series of every other broker of its cluster and the cluster's broker list, so
 * without this a cluster of B brokers costs B² store reads per tick; with it, B. Valid for one tick
 * only: make a new one per tick, since it never re-reads what it has answered. With a SeriesCache
 * (the alert loop on RedisStore) the series it can keep are read through it: only what is new since
 * the last tick is read and decoded.
 */
export class TickReads implements SignalReader {
  private readonly series = new Map<string, Promise<Map<string, Signal[]>>>()
  private readonly factLists = new Map<string, Promise<Signal[]>>()
  private brokerList?: Promise<BrokerRef[]>

  constructor(
    private readonly store: SignalReader,
    private readonly cache?: SeriesCache,
  ) {}

  brokers(): Promise<BrokerRef[]> {
    this.brokerList ??= this.store.brokers()
    return this.brokerList
  }

  /** Every broker's evaluation also reads its cluster's facts: asked once. The list is shared, read-only. */
  facts(cluster: string, broker?: string): Promise<Signal[]> {
    const key = JSON.stringify([cluster, broker ?? null])
    let answer = this.factLists.get(key)
    if (!answer) {
      answer = this.store.facts(cluster, broker)
      this.factLists.set(key, answer)
      answer.catch(() => this.factLists.delete(key))
    }
    return answer
  }

  /** The answer is shared between callers: each gets its own arrays, the signals themselves are read-only. */
  async querySeries(q: SignalQuery): Promise<Map<string, Signal[]>> {
    const key = JSON.stringify([q.cluster, q.broker ?? null, q.names ? [...q.names].sort() : null, q.from, q.to])
    let answer = this.series.get(key)
    if (!answer) {
      answer = this.cache?.covers(q) ? this.cache.querySeries(q) : this.store.querySeries(q)
      this.series.set(key, answer)
      // A failed read is not remembered as an answer; the caller sees the failure.
      answer.catch(() => this.series.delete(key))
    }
    const byName = await answer
    return new Map([...byName].map(([name, list]) => [name, list.slice()]))
  }
}
