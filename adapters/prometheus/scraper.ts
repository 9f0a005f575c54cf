import http from 'node:http'
import https from 'node:https'
import { redactText, redactUrl } from '../../secrets/redact.js'
import type { Signal } from '../../signals/signal.js'
import { ExpositionParser, type ParseStats } from './exposition.js'
import { SampleConverter, type ConvertStats } from './to-signals.js'

/**
 * Scrapes one exporter endpoint: streams the response through the parser and the converter and hands
 * signals to the sink in batches, so a scrape of any size costs a batch of memory, not the scrape.
 * A target that does not answer is reported once as `source.stale` and retried with growing backoff;
 * a slow one is cut off at its timeout. Nothing here throws to the caller.
 */
export type ScrapeTarget = {
  /** e.g. http://10.0.0.3:7071/metrics */
  url: string
  cluster: string
  broker?: string
  /** Default 15 000. */
  intervalMs?: number
  /** Whole-scrape deadline (connect, headers and body). Default 10 000. */
  timeoutMs?: number
  /** Largest body read; a larger one is cut off and counted as failed. Default 256 MiB. */
  maxBytes?: number
  /** Most counter/fact series kept between scrapes. Default 200 000. */
  maxSeries?: number
}

/** Where signals go: a store's append, a test's array. */
export type SignalSink = (signals: Signal[]) => Promise<void> | void

/** The result of one scrape attempt. */
export type ScrapeOutcome = {
  ok: boolean
  url: string
  startedAt: number
  durationMs: number
  bytes: number
  parse?: ParseStats
  convert?: ConvertStats
  /** Why it failed: "timeout after 2000ms", "connect ECONNREFUSED 127.0.0.1:9", "HTTP 500". */
  error?: string
  /** Signals handed to the sink, source.stale included. */
  signals: number
  /** True on the first success after the target was stale. */
  recovered?: boolean
}

/** What every target's scraper shares: where signals go, the clock, batching and backoff limits. */
export type ScraperOptions = {
  sink: SignalSink
  /** Epoch ms; the adapter's only clock. */
  now?: () => number
  /** Signals per sink call. Default 5 000. */
  batchSize?: number
  /** Longest wait between attempts on a down target. Default 5 minutes. */
  maxBackoffMs?: number
}

class ScrapeFailure extends Error {}

/** One target's scraper and its health. */
export class TargetScraper {
  readonly converter: SampleConverter
  /** Consecutive failed attempts; 0 when the last one succeeded. */
  failures = 0
  /** True between the first failure and the next success: source.stale was sent. */
  stale = false
  /** When the target last answered a scrape in full; until it does, when this scraper was made. */
  lastAnsweredAt: number
  /** True when the last attempt connected and got no answer in time (not refused, not an error). */
  timedOut = false
  lastOutcome: ScrapeOutcome | undefined
  private readonly now: () => number
  private readonly batchSize: number
  private readonly maxBackoffMs: number

  constructor(
    readonly target: ScrapeTarget,
    private readonly options: ScraperOptions,
  ) {
    this.now = options.now ?? Date.now
    this.batchSize = options.batchSize ?? 5000
    this.maxBackoffMs = options.maxBackoffMs ?? 300_000
    this.lastAnsweredAt = this.now()
    this.converter = new SampleConverter({
      cluster: target.cluster,
      broker: target.broker,
      source: `prom:${redactUrl(target.url)}`,
      maxSeries: target.maxSeries,
    })
  }

  get intervalMs(): number {
    return this.target.intervalMs ?? 15_000
  }

  /**
   * Delay before the next attempt: the interval while healthy, doubling per failure up to
   * maxBackoffMs. A target that timed out keeps its interval: it is there (it took the connection), a
   * busy host answers it again soon, and a frozen JVM's silence is the evidence the next attempts record.
   */
  nextDelayMs(): number {
    if (this.failures === 0 || this.timedOut) return this.intervalMs
    return Math.min(this.intervalMs * 2 ** Math.min(this.failures, 20), Math.max(this.maxBackoffMs, this.intervalMs))
  }

  /** One scrape attempt, start to finish. */
  async scrapeOnce(): Promise<ScrapeOutcome> {
    const startedAt = this.now()
    const timeoutMs = this.target.timeoutMs ?? 10_000
    const maxBytes = this.target.maxBytes ?? 256 * 1024 * 1024
    let batch: Signal[] = []
    let sent = 0
    let bytes = 0
    const flush = async () => {
      if (batch.length === 0) return
      const out = batch
      batch = []
      sent += out.length
      await this.options.sink(out)
    }
    this.converter.begin(startedAt)
    const parser = new ExpositionParser((sample) => {
      for (const s of this.converter.convert(sample)) batch.push(s)
    })
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    try {
      const res = await request(this.target.url, controller.signal)
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
        res.resume()
        throw new ScrapeFailure(`HTTP ${res.statusCode}`)
      }
      res.setEncoding('utf8')
      for await (const chunk of res as AsyncIterable<string>) {
        bytes += Buffer.byteLength(chunk)
        if (bytes > maxBytes) {
          res.destroy()
          throw new ScrapeFailure(`body larger than ${maxBytes} bytes`)
        }
        parser.push(chunk)
        if (batch.length >= this.batchSize) await flush()
      }
      const parse = parser.end()
      const convert = this.converter.end()
      await flush()
      const wasStale = this.stale
      this.lastAnsweredAt = this.now()
      this.timedOut = false
      this.failures = 0
      this.stale = false
      const outcome: ScrapeOutcome = {
        ok: true,
        url: this.target.url,
        startedAt,
        durationMs: this.now() - startedAt,
        bytes,
        parse,
        convert,
        signals: sent,
      }
      if (wasStale) outcome.recovered = true
      this.lastOutcome = outcome
      return outcome
    } catch (err) {
      const error = controller.signal.aborted ? `timeout after ${timeoutMs}ms` : describeError(err)
      const failedAt = this.now()
      this.failures++
      this.timedOut = controller.signal.aborted || unansweredReason(err) === 'timeout'
      // Every failed attempt is evidence, not only the first: how long the broker has been silent, and
      // how (a frozen JVM holds its port and answers nothing; a dead one refuses).
      const unanswered: Signal = {
        name: 'scrape.unanswered',
        at: failedAt,
        cluster: this.target.cluster,
        value: Math.max(0, failedAt - this.lastAnsweredAt),
        labels: { target: redactUrl(this.target.url), reason: this.timedOut ? 'timeout' : unansweredReason(err) },
        source: `prom:${redactUrl(this.target.url)}`,
        text: redactText(`scrape of ${this.target.url} failed: ${error}`),
      }
      if (this.target.broker !== undefined) unanswered.broker = this.target.broker
      batch.push(unanswered)
      if (!this.stale) {
        this.stale = true
        const stale: Signal = {
          name: 'source.stale',
          at: startedAt,
          cluster: this.target.cluster,
          labels: { target: redactUrl(this.target.url) },
          source: `prom:${redactUrl(this.target.url)}`,
          text: redactText(`scrape of ${this.target.url} failed: ${error}`),
        }
        if (this.target.broker !== undefined) stale.broker = this.target.broker
        batch.push(stale)
      }
      // Samples read before a cut-off are still true observations: they are delivered too.
      try {
        await flush()
      } catch {
        batch = []
      }
      const outcome: ScrapeOutcome = {
        ok: false,
        url: this.target.url,
        startedAt,
        durationMs: this.now() - startedAt,
        bytes,
        parse: parser.stats,
        error,
        signals: sent,
      }
      this.lastOutcome = outcome
      return outcome
    } finally {
      clearTimeout(timer)
    }
  }
}

/** refused: nothing listens (the process is gone); error: it answered, but not with a scrape. */
function unansweredReason(err: unknown): 'refused' | 'timeout' | 'error' {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ECONNREFUSED') return 'refused'
  if (code === 'ETIMEDOUT') return 'timeout'
  return 'error'
}

function describeError(err: unknown): string {
  if (err instanceof ScrapeFailure) return err.message
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number }
  if (e && e.code) return `${e.syscall ?? 'request'} ${e.code}${e.address ? ` ${e.address}:${e.port}` : ''}`
  return err instanceof Error ? err.message : String(err)
}

function request(url: string, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http
    const req = lib.get(url, { signal, headers: { accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' } }, resolve)
    req.on('error', reject)
  })
}

/** Scrapes many targets forever (until stop), each on its own schedule and backoff. */
export class ScrapeLoop {
  readonly scrapers: TargetScraper[]
  private timers = new Map<TargetScraper, NodeJS.Timeout>()
  private running = new Set<Promise<unknown>>()
  private stopped = false

  constructor(
    targets: ScrapeTarget[],
    options: ScraperOptions,
    private readonly onOutcome: (o: ScrapeOutcome, scraper: TargetScraper) => void = () => {},
  ) {
    this.scrapers = targets.map((t) => new TargetScraper(t, options))
  }

  /** Starts every target at once, then each on its own delay. */
  start(): void {
    for (const s of this.scrapers) this.schedule(s, 0)
  }

  private schedule(s: TargetScraper, delayMs: number): void {
    if (this.stopped) return
    const timer = setTimeout(() => {
      const run = s.scrapeOnce().then((o) => {
        try {
          this.onOutcome(o, s)
        } finally {
          this.schedule(s, s.nextDelayMs())
        }
      })
      this.running.add(run)
      void run.finally(() => this.running.delete(run))
    }, delayMs)
    timer.unref?.()
    this.timers.set(s, timer)
  }

  /** Stops scheduling and waits for scrapes in flight. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
    await Promise.allSettled([...this.running])
  }
}
