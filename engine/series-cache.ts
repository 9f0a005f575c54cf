import type { Signal } from '../signals/signal.js'
import type { SeriesCheck, SeriesCheckResult, SignalQuery, Store } from './store/store.js'
import { firstAtOrAfter } from './time-sorted.js'

/** A store that can tell what changed in a range it answered before (RedisStore). */
export type ChangeReader = { readSeriesChanges: NonNullable<Store['readSeriesChanges']> }

/** How the reuse behaves; durations in ms. */
export type SeriesCacheOptions = {
  /**
   * The newest part of what was read last time is read again rather than checked: lines arriving a
   * little late land there, and re-reading it is cheaper than finding a late line by its count and
   * then re-reading the whole window. Default 20 s.
   */
  settleMs?: number
  /** Reads spanning more than this are never kept (a day of a leak trend, read every 5 m). Default 2 h. */
  maxSpanMs?: number
}

type Entry = { from: number; to: number; list: Signal[]; tick: number }

/**
 * The alert loop's reads from one tick to the next. Every tick evaluates the same windows moved on by
 * a tick, so most of what a tick reads the one before read too: that part is kept, decoded, and only
 * checked against the store (the count and first signal of the range, in the same request that
 * reads the rest), and only the part after it is read and decoded. A check that fails re-reads the
 * whole range, so what the evaluator sees is what the store holds at the tick, not what it held
 * before.
 *
 * Why a check is enough: a stored signal is a sorted-set member that is its own content (time, value,
 * labels, source, text; its time is its score), so a range only changes by a signal added (the count
 * grows) or by retention removing the oldest signals (the first one goes). The one change it cannot
 * see: retention removing part of a kept range and, before the next tick, exactly as many signals
 * added to it again with the first one among them. Only ranges of at most `maxSpanMs` are kept, and
 * only from one tick to the next: a range no query of a tick touched is dropped at its end.
 *
 * Keys are per scope, signal and span: the window read and an older look-back read of the same signal
 * are different spans, each moving on by a tick. Lists handed out are shared and must not be changed
 * (TickReads gives every caller its own copy of the arrays; the signals are read-only everywhere).
 */
export class SeriesCache {
  private readonly entries = new Map<string, Entry>()
  private tick = 0
  private readonly settleMs: number
  private readonly maxSpanMs: number
  /** Signals decoded from the store and signals reused, over this cache's life (for the bench and tests). */
  readonly stats = { read: 0, reused: 0, rereads: 0 }

  constructor(
    private readonly store: ChangeReader,
    opts: SeriesCacheOptions = {},
  ) {
    this.settleMs = opts.settleMs ?? 20_000
    this.maxSpanMs = opts.maxSpanMs ?? 2 * 3_600_000
  }

  /** Whether a query goes through the cache: named signals over a span short enough to keep. */
  covers(q: SignalQuery): boolean {
    return q.names !== undefined && q.to - q.from <= this.maxSpanMs
  }

  /** The same answer as the store's `querySeries`; the lists are shared and read-only. */
  async querySeries(q: SignalQuery): Promise<Map<string, Signal[]>> {
    const out = new Map<string, Signal[]>()
    if (q.from > q.to || !q.names) return out
    const names = [...new Set(q.names)].sort()
    if (names.length === 0) return out
    const scope = q.broker === undefined ? { cluster: q.cluster } : { cluster: q.cluster, broker: q.broker }
    const scopeKey = `${JSON.stringify([q.cluster, q.broker ?? null, q.to - q.from])}\u0000`
    const keyOf = (name: string) => scopeKey + name
    const held: (Signal[] | undefined)[] = []
    const parts: SeriesCheck[] = names.map((name, i) => {
      const e = this.entries.get(keyOf(name))
      const checkTo = e && e.from <= q.from && q.from <= e.to ? Math.min(e.to - this.settleMs, q.to) : -Infinity
      if (!e || checkTo < q.from) return { name, read: { from: q.from, to: q.to } }
      const kept = slice(e.list, q.from, checkTo)
      held[i] = kept
      const check = kept.length ? { from: q.from, to: checkTo, first: kept[0] } : { from: q.from, to: checkTo }
      return { name, check, read: { from: checkTo + 1, to: q.to } }
    })
    const results = await this.store.readSeriesChanges(scope, parts)
    const lists: Signal[][] = new Array(names.length)
    const redo: number[] = []
    results.forEach((r, i) => {
      const kept = held[i]
      this.stats.read += r.signals.length
      if (!kept) lists[i] = r.signals
      else if (unchanged(kept, r)) {
        lists[i] = kept.length === 0 ? r.signals : r.signals.length === 0 ? kept : kept.concat(r.signals)
        this.stats.reused += kept.length
      } else redo.push(i)
    })
    if (redo.length) {
      this.stats.rereads += redo.length
      const again = await this.store.readSeriesChanges(
        scope,
        redo.map((i) => ({ name: names[i], read: { from: q.from, to: q.to } })),
      )
      again.forEach((r, j) => {
        lists[redo[j]] = r.signals
        this.stats.read += r.signals.length
      })
    }
    names.forEach((name, i) => {
      this.entries.set(keyOf(name), { from: q.from, to: q.to, list: lists[i], tick: this.tick })
      if (lists[i].length) out.set(name, lists[i])
    })
    return out
  }

  /** Ends a tick: what no query of it touched is dropped, so the cache holds one tick's reads at most. */
  endTick(): void {
    for (const [key, e] of this.entries) if (e.tick !== this.tick) this.entries.delete(key)
    this.tick++
  }

  /** How many ranges are kept (tests). */
  get size(): number {
    return this.entries.size
  }
}

/** The kept signals with `at` in [from, to] (the list is time-sorted). */
function slice(list: Signal[], from: number, to: number): Signal[] {
  const first = firstAtOrAfter(list, from)
  const end = firstAtOrAfter(list, to + 1)
  return first === 0 && end === list.length ? list : list.slice(first, end)
}


function unchanged(kept: Signal[], r: SeriesCheckResult): boolean {
  return r.count === kept.length && (kept.length === 0 || r.firstSame)
}
