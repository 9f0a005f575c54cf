import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'
import type { Abnormality, Diagnosis } from './diagnosis.js'
import { timeOfDay } from './evidence.js'
import type { EvalData, EvalWindow } from './match.js'
import { signalDimension, signalKind } from './signal-kind.js'
import { phraseOf } from './signal-phrases.js'
import { GENERIC_LOG_SIGNALS } from './unexplained.js'

/** Events that are routine on a healthy broker and say nothing on their own. */
const ROUTINE_EVENTS = new Set(['group.stable', 'isr.expand', 'log.segment_roll'])

/**
 * Events a healthy JVM writes all the time (a safepoint every second, a young GC every few), which
 * are abnormal only from this value on: a 90 µs safepoint sync is routine, a 1 s one stops the broker
 * for longer than most produce timeouts tolerate.
 */
const NOTABLE_FROM: Record<string, number> = {
  'safepoint.sync': 1000,
  'safepoint.total': 1000,
  'gc.pause': 1000,
}

/** True when an event's value is past what a healthy broker shows routinely (a pause of 1 s or more). */
export function isNotableValue(name: string, value: number | undefined): boolean {
  const from = NOTABLE_FROM[name]
  return from === undefined || (value ?? 0) >= from
}

/**
 * Events routine in small numbers: a deploy rebalances each group a few times; churn (the leak
 * trigger of seed 003) is tens an hour.
 */
const NOTABLE_COUNT: Record<string, number> = { 'group.rebalance': 10 }

/** Generic log errors: the diagnosis lists them by template as unexplained errors instead. */
const LISTED_ELSEWHERE = new Set<string>(GENERIC_LOG_SIGNALS)

/** Gauges worth mentioning, and when: a value past the limit in the bad direction. */
const GAUGE_LIMITS: Record<string, { worse: 'above' | 'below'; limit: number }> = {
  'partitions.under_replicated': { worse: 'above', limit: 0 },
  'partitions.offline': { worse: 'above', limit: 0 },
  'partitions.under_min_isr': { worse: 'above', limit: 0 },
  'request_handler.idle': { worse: 'below', limit: 0.2 },
  'network_processor.idle': { worse: 'below', limit: 0.2 },
  'gc.time': { worse: 'above', limit: 0.1 },
  'fetch.down_conversion': { worse: 'above', limit: 0 },
  'isr.shrink_rate': { worse: 'above', limit: 0 },
}

/**
 * True when one point is on the bad side of what a healthy broker shows: a gauge past its limit
 * (an offline-partition count of 0 is not), an event past its notable value; anything else is.
 */
export function isNotablePoint(name: string, value: number | undefined): boolean {
  const gauge = GAUGE_LIMITS[name]
  if (gauge) return value !== undefined && (gauge.worse === 'above' ? value > gauge.limit : value < gauge.limit)
  return isNotableValue(name, value)
}

/** Gauges read against their limit gauge (fd.open of fd.max): abnormal past this share. */
const LIMIT_PAIRS: [string, string][] = [['fd.open', 'fd.max'], ['mmap.count', 'mmap.max'], ['heap.after_gc', 'heap.max']]
const LIMIT_SHARE = 0.8

/** Segment rolls become notable past this many in the window (a roll storm). */
const ROLL_STORM = 100

/** Entries shown at most. */
const MAX_ABNORMAL = 10

/**
 * When no rule matched, what is still unusual: warning events with their count and worst value,
 * gauges past sane limits, resources near their ceilings. Ordered by how many times it happened.
 */
export function summariseAbnormal(data: EvalData, window: EvalWindow): Abnormality[] {
  const out: Abnormality[] = []
  const inWindow = (name: string) => (data.series.get(name) ?? []).filter((s) => s.at >= window.from && s.at <= window.to)
  for (const name of data.series.keys()) {
    if (LISTED_ELSEWHERE.has(name)) continue
    const kind = signalKind(name)
    const list = name in NOTABLE_FROM ? inWindow(name).filter((s) => isNotableValue(name, s.value)) : inWindow(name)
    if (!list.length) continue
    if (kind === 'event' && list.length >= (NOTABLE_COUNT[name] ?? 1) && (!ROUTINE_EVENTS.has(name) || (name === 'log.segment_roll' && list.length >= ROLL_STORM))) {
      const worst = extreme(list, 'above')
      const worstText = worst ? `${format(worst)} at ${timeOfDay(worst.at)}` : undefined
      out.push({
        signal: name,
        count: list.length,
        summary: `${list.length} × ${phraseOf(name)}, last at ${timeOfDay(list[list.length - 1].at)}${worstText ? `; worst ${worstText}` : ''}`,
        worst: worst ? format(worst) : undefined,
      })
    }
    const limit = GAUGE_LIMITS[name]
    if (kind === 'gauge' && limit) {
      const bad = list.filter((s) => s.value !== undefined && (limit.worse === 'above' ? s.value > limit.limit : s.value < limit.limit))
      if (!bad.length) continue
      const worst = extreme(bad, limit.worse)!
      out.push({
        signal: name,
        count: bad.length,
        summary: `${name} ${limit.worse} ${formatValue(limit.limit, signalDimension(name))} in ${bad.length} of ${list.length} samples; worst ${format(worst)} at ${timeOfDay(worst.at)}`,
        worst: format(worst),
      })
    }
  }
  for (const [used, max] of LIMIT_PAIRS) {
    const u = inWindow(used)
    const m = latest(data.series.get(max) ?? [], window.to)
    if (!u.length || !m?.value) continue
    const worst = extreme(u, 'above')!
    const share = worst.value! / m.value
    if (share < LIMIT_SHARE) continue
    out.push({
      signal: used,
      count: u.filter((s) => (s.value ?? 0) / m.value! >= LIMIT_SHARE).length,
      summary: `${used} reached ${format(worst)} of ${max} ${format(m)} (${Math.round(share * 100)}%) at ${timeOfDay(worst.at)}`,
      worst: format(worst),
    })
  }
  return out.sort((a, b) => b.count - a.count || a.signal.localeCompare(b.signal)).slice(0, MAX_ABNORMAL)
}

/**
 * The one verdict behind "nothing abnormal": no cause above info, no error the rules leave
 * unexplained, nothing on the abnormal list. Every answer that says the broker looks healthy (the CLI,
 * an upload in Slack, the digest's status) asks this, so none says so after listing something.
 */
export function looksHealthy(d: Pick<Diagnosis, 'causes' | 'abnormal' | 'unexplained'>): boolean {
  return !d.causes.some((c) => c.severity !== 'info') && !d.unexplained?.length && d.abnormal.length === 0
}

function extreme(list: readonly Signal[], worse: 'above' | 'below'): Signal | undefined {
  let best: Signal | undefined
  for (const s of list) {
    if (s.value === undefined) continue
    if (!best || (worse === 'above' ? s.value > best.value! : s.value < best.value!)) best = s
  }
  return best
}

function latest(list: readonly Signal[], to: number): Signal | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (list[i].at <= to) return list[i]
  return undefined
}

function format(s: Signal): string {
  return formatValue(s.value ?? 0, signalDimension(s.name))
}
