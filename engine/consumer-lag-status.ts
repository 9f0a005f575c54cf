/**
 * Burrow's evaluation of a consumer group's progress on one partition, and kafka-lag-exporter's lag
 * in seconds, as pure functions of what was recorded: the group's last commits and the partition's
 * log-end offsets over time. No threshold on the number of messages: a partition is judged by how
 * its offsets and lag moved over a window of commits (linkedin/Burrow
 * core/internal/evaluator/caching.go, its wiki page "Consumer Lag Evaluation Rules").
 */

/** A partition's status, in Burrow's order of severity. */
export type LagStatus = 'OK' | 'WARNING' | 'REWIND' | 'STALLED' | 'STOPPED'

/** Severity rank of each status; a group takes its worst partition's. */
export const LAG_STATUS_RANK: Readonly<Record<LagStatus, number>> = { OK: 0, WARNING: 1, REWIND: 2, STALLED: 3, STOPPED: 4 }

/** One commit in the window: the offset, when it was committed, and the lag when it was seen (none when no log end was known yet). */
export type CommitPoint = { at: number; offset: number; lag?: number }

/** What Burrow's evaluation reads for one partition. */
export type PartitionWindow = {
  /** The last commits, oldest first (Burrow keeps 10: `intervals`). */
  commits: readonly CommitPoint[]
  /** Burrow's ring of recent broker offsets (engine/consumer-lag-series.ts passes the log ends seen since the last commit). */
  recentLogEnds: readonly number[]
  /** The lag now: latest log end minus the latest committed offset, at least 0. */
  currentLag: number
}

/** Which of Burrow's rules decided a status, for the answer's "why". */
export type StatusRule = 'no-commits' | 'too-few-commits' | 'no-current-lag' | 'stopped' | 'rewind' | 'lag-was-zero' | 'stalled' | 'lag-not-decreasing' | 'lag-decreasing'

export type PartitionVerdict = { status: LagStatus; rule: StatusRule }

/** Commits Burrow's window holds by default (storage `intervals`). */
export const DEFAULT_COMMIT_WINDOW = 10

/** Commits a window needs before it is judged at all (Burrow's minimum-complete): two commits a poll apart say nothing yet. */
export const DEFAULT_MIN_COMMITS = 3

/**
 * The status of one partition at `nowMs`, rule by rule in Burrow's order. `allowedLag` is Burrow's
 * `allowed-lag` (messages of lag still counted as none; default 0). One difference from Burrow's
 * defaults: a window of fewer than `minCommits` commits is OK, as Burrow's `minimum-complete` makes
 * it when set (its default 0 judges a single commit: STOPPED a moment after it, since the window
 * spans no time, or STALLED).
 */
export function evaluatePartition(w: PartitionWindow, nowMs: number, allowedLag = 0, minCommits = DEFAULT_MIN_COMMITS): PartitionVerdict {
  const c = w.commits
  if (c.length === 0) return { status: 'OK', rule: 'no-commits' }
  if (c.length < minCommits) return { status: 'OK', rule: 'too-few-commits' }
  // A partition the group has caught up on is never in error, whatever its history.
  if (w.currentLag <= allowedLag) return { status: 'OK', rule: 'no-current-lag' }
  // 1. Commits stopped: the time since the last commit is longer than the window's commits span.
  //    Checked first: zero lag long ago does not excuse a consumer that stopped. Not when a recent
  //    log end shows the consumer was caught up (new data just arrived; give it time to commit).
  const first = c[0]
  const last = c[c.length - 1]
  if (nowMs - last.at > last.at - first.at && !recentLagZero(last.offset, w.recentLogEnds)) return { status: 'STOPPED', rule: 'stopped' }
  // 2. The offset went back and has not come back to where it was: a reset, or a rewind after a rebalance.
  const rewind = rewindIndex(c)
  if (rewind > 0 && !rewindRecovered(c, rewind)) return { status: 'REWIND', rule: 'rewind' }
  // 3. Lag was at (or under the allowance) somewhere in the window: the consumer keeps up.
  if (c.some((p) => p.lag !== undefined && p.lag <= allowedLag)) return { status: 'OK', rule: 'lag-was-zero' }
  // 4. The same offset committed over the whole window while there is lag: the consumer is alive but does not progress.
  if (c.every((p) => p.offset === first.offset)) return { status: 'STALLED', rule: 'stalled' }
  // 5. Offsets move but the lag never went down between two commits: the consumer is slower than its producers.
  if (lagNeverDecreases(c)) return { status: 'WARNING', rule: 'lag-not-decreasing' }
  return { status: 'OK', rule: 'lag-decreasing' }
}

function recentLagZero(lastOffset: number, logEnds: readonly number[]): boolean {
  for (const e of logEnds) if (e <= lastOffset) return true
  return false
}

function rewindIndex(c: readonly CommitPoint[]): number {
  for (let i = 1; i < c.length; i++) if (c[i].offset < c[i - 1].offset) return i
  return -1
}

function rewindRecovered(c: readonly CommitPoint[], at: number): boolean {
  const before = c[at - 1].offset
  for (let i = at; i < c.length; i++) if (c[i].offset >= before) return true
  return false
}

function lagNeverDecreases(c: readonly CommitPoint[]): boolean {
  let prev: number | undefined
  for (const p of c) {
    if (p.lag === undefined) continue
    if (prev !== undefined && p.lag < prev) return false
    prev = p.lag
  }
  return true
}

/** A log-end offset seen at a time. */
export type LogEndPoint = { at: number; offset: number }

/**
 * Lag in seconds as kafka-lag-exporter estimates it: how long ago the log end passed `committed`,
 * interpolated linearly between the two recorded log-end points around it (`history` oldest first).
 * A committed offset older than the history is extrapolated with the history's overall rate; one
 * at or past the latest log end has no lag. Undefined when the history cannot say (one point, or
 * no growth at all).
 */
export function lagSecondsAt(history: readonly LogEndPoint[], committed: number, nowMs: number): number | undefined {
  if (history.length === 0) return undefined
  const latest = history[history.length - 1]
  if (committed >= latest.offset) return 0
  // Binary search: the first point whose offset is past `committed`.
  let lo = 0
  let hi = history.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (history[mid].offset > committed) hi = mid
    else lo = mid + 1
  }
  let producedAt: number
  if (lo > 0) {
    const a = history[lo - 1]
    const b = history[lo]
    producedAt = a.at + ((committed - a.offset) / (b.offset - a.offset)) * (b.at - a.at)
  } else {
    const first = history[0]
    const span = latest.offset - first.offset
    if (span <= 0 || latest.at <= first.at) return undefined
    producedAt = first.at - ((first.offset - committed) / span) * (latest.at - first.at)
  }
  return Math.max(0, (nowMs - producedAt) / 1000)
}
