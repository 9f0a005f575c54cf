import type { Signal } from '../../signals/signal.js'

/**
 * The one storage interface. RedisStore is what a team deploys; MemoryStore is the embedded default
 * for a single process and for replay. Both pass test/engine/store.conformance.test.ts.
 * Every method takes time as an argument: the store never reads the clock either.
 */

export type AppendResult = {
  accepted: number
  /** Rejected signals by reason ("missing name", "invalid at", …); a rejected signal is never half-stored. */
  rejected: Record<string, number>
  /**
   * Which signals were refused (their index in the appended array) and why; only when asked for with
   * `listRefused`, so a writer that batches several callers' signals into one append can answer each
   * caller for its own (a per-append limit refuses some signals of a batch and stores the rest).
   */
  refusals?: { index: number; reason: string }[]
}

/** How to append. */
export type AppendOptions = { listRefused?: boolean }

export type SignalQuery = {
  cluster: string
  /** Omit for cluster-wide signals only. */
  broker?: string
  /** Catalogue names to read; omit for all. */
  names?: string[]
  /** Inclusive epoch ms. */
  from: number
  /** Inclusive epoch ms. */
  to: number
}

export type BrokerRef = { cluster: string; broker: string }

export type AlertState = 'pending' | 'firing' | 'resolved'

export type AlertRecord = {
  fingerprint: string
  ruleId: string
  cluster: string
  broker?: string
  labels: Record<string, string>
  state: AlertState
  /** When the condition first held (pending since). */
  activeAt: number
  firedAt?: number
  resolvedAt?: number
  /** Last time the engine saw the condition hold. */
  lastSeenAt: number
  /**
   * When the evidence happened (its own timestamps, not the evaluation's): the earliest signal of
   * the match that opened the alert, and the newest of the latest match. What a reader of the alert
   * wants to know is when the broker broke, not when the engine looked.
   */
  firstEvidenceAt?: number
  evidenceAt?: number
  /** Last notification sent, for re-notify intervals. */
  notifiedAt?: number
  /**
   * Bot bookkeeping: where the alert message lives, so updates edit it in place; `threadTs` when it
   * was posted in another alert's thread (a consequence of that broker's alert), where its replies go.
   */
  message?: { channel: string; ts: string; threadTs?: string }
  /** The latest rendered cause text and evidence count, for update decisions. */
  summary?: string
  evidenceCount?: number
  /** Bot bookkeeping: the newest evidence time already shown in the channel, so an update shows only what is new. */
  shownEvidenceAt?: number
  /**
   * Bot bookkeeping: the fingerprint of the alert that took this one's message over (the same broker's
   * incident, named more exactly) or that this one joined; such an alert posts nothing more.
   */
  supersededBy?: string
}

export type Silence = {
  id: string
  /** A rule id/name or an alert fingerprint. */
  matcher: string
  createdBy: string
  createdAt: number
  expiresAt: number
  comment?: string
}

export type AuditRecord = {
  at: number
  user: string
  channel: string
  action: string
  target: string
  before?: string
  after?: string
  outcome: 'requested' | 'approved' | 'applied' | 'cancelled' | 'denied' | 'failed'
  detail?: string
}

/** Where a configuration change stands; only `requested` and `confirmed` may still move. */
export type PendingChangeState = 'requested' | 'confirmed' | 'applying' | 'applied' | 'cancelled' | 'failed' | 'refused'

/**
 * A configuration change waiting for Confirm/Approve, held by the store so a button carries only its
 * id: everything a click could forge (requester, key, value, risk) is read from here.
 */
export type PendingChange = {
  id: string
  cluster: string
  topic: string
  op: 'set' | 'reset'
  key: string
  value?: string
  /** The value shown to the requester; the change is refused if it differs at apply time. */
  before: string | null
  requestedBy: string
  channel: string
  /** Computed from the config when the change was requested. */
  risky: boolean
  state: PendingChangeState
  confirmedBy?: string
  /** Who moved it to its final state (applied, cancelled, refused). */
  decidedBy?: string
  createdAt: number
  /** After this a click is refused; the record itself lingers for the store's TTL so a late click is told why. */
  expiresAt: number
}

/**
 * One signal of one scope for `readSeriesChanges`: a range the caller already holds (with the first
 * signal it holds there, if any), to check, and a range to read. Inclusive epoch ms; a read whose
 * start is after its end reads nothing.
 */
export type SeriesCheck = { name: string; check?: { from: number; to: number; first?: Signal }; read: { from: number; to: number } }

/**
 * The store's side of a SeriesCheck: how many signals lie in the checked range (-1 when nothing was
 * checked) and whether the first of them is the one the caller gave, and the signals of the read range.
 */
export type SeriesCheckResult = { count: number; firstSame: boolean; signals: Signal[] }

export type StoredDiagnosis = { at: number; cluster: string; broker: string; ruleId: string; severity: string; cause: string }

export interface Store {
  /** Validates and writes signals; invalid ones are counted by reason, never half-stored. */
  append(signals: Signal[], opts?: AppendOptions): Promise<AppendResult>
  /** Events and gauge samples in [from, to], sorted by time; facts are returned by `facts`. */
  query(q: SignalQuery): Promise<Signal[]>
  /**
   * The same signals as `query`, one time-sorted list per signal name (names without any left out):
   * the shape the evaluator reads, handed over without the merge sort and regrouping of `query`.
   */
  querySeries(q: SignalQuery): Promise<Map<string, Signal[]>>
  /**
   * Optional, for a store where reads are costly (RedisStore): for each of a scope's signals, checks
   * a range the caller read before and reads another, in one request, so the alert loop re-reads
   * only what is new since its last tick (engine/series-cache.ts).
   */
  readSeriesChanges?(scope: { cluster: string; broker?: string }, parts: readonly SeriesCheck[]): Promise<SeriesCheckResult[]>
  /** The latest value of every fact for a broker (and the cluster-wide ones when broker is omitted). */
  facts(cluster: string, broker?: string): Promise<Signal[]>
  /** Every broker that has any stored signal. */
  brokers(): Promise<BrokerRef[]>
  /**
   * Retention: drops events and samples older than `before`, or older than `perSignal[name]` for the
   * signals named there. A scope left with no event or sample and no fact at or after `before` (a
   * broker gone quiet for the whole retention) loses its facts and leaves `brokers()`.
   * Returns how many events and samples were removed.
   */
  trim(before: number, perSignal?: Readonly<Record<string, number>>): Promise<number>

  /** Alert state by fingerprint. */
  getAlert(fingerprint: string): Promise<AlertRecord | undefined>
  /** Every alert, or with `open` only the pending and firing ones (what the alert loop reads each tick). */
  listAlerts(options?: { open?: boolean }): Promise<AlertRecord[]>
  /** Retention: deletes alerts resolved before `resolvedBefore`. Returns how many went. */
  pruneAlerts(resolvedBefore: number): Promise<number>
  /**
   * Compare-and-set of an alert's state: writes `next` only if the stored state is still `expected`
   * (undefined = absent). This is how two engine processes on one Redis produce one firing.
   */
  transitionAlert(expected: AlertState | undefined, next: AlertRecord): Promise<boolean>
  /** Updates non-state bookkeeping (message ts, notifiedAt, summary) of an existing alert. */
  updateAlert(fingerprint: string, patch: Partial<Omit<AlertRecord, 'fingerprint' | 'state'>>): Promise<void>

  addSilence(s: Silence): Promise<void>
  /** Silences still active at `now`. */
  listSilences(now: number): Promise<Silence[]>
  /** Lifts a silence before it expires (`unsilence`); false when no silence has that id. */
  removeSilence(id: string): Promise<boolean>

  /** Capped history of diagnoses for the digest. */
  recordDiagnosis(d: StoredDiagnosis): Promise<void>
  recentDiagnoses(since: number): Promise<StoredDiagnosis[]>

  appendAudit(r: AuditRecord): Promise<void>
  listAudit(limit: number): Promise<AuditRecord[]>

  /**
   * Compare-and-set of a pending change: writes `next` only if the stored state is still `expected`
   * (undefined = absent), and keeps it `ttlMs` from now. Two clicks racing on one change: one wins.
   */
  transitionPendingChange(expected: PendingChangeState | undefined, next: PendingChange, ttlMs: number): Promise<boolean>
  getPendingChange(id: string): Promise<PendingChange | undefined>

  /**
   * Records `token` for `ttlMs`; true only for the first caller while it is held. Signed Slack
   * requests pass through here, so each is accepted once across every replica on the store.
   */
  claimOnce(token: string, ttlMs: number): Promise<boolean>

  /** A lease lock (one replica posts the digest). True when `owner` now holds it. */
  acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean>
  releaseLock(name: string, owner: string): Promise<void>

  close(): Promise<void>
}

export { StoreUnavailableError } from './store-unavailable-error.js'
