import type { Signal } from '../../signals/signal.js'
import type { Sample } from './exposition.js'
import { decodeVersion } from '../../signals/units.js'
import { mapSample, normaliseSample } from './mapping.js'

/**
 * Turns one target's samples into signals, scrape after scrape. It keeps what rates and facts need
 * between scrapes (the previous value of each counter series, the last value of each fact), bounded
 * by `maxSeries`; series that vanish from a scrape are forgotten at its end.
 */
export type ConverterOptions = {
  cluster: string
  broker?: string
  /** Signal `source`, e.g. "prom:http://10.0.0.3:7071/metrics". */
  source: string
  /** Most counter and fact series remembered; new ones beyond it are dropped and counted. Default 200 000. */
  maxSeries?: number
}

/** Counts of one scrape's conversion. */
export type ConvertStats = {
  mapped: number
  unmapped: number
  signals: number
  /** Counters that went down (a reset) and were rated from zero. */
  counterResets: number
  /** New series dropped because maxSeries was reached. */
  droppedSeries: number
  /** Samples whose value was NaN or ±Inf where a number was needed. */
  nonFinite: number
}

const normaliseLabels = (labels: Record<string, string>) => normaliseSample({ name: '', labels, value: 0 }).labels

type SeriesState = { value: number; at: number; generation: number }

/** Signals read from the scraped process's own process_* series: the broker's only when the JVM's exporter is scraped. */
const PROCESS_SIGNALS = new Set(['fd.open', 'fd.max', 'process.start'])

function seriesKey(signal: string, labels: Record<string, string>): string {
  const keys = Object.keys(labels)
  if (keys.length === 0) return signal
  keys.sort()
  return signal + '\u0000' + keys.map((k) => `${k}=${labels[k]}`).join('\u0000')
}

/** Stateful sample → signal conversion for one scrape target. */
export class SampleConverter {
  private readonly series = new Map<string, SeriesState>()
  private readonly maxSeries: number
  private generation = 0
  private at = 0
  private stats: ConvertStats = SampleConverter.emptyStats()
  /** The last process start time seen (epoch ms), to tell a restart. */
  private processStartMs: number | undefined
  /** This scrape comes from a Go program (node-exporter), whose process_* series are its own, not the broker's. */
  private goProgram = false

  constructor(private readonly opts: ConverterOptions) {
    this.maxSeries = opts.maxSeries ?? 200_000
  }

  private static emptyStats(): ConvertStats {
    return { mapped: 0, unmapped: 0, signals: 0, counterResets: 0, droppedSeries: 0, nonFinite: 0 }
  }

  /** Number of remembered series (for memory accounting and tests). */
  get seriesCount(): number {
    return this.series.size
  }

  /** Starts a scrape observed at `at` (epoch ms); samples without their own timestamp get it. */
  begin(at: number): void {
    this.generation++
    this.at = at
    this.stats = SampleConverter.emptyStats()
    this.goProgram = false
  }

  private signal(name: string, at: number, value: number | undefined, labels: Record<string, string>, text?: string): Signal {
    const s: Signal = { name, at, cluster: this.opts.cluster, source: this.opts.source }
    if (this.opts.broker !== undefined) s.broker = this.opts.broker
    if (value !== undefined) s.value = value
    if (Object.keys(labels).length > 0) s.labels = labels
    if (text !== undefined) s.text = text
    return s
  }

  /** Remembers a series' value; false when the series is new and the table is full. */
  private remember(key: string, value: number, at: number): boolean {
    const known = this.series.get(key)
    if (!known && this.series.size >= this.maxSeries) {
      this.stats.droppedSeries++
      return false
    }
    if (known) {
      known.value = value
      known.at = at
      known.generation = this.generation
    } else {
      this.series.set(key, { value, at, generation: this.generation })
    }
    return true
  }

  /** Converts one sample; returns the signals it yields (none, one, or a fact and a restart). */
  convert(sample: Sample): Signal[] {
    // Go's client writes its go_* families first (families are sorted), so the process_* that follow are known to be its own.
    if (sample.name.startsWith('go_') || sample.name === 'node_exporter_build_info') this.goProgram = true
    const hit = mapSample(sample)
    if (!hit || (this.goProgram && PROCESS_SIGNALS.has(hit.mapping.signal))) {
      this.stats.unmapped++
      return []
    }
    this.stats.mapped++
    const { mapping, labels } = hit
    const at = sample.timestampMs ?? this.at
    const scale = mapping.scale ?? 1
    const out: Signal[] = []
    switch (mapping.kind) {
      case 'gauge': {
        if (!Number.isFinite(sample.value)) {
          this.stats.nonFinite++
          break
        }
        out.push(this.signal(mapping.signal, at, sample.value * scale, labels))
        break
      }
      case 'counter': {
        if (!Number.isFinite(sample.value)) {
          this.stats.nonFinite++
          break
        }
        const key = seriesKey(mapping.signal, labels)
        const known = this.series.get(key)
        const prev = known && { value: known.value, at: known.at }
        if (!this.remember(key, sample.value, at) || !prev) break
        const dtSeconds = (at - prev.at) / 1000
        if (dtSeconds <= 0) break
        let delta = sample.value - prev.value
        if (delta < 0) {
          // A counter only goes down when its process restarted: it counted up from zero since.
          this.stats.counterResets++
          delta = sample.value
        }
        out.push(this.signal(mapping.signal, at, (delta / dtSeconds) * scale, labels))
        break
      }
      case 'fact': {
        if (!Number.isFinite(sample.value)) {
          this.stats.nonFinite++
          break
        }
        const value = mapping.value ? mapping.value(normaliseLabels(sample.labels), sample.value) : sample.value * scale
        if (value === undefined) break
        const key = seriesKey(mapping.signal, labels)
        const prevValue = this.series.get(key)?.value
        this.remember(key, value, at)
        if (prevValue === value) break
        out.push(this.signal(mapping.signal, at, value, labels, mapping.signal === 'broker.version' ? `Kafka version ${decodeVersion(value)} (JMX app-info)` : undefined))
        if (mapping.signal === 'process.start') for (const s of this.noteProcessStart(value, at)) out.push(s)
        break
      }
    }
    this.stats.signals += out.length
    return out
  }

  private noteProcessStart(startMs: number, at: number): Signal[] {
    const before = this.processStartMs
    this.processStartMs = startMs
    if (before === undefined || before === startMs) return []
    // The process restarted: counter values from the old process mean nothing to the new one.
    for (const [key, state] of this.series) {
      if (!key.startsWith('process.start') && state.generation !== this.generation) this.series.delete(key)
    }
    const from = new Date(before).toISOString()
    const to = new Date(startMs).toISOString()
    return [this.signal('process.restart', at, undefined, { from, to }, `process start time changed from ${from} to ${to}`)]
  }

  /** Ends a scrape: forgets series this scrape did not carry, and returns its counts. */
  end(): ConvertStats {
    for (const [key, state] of this.series) {
      if (state.generation !== this.generation) this.series.delete(key)
    }
    return this.stats
  }
}
