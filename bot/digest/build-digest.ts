import { compareBroker } from '../../engine/broker-id.js'
import { floorTrend } from '../../engine/floor-trend.js'
import type { Signal } from '../../signals/signal.js'
import { decodeVersion, encodeVersion, formatValue } from '../../signals/units.js'
import { isNotableValue } from '../../engine/abnormal.js'
import type { AlertRecord, Store } from '../../engine/store/store.js'
import type { AlertBand, ChartPanel, ChartPoint } from './chart.js'

/**
 * The daily health digest as data: one pure job over the store, given its window and `now`, so it is
 * tested without cron, Slack or a clock. Rendering and posting happen elsewhere.
 */

/** One broker's day in the numbers an SRE checks first. */
export type BrokerHealth = {
  broker: string
  /** Time during which the broker reported at least one under-replicated partition, in ms (not rounded: 40 s is not "0 min"). */
  underReplicatedMs: number
  /** The most under-replicated partitions it reported at once, the peak the chart shows. */
  underReplicatedMax: number
  isrShrinks: number
  gcPauseP99Ms?: number
  gcPauses: number
  longestSafepointMs?: number
  /**
   * Slope of the heap-after-GC floor (the minima a sawtooth returns to), bytes per hour, read as the
   * leak rule reads it (engine/floor-trend.ts); absent when the samples span under half the window.
   */
  heapAfterGcSlopePerHour?: number
  heapAfterGcFirst?: number
  heapAfterGcLast?: number
  restarts: number
  /**
   * The broker's status for the day, by the same measure as its alerts: the most severe alert that was
   * firing on it in the window, else "warning" when something the abnormal summary would list showed
   * (under-replication, a restart, a pause of 1 s or more, a rising heap floor), else "ok".
   */
  status: 'critical' | 'warning' | 'info' | 'ok'
  /** Why the status is not ok, in a few words each: the alerts' rules, then the measures. */
  statusReasons: string[]
}

/** A consumer group's rebalances: churn here is how a Selector leak was triggered (seed 003). */
export type GroupChurn = { group: string; rebalances: number; memberFailures: number; brokers: string[] }

/**
 * A consumer group among the day's worst by lag in time (group.lag_time, kafka-lag-exporter's
 * estimate): how far behind it got on its worst partition, when, and its lag then in messages.
 */
export type GroupLag = { group: string; maxLagTimeMs: number; at: number; topic: string; partition: string; lagMessages?: number }

/** Groups the digest lists by worst lag in time. */
const LAGGING_GROUPS = 5

/** A configuration value worth a second look, with why it matters. */
export type ConfigSmell = { broker?: string; topic?: string; key: string; value: string; why: string }

/**
 * A cause of the day: `fired` counts the alerts that fired in the window (what happened, whether or
 * not anyone asked); `asked` the `why` answers that named it without an alert.
 */
export type TopDiagnosis = { ruleId: string; cause: string; severity: string; fired: number; asked: number; brokers: string[]; lastAt: number }

/** Everything the digest shows, as data; rendered by bot/render/digest.ts. */
export type DigestReport = {
  cluster: string
  from: number
  to: number
  at: number
  brokers: BrokerHealth[]
  groups: GroupChurn[]
  /** The groups that fell furthest behind in time (absent when no lag was recorded in the window). */
  lagging?: GroupLag[]
  smells: ConfigSmell[]
  topDiagnoses: TopDiagnosis[]
  chart: ChartPanel[]
  /** The alerts firing at some time in the window, one band per rule, drawn over the chart. */
  alertBands: AlertBand[]
  signalsSeen: number
}

/** The digest's scope; time is passed in so the job never reads the clock. */
export type DigestWindow = {
  cluster: string
  from: number
  to: number
  now: number
  /** A rule's severity, for alerts (their records keep no severity); default "warning". */
  severityOf?: (ruleId: string) => string | undefined
}

const DIGEST_SIGNALS = [
  'partitions.under_replicated',
  'isr.shrink',
  'gc.pause',
  'safepoint.sync',
  'safepoint.total',
  'heap.after_gc',
  'broker.start',
  'group.rebalance',
  'group.member_failed',
]

/** Longest gap a single under-replicated sample is trusted to cover (a missed scrape is not a healthy minute). */
const MAX_SAMPLE_SPAN_MS = 5 * 60_000
const CHART_BUCKETS = 96
const ONE_HOUR = 3_600_000
/** Message format v2 arrived in 0.11; anything older forces down-conversion for new clients' data. */
const V2_FORMAT = encodeVersion('0.11.0')!

/** Builds the digest for one cluster over [from, to]. */
export async function buildDigest(store: Store, w: DigestWindow): Promise<DigestReport> {
  const refs = (await store.brokers()).filter((b) => b.cluster === w.cluster).map((b) => b.broker)
  const brokers = [...new Set(refs)].sort(compareBroker)
  const healths: BrokerHealth[] = []
  const groups = new Map<string, GroupChurn>()
  const smells: ConfigSmell[] = []
  const heapSeries: ChartPanel['series'] = []
  const urpSeries: ChartPanel['series'] = []
  const gcSeries: ChartPanel['series'] = []
  const rebalanceTimes: number[][] = []
  let signalsSeen = 0
  const firingAlerts = (await store.listAlerts()).filter(
    (a) => a.cluster === w.cluster && a.firedAt !== undefined && a.firedAt <= w.to && (a.resolvedAt ?? Infinity) >= w.from,
  )

  for (const broker of brokers) {
    const signals = await store.query({ cluster: w.cluster, broker, names: DIGEST_SIGNALS, from: w.from, to: w.to })
    const mine = signals.filter((s) => s.broker === broker)
    signalsSeen += mine.length
    const by = groupByName(mine)
    const urp = by.get('partitions.under_replicated') ?? []
    const gc = (by.get('gc.pause') ?? []).map((s) => s.value).filter(isNumber)
    const safepoints = [...(by.get('safepoint.total') ?? []), ...(by.get('safepoint.sync') ?? [])].map((s) => s.value).filter(isNumber)
    const heap = (by.get('heap.after_gc') ?? []).filter((s) => isNumber(s.value))
    // The leak rule's reading (floor_trend): the floor's slope, none from data spanning under half the window.
    const slope = floorTrend(heap, w.to - w.from)
    // A loop, not Math.max(...all): a day of a busy broker's safepoints overflows the argument stack.
    let longestPause = 0
    for (const v of [gc, safepoints]) for (const x of v) if (x > longestPause) longestPause = x
    const pauseName = safepoints.includes(longestPause) ? 'safepoint.total' : 'gc.pause'
    const urpMs = underReplicatedMs(urp, w.to)
    const restarts = (by.get('broker.start') ?? []).length
    const slopePerHour = slope === undefined ? undefined : slope * ONE_HOUR
    healths.push({
      broker,
      underReplicatedMs: urpMs,
      underReplicatedMax: urp.reduce((m, s) => (isNumber(s.value) && s.value > m ? s.value : m), 0),
      isrShrinks: (by.get('isr.shrink') ?? []).length,
      gcPauses: gc.length,
      gcPauseP99Ms: gc.length ? percentile(gc, 0.99) : undefined,
      longestSafepointMs: safepoints.length ? safepoints.reduce((a, b) => Math.max(a, b)) : undefined,
      heapAfterGcSlopePerHour: slopePerHour,
      heapAfterGcFirst: heap[0]?.value,
      heapAfterGcLast: heap[heap.length - 1]?.value,
      restarts,
      ...brokerStatus(broker, w, firingAlerts, {
        underReplicated: urpMs > 0,
        restarts,
        pauseMs: isNotableValue(pauseName, longestPause) && longestPause > 0 ? longestPause : undefined,
        heapFloorRising: heapFloorRising(slopePerHour, heap[0]?.value, heap[heap.length - 1]?.value),
      }),
    })
    for (const s of [...(by.get('group.rebalance') ?? []), ...(by.get('group.member_failed') ?? [])]) {
      const g = s.labels?.group
      if (!g) continue
      const entry = groups.get(g) ?? { group: g, rebalances: 0, memberFailures: 0, brokers: [] }
      if (s.name === 'group.rebalance') entry.rebalances++
      else entry.memberFailures++
      if (!entry.brokers.includes(broker)) entry.brokers.push(broker)
      groups.set(g, entry)
    }
    heapSeries.push({ name: `b${broker}`, points: bucket(heap, w, 'max') })
    urpSeries.push({ name: `b${broker}`, points: bucket(urp.filter((s) => isNumber(s.value)), w, 'max') })
    const stopped = [...(by.get('gc.pause') ?? []), ...(by.get('safepoint.total') ?? []), ...(by.get('safepoint.sync') ?? [])]
    gcSeries.push({ name: `b${broker}`, points: bucket(stopped.filter((s) => isNumber(s.value)), w, 'max') })
    rebalanceTimes.push((by.get('group.rebalance') ?? []).map((s) => s.at).filter((at) => at >= w.from && at <= w.to))
    for (const smell of findSmells(await store.facts(w.cluster, broker), broker)) smells.push(smell)
  }
  // Rebalances are counted in buckets of one size for every broker, so the lines compare.
  const rebalanceBucketMs = countBucketMs(rebalanceTimes.flat())
  const rebalanceSeries = brokers.map((broker, i) => ({ name: `b${broker}`, points: countBuckets(rebalanceTimes[i], rebalanceBucketMs) }))
  for (const smell of findSmells(await store.facts(w.cluster), undefined)) smells.push(smell)

  const top = new Map<string, TopDiagnosis>()
  const entry = (ruleId: string, cause: string, severity: string, at: number) => {
    let e = top.get(ruleId)
    if (!e) top.set(ruleId, (e = { ruleId, cause, severity, fired: 0, asked: 0, brokers: [], lastAt: at }))
    if (at >= e.lastAt) {
      e.lastAt = at
      e.cause = cause
    }
    return e
  }
  const fired = (await store.listAlerts()).filter((a) => a.cluster === w.cluster && a.firedAt !== undefined && a.firedAt >= w.from && a.firedAt <= w.to)
  for (const a of fired) {
    const e = entry(a.ruleId, a.summary ?? a.ruleId, w.severityOf?.(a.ruleId) ?? 'warning', a.firedAt!)
    e.fired++
    if (a.broker !== undefined && !e.brokers.includes(a.broker)) e.brokers.push(a.broker)
  }
  const alertBands = firingBands(await store.listAlerts(), w)
  const diagnoses = (await store.recentDiagnoses(w.from)).filter((d) => d.cluster === w.cluster && d.at >= w.from && d.at <= w.to)
  for (const d of diagnoses) {
    const e = top.get(d.ruleId) ?? entry(d.ruleId, d.cause, d.severity, d.at)
    if (e.fired === 0) {
      e.asked++
      e.severity = d.severity
      if (d.at >= e.lastAt) {
        e.lastAt = d.at
        e.cause = d.cause
      }
    }
    if (!e.brokers.includes(d.broker)) e.brokers.push(d.broker)
  }

  const lagging = await worstLagging(store, w, brokers)
  return {
    cluster: w.cluster,
    from: w.from,
    to: w.to,
    at: w.now,
    brokers: healths,
    groups: [...groups.values()].sort((a, b) => b.rebalances - a.rebalances || a.group.localeCompare(b.group)),
    ...(lagging.length ? { lagging } : {}),
    smells: dedupeSmells(smells),
    topDiagnoses: [...top.values()].sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || b.fired - a.fired || b.asked - a.asked || b.lastAt - a.lastAt).slice(0, 10),
    chart: [
      { title: 'heap after GC', dimension: 'bytes', series: heapSeries, empty: heapEmptyText(gcSeries) },
      { title: 'longest JVM pause: GC and safepoint', dimension: 'duration', series: gcSeries, draw: 'events', empty: 'no GC pause or safepoint samples: no GC log for these brokers' },
      { title: 'under-replicated partitions', dimension: 'count', series: urpSeries, empty: 'no under-replicated samples: no JMX or Prometheus scrape' },
      { title: rebalanceTimes.some((t) => t.length) ? `consumer group rebalances per ${formatBucket(rebalanceBucketMs)}` : 'consumer group rebalances', dimension: 'count', series: rebalanceSeries, empty: 'no consumer group rebalance was logged in this window' },
    ],
    alertBands,
    signalsSeen,
  }
}

/** The groups with the largest lag in time in the window, from every broker's (their coordinators') samples and the broker-less ones. */
async function worstLagging(store: Store, w: DigestWindow, brokers: readonly string[]): Promise<GroupLag[]> {
  const names = ['group.lag_time', 'group.lag']
  const lists = await Promise.all([store.querySeries({ cluster: w.cluster, names, from: w.from, to: w.to }), ...brokers.map((broker) => store.querySeries({ cluster: w.cluster, broker, names, from: w.from, to: w.to }))])
  const worst = new Map<string, GroupLag>()
  const messages = new Map<string, number>()
  for (const byName of lists) {
    for (const s of byName.get('group.lag') ?? []) messages.set(`${s.labels?.group}\u0000${s.labels?.topic}\u0000${s.labels?.partition}\u0000${s.at}`, s.value ?? 0)
    for (const s of byName.get('group.lag_time') ?? []) {
      const g = s.labels?.group
      if (!g || s.value === undefined) continue
      const known = worst.get(g)
      if (!known || s.value > known.maxLagTimeMs) worst.set(g, { group: g, maxLagTimeMs: s.value, at: s.at, topic: s.labels!.topic ?? '', partition: s.labels!.partition ?? '' })
    }
  }
  for (const l of worst.values()) {
    const m = messages.get(`${l.group}\u0000${l.topic}\u0000${l.partition}\u0000${l.at}`)
    if (m !== undefined) l.lagMessages = m
  }
  return [...worst.values()].filter((l) => l.maxLagTimeMs > 0).sort((a, b) => b.maxLagTimeMs - a.maxLagTimeMs || a.group.localeCompare(b.group)).slice(0, LAGGING_GROUPS)
}

/**
 * When each rule's alerts were firing inside the window: from firing to resolved (or last seen while
 * still firing), clipped to the window; overlapping firings of one rule on several brokers are one band.
 */
export function firingBands(alerts: AlertRecord[], w: DigestWindow): AlertBand[] {
  const spans = alerts
    .filter((a) => a.cluster === w.cluster && a.firedAt !== undefined)
    .map((a) => ({ a, from: a.firedAt!, to: a.resolvedAt ?? Math.max(a.lastSeenAt, a.firedAt!) }))
    .filter((s) => s.from <= w.to && s.to >= w.from)
    .sort((x, y) => x.a.ruleId.localeCompare(y.a.ruleId) || x.from - y.from)
  const bands: AlertBand[] = []
  for (const { a, from, to } of spans) {
    const last = bands[bands.length - 1]
    const clipped = { from: Math.max(from, w.from), to: Math.min(to, w.to) }
    if (last && last.ruleId === a.ruleId && clipped.from <= last.to) {
      last.to = Math.max(last.to, clipped.to)
      if (a.broker !== undefined && !last.brokers.includes(a.broker)) last.brokers.push(a.broker)
      continue
    }
    bands.push({ ruleId: a.ruleId, severity: w.severityOf?.(a.ruleId) ?? 'warning', brokers: a.broker === undefined ? [] : [a.broker], ...clipped })
  }
  for (const band of bands) band.brokers.sort(compareBroker)
  return bands.sort((x, y) => x.from - y.from || x.ruleId.localeCompare(y.ruleId))
}

/** What the status weighs besides alerts: each a thing the abnormal summary would list. */
type BrokerMeasures = { underReplicated: boolean; restarts: number; pauseMs?: number; heapFloorRising: boolean }

/** A broker's status: its most severe firing alert, else warning for any abnormal measure, else ok. */
function brokerStatus(broker: string, w: DigestWindow, alerts: AlertRecord[], m: BrokerMeasures): Pick<BrokerHealth, 'status' | 'statusReasons'> {
  const mine = alerts.filter((a) => a.broker === broker)
  const reasons: string[] = []
  let status: BrokerHealth['status'] = 'ok'
  const severityOf = (a: AlertRecord) => w.severityOf?.(a.ruleId) ?? 'warning'
  for (const a of mine.sort((x, y) => severityRank(severityOf(y)) - severityRank(severityOf(x)) || x.ruleId.localeCompare(y.ruleId))) {
    const severity = severityOf(a)
    if (severityRank(severity) > severityRank(status)) status = severity as BrokerHealth['status']
    const reason = `${severity} alert ${a.ruleId}`
    if (!reasons.includes(reason)) reasons.push(reason)
  }
  const measures: string[] = []
  if (m.underReplicated) measures.push('under-replicated')
  if (m.restarts > 0) measures.push(`${m.restarts} restart${m.restarts === 1 ? '' : 's'}`)
  if (m.pauseMs !== undefined) measures.push(`a ${formatValue(m.pauseMs, 'duration')} JVM pause`)
  if (m.heapFloorRising) measures.push('heap floor rising')
  if (measures.length && severityRank(status) < severityRank('warning')) status = 'warning'
  return { status, statusReasons: [...reasons, ...measures] }
}

/** A heap-after-GC floor that rose by a fifth or more over the window: what the leak rule looks for. */
function heapFloorRising(slopePerHour: number | undefined, first: number | undefined, last: number | undefined): boolean {
  return (slopePerHour ?? 0) > 0 && first !== undefined && last !== undefined && last > first * 1.2
}

/**
 * Why the heap panel is empty, from what was read: a GC log that logs pauses but no heap sizes
 * (safepoint-only or -Xlog:gc without heap decorations) is not "no GC log".
 */
function heapEmptyText(pauseSeries: ChartPanel['series']): string {
  const withPauses = pauseSeries.filter((s) => s.points.length).map((s) => s.name.replace(/^b/, ''))
  if (!withPauses.length) return 'no heap after GC samples: no GC log with heap sizes and no JMX heap gauge for these brokers'
  return `GC log of broker ${withPauses.join(', ')} read: pauses only, no heap sizes; no JMX heap gauge scraped`
}

/** critical above warning above info, as the diagnosis ranks them. */
function severityRank(severity: string): number {
  return severity === 'critical' ? 3 : severity === 'warning' ? 2 : severity === 'info' ? 1 : 0
}

/** Config smells an SRE would flag on sight; each names why it matters. */
export function findSmells(facts: Signal[], broker: string | undefined): ConfigSmell[] {
  const out: ConfigSmell[] = []
  const brokerVersion = facts.find((f) => f.name === 'broker.version')?.value
  for (const f of facts) {
    if (!isNumber(f.value)) continue
    const topic = f.labels?.topic
    if (f.name === 'config.segment_ms' && f.value < ONE_HOUR) {
      out.push({ broker, topic, key: 'segment.ms', value: `${f.value}`, why: 'segments roll more than once an hour: many small segments hold open files and mmapped indexes (segment.ms=100 has exhausted vm.max_map_count and crashed a broker)' })
    }
    if (f.name === 'config.log_message_format_version') {
      const old = f.value < V2_FORMAT
      const behind = brokerVersion !== undefined && Math.floor(f.value / 1000) < Math.floor(brokerVersion / 1000)
      if (old || behind) {
        out.push({
          broker,
          topic,
          key: topic ? 'message.format.version' : 'log.message.format.version',
          value: decodeVersion(f.value),
          why: old
            ? 'a pre-0.11 message format: every fetch by a current client is converted on the broker heap'
            : `older than the broker (${decodeVersion(brokerVersion!)}): fetches may be down-converted on the heap`,
        })
      }
    }
    if (f.name === 'config.zookeeper_session_timeout_ms' && f.value <= 6000) {
      out.push({ broker, key: 'zookeeper.session.timeout.ms', value: `${f.value}`, why: 'a JVM pause longer than this expires the ZooKeeper session and moves leadership (Kafka 2.5+ defaults to 18000)' })
    }
  }
  return out
}

function dedupeSmells(smells: ConfigSmell[]): ConfigSmell[] {
  const seen = new Set<string>()
  return smells.filter((s) => {
    const k = `${s.broker}|${s.topic}|${s.key}|${s.value}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** Time under replication from gauge samples: a sample > 0 counts until the next sample, capped. */
export function underReplicatedMs(samples: Signal[], to: number): number {
  const sorted = samples.filter((s) => isNumber(s.value)).sort((a, b) => a.at - b.at)
  let total = 0
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i].value! <= 0) continue
    const end = i + 1 < sorted.length ? sorted[i + 1].at : Math.min(to, sorted[i].at + MAX_SAMPLE_SPAN_MS)
    total += Math.min(end - sorted[i].at, MAX_SAMPLE_SPAN_MS)
  }
  return total
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]
}

/** Least-squares slope in value per ms; undefined with fewer than two distinct times. */
export function leastSquaresSlope(points: ChartPoint[]): number | undefined {
  if (points.length < 2) return undefined
  const t0 = points[0].at
  const n = points.length
  const mx = points.reduce((s, p) => s + (p.at - t0), 0) / n
  const my = points.reduce((s, p) => s + p.value, 0) / n
  let num = 0
  let den = 0
  for (const p of points) {
    num += (p.at - t0 - mx) * (p.value - my)
    den += (p.at - t0 - mx) ** 2
  }
  return den === 0 ? undefined : num / den
}

/**
 * Chart points: the samples' maxima in CHART_BUCKETS buckets over the span the samples cover (not the
 * whole window), so a 9-minute incident keeps its shape when the chart zooms to it.
 */
function bucket(signals: Signal[], w: DigestWindow, agg: 'max'): ChartPoint[] {
  const inWindow = signals.filter((s) => s.at >= w.from && s.at <= w.to)
  if (!inWindow.length) return []
  const first = inWindow.reduce((m, s) => Math.min(m, s.at), Infinity)
  const last = inWindow.reduce((m, s) => Math.max(m, s.at), -Infinity)
  const size = Math.max(1, (last - first) / CHART_BUCKETS)
  const buckets = new Map<number, { at: number; value: number }>()
  for (const s of inWindow) {
    const k = Math.min(CHART_BUCKETS - 1, Math.floor((s.at - first) / size))
    const b = buckets.get(k)
    // The bucket's point sits at its maximum's own time, so a spike is drawn where it happened.
    if (agg === 'max' && (!b || s.value! > b.value)) buckets.set(k, { at: s.at, value: s.value! })
  }
  return [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p)
}

/** Bucket sizes a reader takes in at a glance. */
const COUNT_BUCKETS_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000]
/** About this many buckets over the span of the events. */
const COUNT_BUCKET_TARGET = 48

/** The smallest readable bucket that keeps the events' span to about COUNT_BUCKET_TARGET buckets. */
export function countBucketMs(times: number[]): number {
  if (!times.length) return COUNT_BUCKETS_MS[0]
  const span = times.reduce((m, t) => Math.max(m, t), -Infinity) - times.reduce((m, t) => Math.min(m, t), Infinity)
  return COUNT_BUCKETS_MS.find((size) => span / size <= COUNT_BUCKET_TARGET) ?? COUNT_BUCKETS_MS[COUNT_BUCKETS_MS.length - 1]
}

/** Events counted per bucket aligned to the bucket size, each point at its bucket's start; empty buckets between events are 0. */
export function countBuckets(times: number[], sizeMs: number): ChartPoint[] {
  if (!times.length) return []
  const counts = new Map<number, number>()
  for (const t of times) {
    const k = Math.floor(t / sizeMs) * sizeMs
    counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  const keys = [...counts.keys()]
  const first = keys.reduce((a, b) => Math.min(a, b))
  const last = keys.reduce((a, b) => Math.max(a, b))
  const out: ChartPoint[] = []
  for (let at = first; at <= last; at += sizeMs) out.push({ at, value: counts.get(at) ?? 0 })
  return out
}

/** "15 min", "1 h": a bucket size in a panel title. */
function formatBucket(ms: number): string {
  return ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`
}

function groupByName(signals: Signal[]): Map<string, Signal[]> {
  const m = new Map<string, Signal[]>()
  for (const s of signals) {
    const list = m.get(s.name) ?? []
    list.push(s)
    m.set(s.name, list)
  }
  return m
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v)
}
