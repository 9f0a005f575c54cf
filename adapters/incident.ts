import { open, readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { incidentFileSchema, type IncidentFile } from '../file-formats/incident-file.js'
import { FileFormatError, validateYaml } from '../file-formats/yaml-validate.js'
import { parseSignalsJsonl, type JsonlReject } from '../signals/jsonl.js'
import type { Signal } from '../signals/signal.js'
import { CATALOGUE } from '../signals/catalogue.js'
import { DEFAULT_ARCHIVE_LIMITS, inputKind, looksBinary, openInput, type ArchiveLimits, type InputEntry } from './logs/open-input.js'
import { readLogStream } from './logs/read-file.js'
import { SignalSpill } from './signal-spill.js'
import { addStats, emptyStats, type LayoutName, type LogFormat, type LogSourceConfig, type ParseStats } from './logs/types.js'

/**
 * Replay input: incident directories (incident.yaml + raw logs + signals.jsonl), single log files,
 * `.jsonl` files and plain directories of them, all turned into Signal batches in file order. The
 * engine's replay, rule tests and the lab read evidence only through here.
 */

/** What was read from one file, for the caller to show beside the diagnosis. */
export type FileReport = { file: string; kind: 'log' | 'jsonl'; format?: LogFormat; layout?: LayoutName; stats?: ParseStats; rejected?: Record<string, number> }

/** Counters over everything read: nothing unparsed goes unreported. */
export type SourceStats = {
  files: FileReport[]
  /** Sum of the log files' counters. */
  logs: ParseStats
  /** Refused JSONL lines, each with file and line. */
  jsonlRejects: JsonlReject[]
  /** Inputs that are not logs (binary, or no line any layout reads), named and skipped. */
  skipped: { file: string; reason: string }[]
  /** Broker-scoped signals from records that named no broker, and the broker they were read as. */
  attributed: number
  /** The brokers those records were read as, with how many each. */
  attributedTo: Record<string, number>
  /** The zone offset-less timestamps outside incident directories were read in, and why. */
  zone?: { zone: string; why: string }
}

/** Options of readSignalSources. */
export type ReadSourcesOptions = {
  /** Cluster for logs outside an incident directory (default "default"); an incident.yaml's own wins. */
  cluster?: string
  /** Filled while reading; pass one in to see per-file counts. */
  stats?: SourceStats
  /**
   * Broker for log records that name none, outside incident directories: the broker a user asks
   * about when they replay their own logs. Records that name a broker keep theirs.
   */
  defaultBroker?: string
  /**
   * Without a default broker, unnamed records belong to the one broker the other records of the same
   * input (a file, a directory, a bundle) name; when they name none or several, to this one
   * (UNNAMED_BROKER unless given: never a name taken from a directory or a file).
   */
  fallbackBroker?: string
  /** Broker of everything under a path, as given on the command line (`--broker 3=path`). */
  brokers?: ReadonlyMap<string, string>
  /** Zone of offset-less timestamps outside incident directories; else inferred (see inferZone). */
  timeZone?: string
  /** Limits for compressed inputs and bundles. */
  archiveLimits?: ArchiveLimits
  /**
   * Signals of records naming no broker held in memory while their input is read (their broker may be
   * named later); past this count they wait in a temporary file instead (SignalSpill). Default 20,000.
   */
  unnamedInMemory?: number
}

/** Unnamed signals held in memory before they are spilled to a temporary file (about 30 MiB of heap). */
export const DEFAULT_UNNAMED_IN_MEMORY = 20_000

/** An empty SourceStats to hand to readSignalSources. */
export function emptySourceStats(): SourceStats {
  return { files: [], logs: emptyStats(), jsonlRejects: [], skipped: [], attributed: 0, attributedTo: {} }
}

type IncidentSource = { file: string; cfg: LogSourceConfig }

/**
 * Reads and checks an incident.yaml against its schema (file-formats/incident-file.ts); a wrong entry
 * is an error naming the file, line, column and field.
 */
export async function readIncidentYaml(dir: string): Promise<{ cluster: string; sources: IncidentSource[] }> {
  const file = path.join(dir, 'incident.yaml')
  const checked = validateYaml(await readFile(file, 'utf8'), file, incidentFileSchema)
  if (!checked.ok) throw new FileFormatError(checked.problems)
  const d = checked.data
  const sources = d.sources.map((s) => ({ file: path.join(dir, s.path), cfg: { path: s.path, cluster: d.cluster, ...pinnedBySource(d, s) } }))
  return { cluster: d.cluster, sources }
}

/**
 * What an incident.yaml source entry pins for its file (broker, format, layout, zone, JVM start, start):
 * one reading for the operator's own incident directories and for manifests shared in Slack.
 */
export function pinnedBySource(d: IncidentFile, s: IncidentFile['sources'][number]): Partial<LogSourceConfig> {
  const cfg: Partial<LogSourceConfig> = {}
  if (s.broker !== undefined) cfg.broker = s.broker
  if (s.format !== undefined) cfg.format = s.format
  if (s.layout !== undefined) cfg.layout = s.layout
  const tz = s.timeZone ?? d.timeZone
  if (tz !== undefined) cfg.timeZone = tz
  if (s.jvmStart !== undefined) cfg.jvmStart = s.jvmStart
  if (s.start !== undefined) cfg.start = s.start
  return cfg
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory()
  } catch {
    return false
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))
  for (const e of entries) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) for (const f of await listFiles(p)) out.push(f)
    else if (e.isFile() && !/\.(md|ya?ml|json)$/i.test(e.name) && !e.name.startsWith('.')) out.push(p)
  }
  return out
}

/**
 * Reads every path in order and yields Signal batches. Incident directories follow their
 * incident.yaml (then signals.jsonl); other directories are walked in name order; `.jsonl` files are
 * recorded signals; any other file is a log whose format is detected. Unparsed lines and refused
 * JSONL lines are counted in `options.stats`, never thrown.
 */
export async function* readSignalSources(paths: string[], options: ReadSourcesOptions = {}): AsyncIterable<Signal[]> {
  const stats = options.stats ?? emptySourceStats()
  const cluster = options.cluster ?? 'default'
  // `input` groups the files of one path given: its unnamed records are attributed together.
  const loose: { file: string; name: string; broker?: string; input: number }[] = []
  const incidents: string[] = []
  for (const [input, p] of paths.entries()) {
    const given = options.brokers?.get(p)
    if (await isDir(p)) {
      if (await stat(path.join(p, 'incident.yaml')).then(() => true, () => false)) incidents.push(p)
      else for (const f of await listFiles(p)) loose.push({ file: f, name: path.relative(p, f), broker: given ?? brokerOfPath(path.relative(path.dirname(path.resolve(p)), f)), input })
    } else loose.push({ file: p, name: p, broker: given ?? brokerOfPath(path.join(path.basename(path.dirname(path.resolve(p))), path.basename(p))), input })
  }
  for (const p of incidents) {
    const inc = await readIncidentYaml(p)
    for (const s of inc.sources) yield* readLog(s.file, s.cfg, stats, options.archiveLimits)
    const jsonl = path.join(p, 'signals.jsonl')
    if (await stat(jsonl).then(() => true, () => false)) yield* readJsonl(jsonl, stats)
  }
  const logs = loose.filter((f) => !f.file.endsWith('.jsonl'))
  let timeZone = options.timeZone
  if (logs.length) {
    stats.zone = timeZone !== undefined ? { zone: timeZone, why: 'as given' } : await inferZone(logs.map((f) => f.file))
    timeZone = stats.zone.zone
  }
  const readLoose = (f: (typeof loose)[number]) => {
    const cfg: LogSourceConfig = { path: f.name, cluster, timeZone }
    if (f.broker !== undefined) cfg.broker = f.broker
    return readLog(f.file, cfg, stats, options.archiveLimits)
  }
  for (const input of new Set(loose.map((f) => f.input))) {
    const files = loose.filter((f) => f.input === input)
    for (const f of files) {
      if (f.file.endsWith('.jsonl')) yield* readJsonl(f.file, stats)
      else if (f.broker !== undefined) yield* readLoose(f)
    }
    // One directory's server.log and gc.log are one broker's: the gc.log's records join the broker
    // its server.log names, instead of becoming a broker of their own.
    const unnamed = files.filter((f) => !f.file.endsWith('.jsonl') && f.broker === undefined)
    if (unnamed.length) yield* attributeUnnamed(concatBatches(unnamed.map(readLoose)), options, stats, options.unnamedInMemory ?? DEFAULT_UNNAMED_IN_MEMORY)
  }
}

/** Several files' batches read one after the other, as one input. */
async function* concatBatches(inputs: AsyncIterable<Signal[]>[]): AsyncIterable<Signal[]> {
  for (const batches of inputs) yield* batches
}

/**
 * The broker of records when nothing in the input names one and none was asked for. Never a name
 * taken from a directory or file ("broker kafka", "broker server" read as real ids); `why 3 --replay`
 * names it.
 */
export const UNNAMED_BROKER = 'unnamed'

/**
 * Signals of records that named no broker, given the broker a user asked about (`defaultBroker`), else
 * the one broker the same input names elsewhere, else `fallbackBroker` (UNNAMED_BROKER by default):
 * `why` and `replay` attribute alike. Unnamed records wait for the end of their input: the broker may
 * be named later.
 */
export async function* attributeUnnamed(
  batches: AsyncIterable<Signal[]>,
  options: Pick<ReadSourcesOptions, 'defaultBroker' | 'fallbackBroker'>,
  stats: SourceStats,
  /** Past this many, waiting signals go to a temporary file (files on the host only; uploads stay in memory). */
  spillAfter = Infinity,
): AsyncIterable<Signal[]> {
  if (options.defaultBroker !== undefined) {
    // The broker asked about: nothing to wait for, so nothing is held however long the input.
    const broker = options.defaultBroker
    for await (const batch of batches) {
      let n = 0
      for (const sig of batch) {
        if (sig.broker !== undefined || isClusterWide(sig.name)) continue
        sig.broker = broker
        n++
      }
      if (n) {
        stats.attributed += n
        stats.attributedTo[broker] = (stats.attributedTo[broker] ?? 0) + n
      }
      if (batch.length) yield batch
    }
    return
  }
  const held = new SignalSpill(spillAfter)
  try {
    const named = new Set<string>()
    for await (const batch of batches) {
      const ready: Signal[] = []
      for (const sig of batch) {
        if (sig.broker !== undefined) named.add(sig.broker)
        if (sig.broker === undefined && !isClusterWide(sig.name)) await held.add(sig)
        else ready.push(sig)
      }
      if (ready.length) yield ready
    }
    const broker = options.defaultBroker ?? (named.size === 1 ? [...named][0] : (options.fallbackBroker ?? UNNAMED_BROKER))
    if (held.size) {
      stats.attributed += held.size
      stats.attributedTo[broker] = (stats.attributedTo[broker] ?? 0) + held.size
    }
    for await (const batch of held.drain(HELD_BATCH)) {
      for (const sig of batch) sig.broker = broker
      yield batch
    }
  } finally {
    await held.dispose()
  }
}

/** Signals per batch when held signals are handed on at the end of their input. */
const HELD_BATCH = 5000

/**
 * A path component that names a broker the way deployments name their directories: `broker-3`,
 * `broker3`, `kafka-3`, `kafka-broker-3`, `kafka_broker_3` mean broker 3. The component nearest the
 * file wins.
 */
export function brokerOfPath(p: string): string | undefined {
  const parts = p.split(/[\\/]/).filter(Boolean)
  for (let i = parts.length - 1; i >= 0; i--) {
    const m = /^(?:kafka[-_]?broker|broker|kafka)[-_]?(\d{1,9})$/i.exec(parts[i])
    if (m) return String(Number(m[1]))
  }
  return undefined
}

/** Cluster-wide signals (client errors, cluster gauges) stay without a broker. */
function isClusterWide(name: string): boolean {
  return (CATALOGUE as Record<string, { clusterWide?: boolean } | undefined>)[name]?.clusterWide === true
}

const OFFSET_STAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(Z|[+-]\d\d:?\d\d)\b/

/**
 * The zone for timestamps written without an offset (log4j's `[2018-08-13 22:16:09,762]`), when none
 * was given: a file of the same set whose lines carry an offset (JDK GC logs do) lends its offset,
 * else UTC. Reads at most 64 KiB of each plain file.
 */
export async function inferZone(files: readonly string[]): Promise<{ zone: string; why: string }> {
  const heads: { name: string; head: Buffer }[] = []
  for (const file of files) for (const h of await inputHeads(file)) heads.push(h)
  return zoneOfHeads(heads)
}

/** The zone inferZone settles on, from the first 64 KiB of each input (files on disk or uploaded bytes). */
export function zoneOfHeads(heads: readonly { name: string; head: Buffer }[]): { zone: string; why: string } {
  for (const { name, head } of heads) {
    const m = OFFSET_STAMP.exec(head.toString('utf8'))
    if (m) {
      const off = m[1] === 'Z' ? 'Z' : m[1].length === 5 ? `${m[1].slice(0, 3)}:${m[1].slice(3)}` : m[1]
      return { zone: off, why: `the offset ${path.basename(name)} carries` }
    }
  }
  return { zone: 'Z', why: 'no file carries an offset; pass --tz to set one' }
}

/**
 * The first 64 KiB of a plain file, or of each log inside a `.gz` or bundle (a GC log zipped next to
 * its server.log lends its offset just the same); an unreadable input gives none.
 */
async function inputHeads(file: string): Promise<{ name: string; head: Buffer }[]> {
  const out: { name: string; head: Buffer }[] = []
  try {
    if (inputKind(file) === 'plain') {
      const fh = await open(file, 'r')
      try {
        const buf = Buffer.alloc(64 * 1024)
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0)
        out.push({ name: file, head: buf.subarray(0, bytesRead) })
      } finally {
        await fh.close()
      }
      return out
    }
    for (const h of await entryHeads(openInput(file))) out.push(h)
  } catch {
    // Unreadable or past a limit: reading it later reports why; it lends no offset.
  }
  return out
}

/** The first 64 KiB of each of an input's first 50 entries. */
export async function entryHeads(entries: AsyncIterable<InputEntry>): Promise<{ name: string; head: Buffer }[]> {
  const out: { name: string; head: Buffer }[] = []
  for await (const entry of entries) {
    out.push({ name: entry.name, head: await headOf(entry.chunks, 64 * 1024) })
    if (out.length >= 50) break
  }
  return out
}

/** Up to `max` bytes from the start of a stream, which is then left (and closed). */
export async function headOf(chunks: AsyncIterable<Buffer>, max: number): Promise<Buffer> {
  const parts: Buffer[] = []
  let got = 0
  for await (const chunk of chunks) {
    parts.push(chunk)
    got += chunk.length
    if (got >= max) break
  }
  return Buffer.concat(parts).subarray(0, max)
}

async function* readJsonl(file: string, stats: SourceStats): AsyncIterable<Signal[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    stats.files.push({ file, kind: 'jsonl', rejected: { unreadable: 1 } })
    return
  }
  const r = parseSignalsJsonl(text, file)
  stats.files.push({ file, kind: 'jsonl', rejected: r.rejected })
  for (const reject of r.rejects) stats.jsonlRejects.push(reject)
  if (r.signals.length) yield r.signals
}

async function* readLog(file: string, cfg: LogSourceConfig, stats: SourceStats, limits = DEFAULT_ARCHIVE_LIMITS): AsyncIterable<Signal[]> {
  // A log with no timestamps at all is placed at its file's modification time, marked time_unknown.
  const mtime = cfg.undatedAt ?? (await stat(file).then((st) => Math.floor(st.mtimeMs), () => undefined))
  for await (const entry of openInput(file, limits)) {
    const name = entry.name === file ? cfg.path : path.join(cfg.path, path.relative(file, entry.name))
    if (entry.name !== file && SKIPPED_NAMES.test(entry.name)) continue
    yield* readLogEntry(entry, { ...cfg, path: name, ...(mtime !== undefined ? { undatedAt: mtime } : {}) }, stats)
  }
}

/**
 * One log's signals from its bytes (a file, an entry of a bundle, an upload): binary content is named
 * and skipped, a read error counted as unreadable, and what was read reported under `entry.name`.
 */
export async function* readLogEntry(entry: InputEntry, cfg: LogSourceConfig, stats: SourceStats): AsyncIterable<Signal[]> {
  const chunks = entry.chunks[Symbol.asyncIterator]()
  let first: IteratorResult<Buffer>
  try {
    first = await chunks.next()
  } catch {
    stats.files.push({ file: entry.name, kind: 'log', stats: { ...emptyStats(), unparsed: { ...emptyStats().unparsed, unreadable: 1 } } })
    stats.logs.unparsed.unreadable++
    return
  }
  if (!first.done && looksBinary(first.value.subarray(0, 8192))) {
    stats.skipped.push({ file: entry.name, reason: 'not a log: binary content' })
    await chunks.return?.()
    return
  }
  const rest = async function* (): AsyncIterable<Buffer> {
    if (!first.done) yield first.value
    for (;;) {
      const r = await chunks.next()
      if (r.done) return
      yield r.value
    }
  }
  const reader = readLogStream(cfg, rest())
  const report: FileReport = { file: entry.name, kind: 'log', stats: reader.stats }
  stats.files.push(report)
  try {
    for await (const batch of reader.batches) yield batch
  } finally {
    report.format = reader.parser.format
    report.layout = reader.parser.layout
    addStats(stats.logs, reader.stats)
    // Detection always guesses something for text; a file no layout reads and nothing matched in is not a log.
    const unread = reader.parser.format === undefined || (reader.parser.layout === 'none' && reader.stats.signals === 0)
    if (unread && reader.stats.lines > 0) {
      stats.skipped.push({ file: entry.name, reason: 'not a log: no line in a Kafka, ZooKeeper, GC or client log layout' })
    }
  }
}

/** Files inside bundles that are not logs by their name. */
export const SKIPPED_NAMES = /\.(md|ya?ml|json|png|jpe?g|gif|pdf|html?|class|jar)$/i
