import type { Signal } from '../signals/signal.js'
import type { Dimension } from '../signals/units.js'

/**
 * What the evaluator hands to diagnosis and alerts: one occasion on which a condition held, with the
 * very signals it rests on, so every cause can show its evidence instead of asking to be trusted.
 */
export type Match = {
  /** When the condition became true: the later event of a temporal pair, the start of an aggregate episode. */
  at: number
  /** Earliest evidence (or episode start). */
  firstAt: number
  /** Last moment the condition was seen to hold; equals `to` while it still holds. */
  lastAt: number
  /** The signals used, sorted by time. Aggregates keep a bounded sample of their window. */
  evidence: Signal[]
  /** How many signals the match rested on before evidence was capped. */
  evidenceTotal: number
  /** Group labels from `by` clauses; part of the alert fingerprint. */
  labels: Record<string, string>
  /** Values for `{placeholder}` interpolation, keyed by signal name: matched value or aggregate value. */
  values: Record<string, MatchValue>
}

/** A number with the dimension it is expressed in, so interpolation can format it with units. */
export type MatchValue = { value: number; dimension: Dimension; suffix?: string }

/** The evaluation window. Passed in, never read from a clock, so replay and tests are exact. */
export type EvalWindow = {
  /** Inclusive epoch ms: matches must hold at or after this. */
  from: number
  /** Inclusive epoch ms: nothing after this is seen. */
  to: number
  /** The caller's present; facts recorded after it are not yet known. */
  now: number
}

/**
 * Everything one broker's evaluation may look at: its own series, joined with the cluster-wide ones,
 * each sorted by time, plus the latest facts. Built once and shared by every rule.
 */
export type EvalData = {
  cluster: string
  broker: string
  /** Events and gauge samples per signal name, sorted by `at`. */
  series: ReadonlyMap<string, readonly Signal[]>
  /** Latest known facts (one per name and label set). */
  facts: readonly Signal[]
  /**
   * The stretch of time the data covers, when it may be less than the windows rules name (a replayed
   * excerpt): `rate()` then divides by the covered part of its window. Absent for a live store.
   */
  coverage?: { from: number; to: number }
}
