import { stat } from 'node:fs/promises'
import { readSignalSources, emptySourceStats, type ReadSourcesOptions, type SourceStats } from '../../adapters/incident.js'
import { unreadInput } from '../../adapters/unread-input.js'
import { describeUnread } from '../../engine/unread-input.js'
import { ArchiveLimitError } from '../../adapters/logs/open-input.js'
import { resolveZone } from '../../adapters/logs/timestamp.js'
import type { Rule } from '../../dsl/ast.js'
import type { AlertEvent } from '../../engine/alerts.js'
import { DataEnds } from '../../engine/data-span.js'
import { replayAlerts, SignalTimes } from '../../engine/replay-alerts.js'
import type { Store } from '../../engine/store/store.js'
import { FileFormatError } from '../../file-formats/yaml-validate.js'
import type { Signal } from '../../signals/signal.js'
import { readDuration, withRulesAndStore } from '../command-setup.js'
import { CommandError, UsageError } from '../usage-error.js'
import type { REPLAY_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { isoStamp } from '../render-text.js'
import { MemoryStore } from '../../engine/store/memory-store.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('replay', argv)

/** Replays recorded signals and prints the alerts as they would have fired. */
export async function execute({ args, options }: CommandInput<typeof REPLAY_OPTIONS>): Promise<number> {
  const perPath = readBrokerPaths(options.broker)
  checkZone(options.tz)
  const stepMs = readDuration(options.step, '--step')
  const lagMs = readDuration(options.lag, '--lag')
  if (stepMs <= 0) throw new UsageError('--step must be longer than 0')
  if (lagMs < 0) throw new UsageError('--lag must not be negative')
  const paths = [...args, ...perPath.keys()]
  if (paths.length === 0) throw new UsageError('replay needs at least one file or directory')
  const json = options.json
  const heldLimit = replayHeldLimit(process.env)
  return withRulesAndStore(options.rules, async (rules, store) => {
    // A private in-memory replay keeps its newest signals within a bound; a store asked for keeps all.
    const maxHeld = store instanceof MemoryStore ? heldLimit : undefined
    const ingest = await ingestSources(store, paths, options.cluster, { brokers: perPath, timeZone: options.tz, maxHeld, progress: (line) => console.error(line) })
    const log = json ? console.error : console.log
    log(describeIngest(ingest))
    if (ingest.keptFrom !== undefined) {
      console.error(`kafka-why: these logs hold more than the ${maxHeld!.toLocaleString('en-US')} signals one replay keeps in memory: alerts are replayed from ${isoStamp(ingest.keptFrom)} on (${ingest.dropped.toLocaleString('en-US')} older signals not kept; ${REPLAY_HELD_ENV} raises the bound, --store replays into Redis)`)
    }
    if (ingest.accepted === 0) {
      console.error('kafka-why: nothing to replay: no signal was accepted from the given paths')
      return 1
    }
    const events = await replayAlerts(store, rules, ingest.times, { stepMs, lagMs, dataEnds: ingest.ends }, (e) => {
      console.log(json ? JSON.stringify(eventJson(e)) : renderEvent(e))
    })
    if (!json) log(describeReplay(events))
    const open = stillOpen(events)
    if (open.length) {
      const end = Math.max(...[...ingest.times.values()].map((list) => list[list.length - 1]))
      log(`${open.length} still firing when the data ends (${isoStamp(end)}): ${open.map((e) => `${e.alert.ruleId} ${e.alert.cluster}/${e.alert.broker ?? '-'}`).join(', ')}`)
    }
    return 0
  }, { store: options.store })
}

/** The at-times of what was ingested, per cluster, sorted: replay ticks follow them. */
export type IngestResult = {
  accepted: number
  rejected: Record<string, number>
  stats: SourceStats
  times: Map<string, number[]>
  /** Brokers that received signals, per cluster. */
  brokers: Map<string, Set<string>>
  /** With `maxHeld`, when older signals had to go: the store holds what is at or after this time. */
  keptFrom?: number
  /** Signals dropped (or never stored) to stay within `maxHeld`, or read after `until`. */
  dropped: number
  /** The newest time read, stored or not (-Infinity when nothing was read). */
  newest: number
  /** Each broker's last record read, stored or not: no broker is evaluated past its own data. */
  ends: DataEnds
}

/** How own logs are read: the broker of unnamed records, per-path brokers, the zone of offset-less times. */
export type IngestOptions = Pick<ReadSourcesOptions, 'defaultBroker' | 'fallbackBroker' | 'brokers' | 'timeZone'> & {
  /**
   * Most signals a private in-memory store may hold while reading: past it the oldest half of the time
   * read so far is trimmed and later signals older than that are not stored, so a replay of any size
   * keeps memory bounded and diagnoses its newest part. Never set for a shared store.
   */
  maxHeld?: number
  /** Signals after this time are read but not stored: `why --at` answers at a moment and needs nothing later. */
  until?: number
  /** Where a progress line goes every `progressMs` (5 s by default) while reading (stderr for the CLI). */
  progress?: (line: string) => void
  progressMs?: number
}

/**
 * Signals a replay into the private in-memory store holds at most (`why --replay`, `replay`): what is
 * held no longer grows with the input's size (a 1 GiB log answered by `why --replay` at a peak RSS of
 * 1,247 MiB; docs/security.md has the measured figures).
 */
export const DEFAULT_REPLAY_HELD = 200_000

/** The environment variable that sets the bound, for a machine with more or less memory to spare. */
export const REPLAY_HELD_ENV = 'KAFKA_WHY_REPLAY_MAX_SIGNALS'

/** The bound from the environment (a whole number of at least 1,000), else DEFAULT_REPLAY_HELD. */
export function replayHeldLimit(env: NodeJS.ProcessEnv): number {
  const text = env[REPLAY_HELD_ENV]?.trim()
  if (text === undefined || text === '') return DEFAULT_REPLAY_HELD
  const n = /^\d{1,10}$/.test(text) ? Number(text) : NaN
  if (!(n >= 1000)) throw new UsageError(`${REPLAY_HELD_ENV}: expected a whole number of signals of at least 1000, got '${text}'`)
  return n
}

/** How often a long read says how far it got. */
const PROGRESS_MS = 5000

/**
 * Reads replay inputs through the incident reader (logs, `.jsonl`, incident directories) and writes
 * them to the store in batches. Every refused signal is counted by reason; nothing is thrown for bad
 * lines. A path that does not exist is a UsageError.
 */
export async function ingestSources(store: Store, paths: string[], cluster?: string, options: IngestOptions = {}): Promise<IngestResult> {
  for (const p of paths) {
    try {
      await stat(p)
    } catch {
      throw new UsageError(`no such file or directory: ${p}`)
    }
  }
  const stats = emptySourceStats()
  const rejected: Record<string, number> = {}
  const times = new SignalTimes()
  const brokers = new Map<string, Set<string>>()
  let accepted = 0
  let held = 0
  let dropped = 0
  let keptFrom = -Infinity
  let oldest = Infinity
  let newest = -Infinity
  let lastProgress = Date.now()
  let newestRead = -Infinity
  const ends = new DataEnds()
  const until = options.until ?? Infinity
  for await (const read of readSources(paths, { ...options, cluster, stats })) {
    for (const s of read) if (s.at > newestRead) newestRead = s.at
    ends.add(read)
    const batch = keptFrom === -Infinity && until === Infinity ? read : read.filter((s) => s.at >= keptFrom && s.at <= until)
    dropped += read.length - batch.length
    let r: Awaited<ReturnType<Store['append']>>
    try {
      r = await store.append(batch)
    } catch (err) {
      // A store that fails mid-read (Redis gone): one line, not a dump of what was being written.
      throw new CommandError(`the store failed after ${accepted} signals were written: ${firstLine(err)}`)
    }
    accepted += r.accepted
    held += r.accepted
    for (const [k, v] of Object.entries(r.rejected)) rejected[k] = (rejected[k] ?? 0) + v
    times.add(batch)
    for (const s of batch) {
      if (s.at < oldest) oldest = s.at
      if (s.at > newest) newest = s.at
      if (s.broker !== undefined) {
        let set = brokers.get(s.cluster)
        if (!set) brokers.set(s.cluster, (set = new Set()))
        set.add(s.broker)
      }
    }
    while (options.maxHeld !== undefined && held > options.maxHeld && newest > oldest) {
      keptFrom = Math.max(keptFrom, oldest + Math.ceil((newest - oldest) / 2))
      let removed: number
      try {
        removed = await store.trim(keptFrom)
      } catch (err) {
        throw new CommandError(`the store failed after ${accepted} signals were written: ${firstLine(err)}`)
      }
      held -= removed
      dropped += removed
      oldest = keptFrom
      // The replay's ticks follow what is kept: older times go with their signals.
      times.dropBefore(keptFrom)
      if (removed === 0) break
    }
    if (options.progress && Date.now() - lastProgress >= (options.progressMs ?? PROGRESS_MS)) {
      lastProgress = Date.now()
      options.progress(describeProgress(stats, held, keptFrom))
    }
  }
  const sorted = times.sorted()
  if (keptFrom !== -Infinity) {
    for (const [c, list] of sorted) sorted.set(c, list.slice(lowerBound(list, keptFrom)))
  }
  return { accepted, rejected, stats, times: sorted, brokers, dropped, newest: newestRead, ends, ...(keptFrom !== -Infinity ? { keptFrom } : {}) }
}

/** "read 412.0 MiB, 2,841,210 lines; 388,120 signals held (from 2026-12-03T04:11:00Z)". */
function describeProgress(stats: SourceStats, held: number, keptFrom: number): string {
  let bytes = 0
  let lines = 0
  for (const f of stats.files) {
    bytes += f.stats?.bytes ?? 0
    lines += f.stats?.lines ?? 0
  }
  const kept = keptFrom === -Infinity ? '' : ` (from ${isoStamp(keptFrom)})`
  return `kafka-why: read ${(bytes / 1024 ** 2).toFixed(1)} MiB, ${lines.toLocaleString('en-US')} lines; ${held.toLocaleString('en-US')} signals held${kept}`
}

function lowerBound(sorted: readonly number[], t: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err)
  return text.split('\n')[0].slice(0, 300)
}

/** The one place replay inputs are read, so the source format can change behind it. */
async function* readSources(paths: string[], options: ReadSourcesOptions): AsyncIterable<Signal[]> {
  try {
    yield* readSignalSources(paths, options)
  } catch (err) {
    // An archive past its limits, or a damaged one: one clear line, what was read so far is kept.
    if (err instanceof ArchiveLimitError) throw new UsageError(err.message)
    // An incident.yaml that does not fit its format: each problem at its file:line:col.
    if (err instanceof FileFormatError) throw new CommandError(`incident.yaml does not fit its format:\n${err.message}`)
    throw err
  }
}

/** `--broker 3=/var/log/kafka-a` pairs, path → broker. */
export function readBrokerPaths(pairs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    const id = eq > 0 ? readBrokerId(pair.slice(0, eq)) : undefined
    if (!id || eq === pair.length - 1) throw new UsageError(`--broker: expected ID=PATH (e.g. --broker 3=/var/log/kafka-3), got '${pair}'`)
    out.set(pair.slice(eq + 1), id)
  }
  return out
}

/** A `--tz` value the clock can use, or a UsageError naming the forms it takes. */
export function checkZone(tz: string | undefined): void {
  if (tz !== undefined && !resolveZone(tz)) throw new UsageError(`--tz: unknown zone '${tz}' (expected +08:00, -0400, UTC or an IANA name such as Europe/Berlin)`)
}

/** "3", "broker-3" → "3"; undefined for anything that is not a broker id. */
export function readBrokerId(text: string): string | undefined {
  const m = /^(?:broker-?)?([A-Za-z0-9_.-]+)$/i.exec(text.trim())
  return m && m[1] !== '' ? m[1] : undefined
}

/** One line for people: what was read and what was refused. */
export function describeIngest(r: IngestResult): string {
  const logs = r.stats.logs
  const refused = Object.entries(r.rejected).map(([k, v]) => `${v} ${k}`)
  const jsonl = r.stats.jsonlRejects.length
  const parts = [`ingested ${r.accepted} signals from ${r.stats.files.length} files`]
  if (logs.lines) parts.push(`${logs.lines} log lines → ${logs.signals} signals`)
  if (jsonl) parts.push(`${jsonl} JSONL lines refused (first: ${r.stats.jsonlRejects[0].file}:${r.stats.jsonlRejects[0].line} ${r.stats.jsonlRejects[0].reason})`)
  if (refused.length) parts.push(`refused by the store: ${refused.join(', ')}`)
  const lines = [parts.join('; ')]
  const st = r.stats
  if (st.attributed) {
    const to = Object.entries(st.attributedTo).map(([b, n]) => `${n} as broker ${b}`).join(', ')
    lines.push(`${st.attributed} signals came from records that name no broker: read ${to}`)
  }
  if (st.zone && st.logs.lines) lines.push(`timestamps without an offset read as ${st.zone.zone === 'Z' ? 'UTC' : st.zone.zone} (${st.zone.why})`)
  for (const s of st.skipped) lines.push(`skipped ${s.file}: ${s.reason}`)
  const unread = unreadInput({ ...st, skipped: [] })
  if (unread) lines.push(`warning: ${describeUnread(unread)}`)
  return lines.join('\n')
}

function renderEvent(e: AlertEvent): string {
  const a = e.alert
  const at = e.type === 'resolved' ? a.resolvedAt : e.type === 'firing' ? a.firedAt : a.lastSeenAt
  const labels = Object.entries(a.labels).map(([k, v]) => `${k}=${v}`).join(' ')
  const where = `${a.cluster}/${a.broker ?? '-'}${labels ? ` {${labels}}` : ''}`
  const head = `${isoStamp(at ?? a.activeAt)}  ${e.type.toUpperCase().padEnd(8)} ${e.cause.severity.padEnd(8)} ${a.ruleId}  ${where}`
  const explained = e.cause.explainedBy?.length ? ` (a consequence of ${e.cause.explainedBy.join(', ')})` : ''
  return e.type === 'resolved' ? head : `${head}\n    ${e.cause.cause}${explained}`
}

function eventJson(e: AlertEvent) {
  return { type: e.type, ...e.alert, severity: e.cause.severity, cause: e.cause.cause, evidence: e.cause.evidence }
}

/** The alerts whose last event fired or updated them: open when the recording ends, which replay never resolves by itself. */
export function stillOpen(events: readonly AlertEvent[]): AlertEvent[] {
  const last = new Map<string, AlertEvent>()
  for (const e of events) last.set(e.alert.fingerprint, e)
  return [...last.values()].filter((e) => e.type !== 'resolved')
}

function describeReplay(events: AlertEvent[]): string {
  if (events.length === 0) return 'no alert would have fired'
  const fired = events.filter((e) => e.type === 'firing').length
  const updated = events.filter((e) => e.type === 'updated').length
  const resolved = events.filter((e) => e.type === 'resolved').length
  return `${fired} fired, ${updated} updated, ${resolved} resolved`
}
