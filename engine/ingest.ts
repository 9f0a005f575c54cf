import { capText, validateSignal } from '../signals/jsonl.js'
import { SIGNAL_LIMITS } from '../signals/signal-limits.js'
import { checkBrokerId } from './broker-id.js'
import type { Signal } from '../signals/signal.js'
import type { AppendResult, Store } from './store/store.js'

/**
 * The streaming write path (log tailers, scrapers, the signals-topic consumer): batches appends,
 * rides out a store outage in a bounded buffer, retries with backoff, and acknowledges a signal only
 * once the store holds it.
 *
 * Policy when the buffer is full: a write() that does not fit *as a whole* is refused at once —
 * every valid signal of that call is counted as 'buffer full', reported through onEvent
 * ('buffer-full') and stats(), and nothing of the call is buffered. Signals already buffered are
 * never dropped to make room, so nothing acknowledged, nor anything waiting for its
 * acknowledgement, is ever lost. A caller that needs every signal keeps its own position (file
 * offset, Kafka offset) and offers the refused call again later.
 */

/**
 * The longest raw evidence text kept per signal (signals/signal-limits.ts): 2 KiB holds every real
 * Kafka and JVM line we have recorded, while a 64 KiB line would otherwise be stored whole, once per
 * signal it yields, for the whole retention.
 */
export const MAX_EVIDENCE_TEXT_CHARS = SIGNAL_LIMITS.textChars

/** The signal with its text cut to MAX_EVIDENCE_TEXT_CHARS (ending in "…"); the same object when it fits. */
export function capEvidenceText(s: Signal): Signal {
  if (s.text === undefined || s.text.length <= MAX_EVIDENCE_TEXT_CHARS) return s
  return { ...s, text: capText(s.text) }
}

/** What happened to the signals of one write() call. */
export type WriteOutcome = {
  /** Signals now held by the store (acknowledged). */
  accepted: number
  /** Refused signals by reason: validation reasons, the store's per-append limits ('too many new clusters', 'too many new brokers', 'too many brokers'), 'buffer full', 'writer closed'. */
  rejected: Record<string, number>
}

/** Things an operator should hear about; the caller decides where they go (log, metric, Slack). */
export type IngestEvent =
  | { kind: 'store-down'; message: string; attempt: number; retryInMs: number; buffered: number }
  | { kind: 'store-up'; attempts: number; buffered: number }
  | { kind: 'buffer-full'; refused: number; buffered: number; capacity: number }
  | { kind: 'invalid'; rejected: Record<string, number> }

/** Tuning for the write path; the defaults suit one process tailing a few brokers. */
export type SignalWriterOptions = {
  /** Signals per store.append call. Default 5000. */
  batchSize?: number
  /** Appends in flight at once, so encoding the next batch overlaps the store's work. Default 2. */
  concurrency?: number
  /** Signals held while waiting for the store; beyond this, writes are refused. Default 100 000. */
  maxBuffered?: number
  /** First retry delay after a failed append; doubles per attempt. Default 100 ms. */
  retryInitialMs?: number
  /** Longest retry delay. Default 5000 ms. */
  retryMaxMs?: number
  onEvent?: (event: IngestEvent) => void
}

/** Counters for health checks and the `status` command. */
export type WriterStats = {
  buffered: number
  capacity: number
  stored: number
  rejected: Record<string, number>
  retries: number
  storeDown: boolean
  lastError?: string
}

/**
 * Index in the batch → the reason the store refused that signal. A store that does not list its
 * refusals has them counted against the batch's last signals, so the totals stay right even when the
 * callers they are told to cannot be.
 */
function refusalsOf(result: AppendResult, size: number): Map<number, string> {
  const at = new Map<number, string>()
  if (result.refusals) {
    for (const r of result.refusals) at.set(r.index, r.reason)
    return at
  }
  let i = size
  for (const [reason, n] of Object.entries(result.rejected)) for (let k = 0; k < n && i > 0; k++) at.set(--i, reason)
  return at
}

type Ticket = { remaining: number; outcome: WriteOutcome; resolve: (o: WriteOutcome) => void }
type Entry = { signal: Signal; ticket: Ticket }

const addCount = (into: Record<string, number>, reason: string, n: number) => {
  if (n > 0) into[reason] = (into[reason] ?? 0) + n
}

/** See the module comment for the buffering and full-buffer policy. */
export class SignalWriter {
  private readonly batchSize: number
  private readonly concurrency: number
  private readonly capacity: number
  private readonly retryInitialMs: number
  private readonly retryMaxMs: number
  private readonly onEvent: (event: IngestEvent) => void
  /** Admitted signals not yet handed to an append; `head` is the first live index. */
  private queue: Entry[] = []
  private head = 0
  /** Signals inside an append that has not succeeded yet (including ones waiting to retry). */
  private inFlight = 0
  private readonly workers = new Set<Promise<void>>()
  private readonly retryWakers = new Set<() => void>()
  private closed = false
  private attempts = 0
  private readonly counters: Omit<WriterStats, 'buffered' | 'capacity'> = { stored: 0, rejected: {}, retries: 0, storeDown: false }

  constructor(
    private readonly store: Store,
    options: SignalWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 5000
    this.concurrency = Math.max(1, options.concurrency ?? 2)
    this.capacity = options.maxBuffered ?? 100_000
    this.retryInitialMs = options.retryInitialMs ?? 100
    this.retryMaxMs = options.retryMaxMs ?? 5000
    this.onEvent = options.onEvent ?? (() => undefined)
  }

  /** Signals admitted but not yet stored. */
  get buffered(): number {
    return this.queue.length - this.head + this.inFlight
  }

  /**
   * Offers signals. Resolves once every admitted signal is stored; invalid and refused ones are
   * counted in the outcome right away. Never rejects.
   */
  write(signals: Signal[]): Promise<WriteOutcome> {
    const outcome: WriteOutcome = { accepted: 0, rejected: {} }
    const valid: Signal[] = []
    for (const raw of signals) {
      const v = validateSignal(raw)
      if (!v.ok) addCount(outcome.rejected, v.reason, 1)
      else if (v.signal.broker !== undefined && checkBrokerId(v.signal.broker)) addCount(outcome.rejected, 'invalid broker', 1)
      else valid.push(capEvidenceText(v.signal))
    }
    if (Object.keys(outcome.rejected).length > 0) this.onEvent({ kind: 'invalid', rejected: { ...outcome.rejected } })
    const refuse = (reason?: string) => {
      if (reason) addCount(outcome.rejected, reason, valid.length)
      for (const [r, n] of Object.entries(outcome.rejected)) addCount(this.counters.rejected, r, n)
      return Promise.resolve(outcome)
    }
    if (this.closed) return refuse('writer closed')
    if (valid.length === 0) return refuse()
    if (this.buffered + valid.length > this.capacity) {
      this.onEvent({ kind: 'buffer-full', refused: valid.length, buffered: this.buffered, capacity: this.capacity })
      return refuse('buffer full')
    }
    for (const [r, n] of Object.entries(outcome.rejected)) addCount(this.counters.rejected, r, n)
    return new Promise<WriteOutcome>((resolve) => {
      const ticket: Ticket = { remaining: valid.length, outcome, resolve }
      for (const signal of valid) this.queue.push({ signal, ticket })
      this.kick()
    })
  }

  /** Resolves when everything admitted so far is stored (or the writer was closed). */
  async flush(): Promise<void> {
    while (this.workers.size > 0) await Promise.all([...this.workers])
  }

  stats(): WriterStats {
    return { ...this.counters, rejected: { ...this.counters.rejected }, buffered: this.buffered, capacity: this.capacity }
  }

  /**
   * Stops the writer. Already-buffered signals get until `graceMs` to reach the store; whatever is
   * still unstored then is answered as 'writer closed' (never acknowledged, so never lost silently).
   */
  async close(graceMs = 0): Promise<WriterStats> {
    if (graceMs > 0 && this.buffered > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([this.flush(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))])
      clearTimeout(timer)
    }
    this.closed = true
    for (const wake of [...this.retryWakers]) wake()
    await this.flush()
    this.answerClosed(this.queue.slice(this.head))
    this.queue = []
    this.head = 0
    return this.stats()
  }

  private answerClosed(entries: Entry[]): void {
    for (const entry of entries) {
      addCount(entry.ticket.outcome.rejected, 'writer closed', 1)
      addCount(this.counters.rejected, 'writer closed', 1)
      this.settle(entry.ticket)
    }
  }

  private kick(): void {
    while (!this.closed && this.workers.size < this.concurrency && this.queue.length > this.head) {
      const worker: Promise<void> = this.work().finally(() => {
        this.workers.delete(worker)
        this.kick()
      })
      this.workers.add(worker)
    }
  }

  private settle(ticket: Ticket): void {
    if (--ticket.remaining === 0) ticket.resolve(ticket.outcome)
  }

  /** Takes batches off the queue and stores each, retrying it until it is stored or the writer closes. */
  private async work(): Promise<void> {
    // Let writes issued in the same turn join the first batch.
    await new Promise<void>((r) => setImmediate(r))
    while (!this.closed && this.queue.length > this.head) {
      const batch = this.queue.slice(this.head, this.head + this.batchSize)
      this.head += batch.length
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head)
        this.head = 0
      }
      this.inFlight += batch.length
      let result: AppendResult | undefined
      try {
        result = await this.storeBatch(batch)
        if (!result) {
          this.answerClosed(batch)
          return
        }
      } finally {
        this.inFlight -= batch.length
      }
      if (this.counters.storeDown) {
        this.counters.storeDown = false
        this.onEvent({ kind: 'store-up', attempts: this.attempts, buffered: this.buffered })
      }
      this.attempts = 0
      // A signal the store refused (a per-append limit: too many new clusters or brokers) is answered
      // as rejected with the store's reason, never as accepted: it is not stored and will not be.
      const refusedAt = refusalsOf(result, batch.length)
      for (const [i, entry] of batch.entries()) {
        const reason = refusedAt.get(i)
        if (reason === undefined) {
          entry.ticket.outcome.accepted++
          this.counters.stored++
        } else {
          addCount(entry.ticket.outcome.rejected, reason, 1)
          addCount(this.counters.rejected, reason, 1)
        }
        this.settle(entry.ticket)
      }
    }
  }

  /** The store's answer once stored; undefined when the writer closed first. */
  private async storeBatch(batch: Entry[]): Promise<AppendResult | undefined> {
    const signals = batch.map((e) => e.signal)
    while (!this.closed) {
      try {
        return await this.store.append(signals, { listRefused: true })
      } catch (err) {
        await this.backOff(err)
      }
    }
    return undefined
  }

  private async backOff(err: unknown): Promise<void> {
    this.attempts++
    this.counters.retries++
    this.counters.storeDown = true
    const message = err instanceof Error ? err.message : String(err)
    this.counters.lastError = message
    const retryInMs = Math.min(this.retryInitialMs * 2 ** Math.min(this.attempts - 1, 20), this.retryMaxMs)
    this.onEvent({ kind: 'store-down', message, attempt: this.attempts, retryInMs, buffered: this.buffered })
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        this.retryWakers.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, retryInMs)
      this.retryWakers.add(wake)
    })
  }
}
