import type { EvalData, EvalWindow } from './match.js'
import type { Store } from './store/store.js'
import type { Signal } from '../signals/signal.js'

/**
 * What stretch of time the data behind a diagnosis actually covers, per source and overall. A pasted
 * excerpt of 40 lines spans minutes, not the hour a rule's window names: the answer says what it saw,
 * and rates are taken over the part of their window the data covers.
 */

/** One source's share of the data: a log file, a JSONL file, or an adapter (jmx, admin, agent). */
export type DataSpan = {
  /** The file for logs and JSONL ("log:/var/log/kafka/server.log"), else the adapter ("jmx"). */
  source: string
  firstAt: number
  lastAt: number
  /** Signals read from it inside the window. */
  signals: number
}

/** A rate's denominator is never less than this share of its window, so one line never reads as a storm. */
export const MIN_COVERED_SHARE = 0.1

/** "log:/x/server.log:1234" → "log:/x/server.log"; "jmx:java.lang:type=…" → "jmx". */
export function sourceKey(source: string): string {
  const m = /^((?:log|jsonl|gc):.*):\d+$/.exec(source)
  if (m) return m[1]
  const colon = source.indexOf(':')
  return colon < 0 ? source : source.slice(0, colon)
}

/**
 * What the previous signal's key says about the next source: `file` keys ("log:/x/server.log") hold
 * the lines of that file ("…:1234"); `scheme` keys ("jmx") hold every source of that adapter; a key
 * that is a file scheme's bare name ("log", from a line-less source) says nothing.
 */
type KeyKind = 'file' | 'scheme' | 'none'

const FILE_SCHEME = /^(?:log|jsonl|gc):/

function keyKind(key: string): KeyKind {
  if (FILE_SCHEME.test(key)) return 'file'
  return FILE_SCHEME.test(`${key}:`) ? 'none' : 'scheme'
}

/** True when `source` has the key `key` of kind `kind` (sourceKey's answer, without its regex). */
function hasKey(source: string, key: string, kind: KeyKind): boolean {
  if (kind === 'none' || source.length <= key.length + 1 || source.charCodeAt(key.length) !== 58 || !source.startsWith(key)) return false
  if (kind === 'scheme') return true
  for (let i = key.length + 1; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/** Per source, the first and last signal inside the window and how many there were; busiest first. */
export function dataSpans(data: EvalData, window: EvalWindow): DataSpan[] {
  const spans = new Map<string, DataSpan>()
  for (const list of data.series.values()) {
    // A series' signals mostly come from one source in a row: each is checked against the previous
    // one's key, and the regex and the map lookup run only when the source changes.
    let span: DataSpan | undefined
    let kind: KeyKind = 'none'
    for (const s of list) {
      if (s.at < window.from || s.at > window.to) continue
      if (!span || !hasKey(s.source, span.source, kind)) {
        const key = sourceKey(s.source)
        kind = keyKind(key)
        span = spans.get(key)
        if (!span) {
          span = { source: key, firstAt: s.at, lastAt: s.at, signals: 0 }
          spans.set(key, span)
        }
      }
      if (s.at < span.firstAt) span.firstAt = s.at
      if (s.at > span.lastAt) span.lastAt = s.at
      span.signals++
    }
  }
  return [...spans.values()].sort((a, b) => b.signals - a.signals || a.source.localeCompare(b.source))
}

/** The stretch every series of the data lies in (first to last signal of any), or undefined when empty. */
export function dataCoverage(data: EvalData): { from: number; to: number } | undefined {
  let from = Infinity
  let to = -Infinity
  for (const list of data.series.values()) {
    if (!list.length) continue
    if (list[0].at < from) from = list[0].at
    if (list[list.length - 1].at > to) to = list[list.length - 1].at
  }
  return from <= to ? { from, to } : undefined
}

/**
 * How much of the window [end - windowMs, end] the data covers, bounded below by MIN_COVERED_SHARE of
 * the window; the whole window when the coverage is unknown (a live store is read continuously).
 */
export function coveredMs(coverage: { from: number; to: number } | undefined, end: number, windowMs: number): number {
  if (!coverage) return windowMs
  const overlap = Math.min(end, coverage.to) - Math.max(end - windowMs, coverage.from)
  return Math.min(windowMs, Math.max(windowMs * MIN_COVERED_SHARE, overlap))
}

/**
 * Where each broker's own records end in data that has an end: a replayed recording, logs handed to
 * `why --replay`, a backtest's stretch of history. A broker whose data stops earlier than its peers'
 * (it died, its files were cut, its collection stopped) is evaluated at its own last record, never
 * later: past it, what its data does not hold is unknown, not absent, so no rule of it may conclude
 * from the silence ("no shutdown line, so the clients could not reach its listener") and nothing other
 * sources say later is claimed for it. A live store has no such end and uses none.
 *
 * A broker's own data is its sources, not every record that names it: a peer's controller.log saying
 * "Broker failure callback for 2" or a client's "Disconnected from node 2" are other sources' words
 * about broker 2 and do not extend its data. A file is the broker's whose id more than half of the
 * file's records carry (a client's records, `client.*`, count for none: a client log is no broker's);
 * an adapter's records (a scrape, a JMX poll) are the broker's they name, since they were read from it.
 */
export class DataEnds {
  private readonly files = new Map<string, { lastAt: number; total: number; byBroker: Map<string, number>; cluster: string }>()
  private readonly scraped = new Map<string, number>()
  private ends?: Map<string, number>
  private prevSource = ''
  private prevKey = ''

  /** Takes a batch of records in any order. */
  add(signals: Iterable<{ cluster: string; broker?: string; at: number; source: string; name: string }>): void {
    this.ends = undefined
    for (const s of signals) {
      if (s.source !== this.prevSource) {
        this.prevSource = s.source
        this.prevKey = sourceKey(s.source)
      }
      const key = this.prevKey
      const client = s.name.startsWith('client.')
      if (keyKind(key) === 'file') {
        const fileKey = `${s.cluster}\u0000${key}`
        let f = this.files.get(fileKey)
        if (!f) this.files.set(fileKey, (f = { lastAt: s.at, total: 0, byBroker: new Map(), cluster: s.cluster }))
        if (s.at > f.lastAt) f.lastAt = s.at
        if (client) continue
        f.total++
        if (s.broker !== undefined) f.byBroker.set(s.broker, (f.byBroker.get(s.broker) ?? 0) + 1)
      } else if (s.broker !== undefined && !client) {
        const k = endKey(s.cluster, s.broker)
        const prev = this.scraped.get(k)
        if (prev === undefined || s.at > prev) this.scraped.set(k, s.at)
      }
    }
  }

  /** The earliest of the brokers' ends (Infinity when none). */
  earliest(): number {
    let min = Infinity
    for (const t of this.byBroker().values()) if (t < min) min = t
    return min
  }

  /** How many brokers have an end here. */
  get size(): number {
    return this.byBroker().size
  }

  /** The broker's last record of its own sources, or undefined when it has none here. */
  of(cluster: string, broker: string): number | undefined {
    return this.byBroker().get(endKey(cluster, broker))
  }

  /** `t`, or the broker's last record when its data ends before `t`: the latest moment it may be evaluated at. */
  clamp(cluster: string, broker: string | undefined, t: number): number {
    if (broker === undefined) return t
    const end = this.byBroker().get(endKey(cluster, broker))
    return end !== undefined && end < t ? end : t
  }

  /** Every broker's end, keyed `cluster\u0000broker`. */
  private byBroker(): Map<string, number> {
    if (this.ends) return this.ends
    const ends = new Map(this.scraped)
    for (const f of this.files.values()) {
      for (const [broker, n] of f.byBroker) {
        if (n * 2 <= f.total) continue
        const k = endKey(f.cluster, broker)
        const prev = ends.get(k)
        if (prev === undefined || f.lastAt > prev) ends.set(k, f.lastAt)
      }
    }
    this.ends = ends
    return ends
  }
}

function endKey(cluster: string, broker: string): string {
  return `${cluster}\u0000${broker}`
}

/**
 * Every broker's end in [from, to] of a store holding data that has an end (logs shared in chat, read
 * into a store of their own): each broker's and the cluster's records read once, every name.
 */
export async function readDataEnds(store: Pick<Store, 'brokers' | 'query'>, cluster: string, from: number, to: number): Promise<DataEnds> {
  const ends = new DataEnds()
  const scopes = [...(await store.brokers()).filter((b) => b.cluster === cluster), { cluster }]
  for (const scope of scopes) ends.add(await store.query({ ...scope, from, to }))
  return ends
}

/**
 * What a broker's evaluation reads of its peers, inside their data: a client's record naming node N
 * (its `node` label) after N's own data ended is left out of every other broker's evaluation. What
 * N was doing then is unknown (stopped, dead, cut off), so nothing can be concluded from it on a peer:
 * the survivors of a dead broker do not read the clients' failures toward it as their own listener's.
 */
export function withinPeersData(data: EvalData, ends: DataEnds | undefined): EvalData {
  if (!ends || ends.size === 0) return data
  // Nothing to leave out while every record is older than the earliest end (the common case).
  let newest = -Infinity
  for (const list of data.series.values()) if (list.length && list[list.length - 1].at > newest) newest = list[list.length - 1].at
  if (newest <= ends.earliest()) return data
  let series: Map<string, readonly Signal[]> | undefined
  for (const [name, list] of data.series) {
    let kept: Signal[] | undefined
    for (let i = 0; i < list.length; i++) {
      const s = list[i]
      const node = s.labels?.node
      let drop = false
      if (node !== undefined && node !== data.broker && s.broker !== data.broker) {
        const end = ends.of(data.cluster, node)
        drop = end !== undefined && s.at > end
      }
      if (drop) kept ??= list.slice(0, i)
      else kept?.push(s)
    }
    if (kept) (series ??= new Map(data.series)).set(name, kept)
  }
  return series ? { ...data, series } : data
}
