import path from 'node:path'
import type { Store } from '../engine/store/store.js'
import { incidentFileSchema } from '../file-formats/incident-file.js'
import { validateYaml } from '../file-formats/yaml-validate.js'
import { parseSignalsJsonl } from '../signals/jsonl.js'
import type { Signal } from '../signals/signal.js'
import { attributeUnnamed, brokerOfPath, emptySourceStats, headOf, pinnedBySource, readLogEntry, SKIPPED_NAMES, zoneOfHeads, type SourceStats } from './incident.js'
import { DEFAULT_ARCHIVE_LIMITS, openInputBytes, type ArchiveLimits, type InputEntry } from './logs/open-input.js'
import type { LogSourceConfig } from './logs/types.js'

/**
 * Logs handed over as bytes (a file uploaded to chat, lines pasted in a message) read through the
 * same readers as logs on disk — format detection, `.gz`/`.zip`/`.tar.gz` bundles with their limits,
 * broker attribution and zone inference — so an upload is diagnosed exactly as `why --replay` would.
 *
 * An upload is data, never a path: it is read from memory, nothing is written to or opened on the
 * host, and an `incident.yaml` among the uploads (or inside a bundle) may name only entries of the same
 * upload — a name that is absolute, climbs with `..` or is not there reads nothing, and is reported the
 * same whether or not such a file exists on the host.
 */

/** One uploaded log or bundle: the name it was shared under and its bytes. */
export type UploadedLog = { name: string; bytes: Buffer }

/** What reading uploads gave: counters, the brokers found, the time span, signals stored. */
export type UploadedRead = { stats: SourceStats; brokers: string[]; window?: { from: number; to: number }; accepted: number; cut?: UploadCut }

/** Signals left out of a read to stay within the caps on what one request may hold (uploads-worker), for the answer to say. */
export type UploadCut = { signals: number; limit: 'signals' | 'characters'; kept: number }

/** Options: the cluster to file them under, the broker asked about, zone and archive limits. */
export type UploadedReadOptions = { cluster: string; broker?: string; timeZone?: string; archiveLimits?: ArchiveLimits }

/** An uploaded incident.yaml (or a `.jsonl` of signals) is read whole; a real one is a few KiB. */
const MAX_MANIFEST_BYTES = 1024 * 1024
const MAX_JSONL_BYTES = 64 * 1024 * 1024

/** What a manifest says of one entry of the upload, keyed by the entry's name within the upload. */
type Pinned = Map<string, Partial<LogSourceConfig>>

/**
 * Reads uploads into `store` (meant to be a fresh in-memory one per request). Records naming no
 * broker belong to the asked broker, else to the one broker their file names, else to the broker the
 * first upload's name says (`broker-3.zip` → 3), else to that name itself.
 */
export async function readUploadedLogs(uploads: readonly UploadedLog[], store: Pick<Store, 'append'>, opts: UploadedReadOptions): Promise<UploadedRead> {
  const stats = emptySourceStats()
  const limits = opts.archiveLimits ?? DEFAULT_ARCHIVE_LIMITS
  const used = new Set<string>()
  const named = uploads.map((u) => ({ name: uniqueName(safeName(u.name), used), bytes: u.bytes }))
  const logs = named.filter((u) => !isManifest(u.name))
  const pinned: Pinned = new Map()
  // A manifest shared beside the logs names them by their shared names.
  for (const u of named) if (isManifest(u.name)) readManifest(u.name, u.bytes, '', logs.map((l) => l.name), pinned, stats)
  // One look inside every bundle first: the manifests it holds, and the heads that lend a zone.
  const heads: { name: string; head: Buffer }[] = []
  for (const u of logs) {
    const found: { name: string; bytes: Buffer }[] = []
    const names: string[] = []
    for await (const entry of openInputBytes(u.name, u.bytes, limits)) {
      names.push(entry.name)
      if (isManifest(entry.name) && entry.name !== u.name) found.push({ name: entry.name, bytes: await headOf(entry.chunks, MAX_MANIFEST_BYTES + 1) })
      else if (heads.length < 50 && !SKIPPED_NAMES.test(entry.name)) heads.push({ name: entry.name, head: await headOf(entry.chunks, 64 * 1024) })
    }
    for (const m of found) readManifest(m.name, m.bytes, path.posix.dirname(m.name), names, pinned, stats)
  }
  const zone = opts.timeZone !== undefined ? { zone: opts.timeZone, why: 'as given' } : zoneOfHeads(heads)
  if (logs.length) stats.zone = zone

  const brokers = new Set<string>()
  let window: { from: number; to: number } | undefined
  let accepted = 0
  const first = named[0] ? stem(named[0].name) : 'upload'
  const undatedAt = Date.now()
  const attribution = { defaultBroker: opts.broker, fallbackBroker: opts.broker === undefined ? brokerOfPath(first) : undefined }
  for (const u of logs) {
    const batches = attributeUnnamed(readUpload(u, { cluster: opts.cluster, timeZone: zone.zone, undatedAt }, pinned, stats, limits), attribution, stats)
    for await (const batch of batches) {
      accepted += (await store.append(batch)).accepted
      for (const s of batch) {
        if (s.broker !== undefined) brokers.add(s.broker)
        window = window ? { from: Math.min(window.from, s.at), to: Math.max(window.to, s.at) } : { from: s.at, to: s.at }
      }
    }
  }
  return { stats, brokers: [...brokers].sort(), window, accepted }
}

/** The signals of one upload's entries, each read as its manifest pins it or as a loose log. */
async function* readUpload(u: { name: string; bytes: Buffer }, base: { cluster: string; timeZone: string; undatedAt: number }, pinned: Pinned, stats: SourceStats, limits: ArchiveLimits): AsyncIterable<Signal[]> {
  for await (const entry of openInputBytes(u.name, u.bytes, limits)) {
    if (entry.name !== u.name && (SKIPPED_NAMES.test(entry.name) || isManifest(entry.name))) continue
    if (entry.name.toLowerCase().endsWith('.jsonl')) {
      yield* readJsonlEntry(entry, base.cluster, stats)
      continue
    }
    const pin = pinned.get(entry.name)
    const broker = pin?.broker ?? brokerOfPath(entry.name)
    const cfg: LogSourceConfig = { path: entry.name, cluster: base.cluster, timeZone: base.timeZone, undatedAt: base.undatedAt, ...pin }
    if (broker !== undefined) cfg.broker = broker
    // The cluster is the one the answer is for, whatever a manifest calls it.
    cfg.cluster = base.cluster
    yield* readLogEntry(entry, cfg, stats)
  }
}

/** Recorded signals uploaded as `.jsonl`, filed under the upload's cluster. */
async function* readJsonlEntry(entry: InputEntry, cluster: string, stats: SourceStats): AsyncIterable<Signal[]> {
  const bytes = await headOf(entry.chunks, MAX_JSONL_BYTES + 1)
  if (bytes.length > MAX_JSONL_BYTES) {
    stats.skipped.push({ file: entry.name, reason: `recorded signals larger than ${MAX_JSONL_BYTES / 1024 ** 2} MiB` })
    return
  }
  const r = parseSignalsJsonl(bytes.toString('utf8'), entry.name)
  stats.files.push({ file: entry.name, kind: 'jsonl', rejected: r.rejected })
  for (const reject of r.rejects) stats.jsonlRejects.push(reject)
  for (const s of r.signals) s.cluster = cluster
  if (r.signals.length) yield r.signals
}

/**
 * Pins what an uploaded incident.yaml says of each source to the entry of the same upload it names
 * (relative to the manifest's own folder). A source that is absolute, climbs out with `..`, or names
 * nothing in the upload is skipped with one reason that says nothing of the host.
 */
function readManifest(name: string, bytes: Buffer, dir: string, entries: readonly string[], pinned: Pinned, stats: SourceStats): void {
  if (bytes.length > MAX_MANIFEST_BYTES) {
    stats.skipped.push({ file: name, reason: `an incident.yaml larger than ${MAX_MANIFEST_BYTES / 1024 ** 2} MiB` })
    return
  }
  const checked = validateYaml(bytes.toString('utf8'), name, incidentFileSchema)
  if (!checked.ok) {
    const p = checked.problems[0]
    stats.skipped.push({ file: name, reason: `not a valid incident.yaml (${p ? `line ${p.line}: ${p.message}` : 'unreadable'})` })
    return
  }
  const d = checked.data
  const present = new Set(entries)
  for (const s of d.sources) {
    const entry = entryNamed(dir, s.path)
    if (entry === undefined || !present.has(entry)) {
      stats.skipped.push({ file: `${name}: ${s.path}`, reason: 'not a file of this upload' })
      continue
    }
    pinned.set(entry, pinnedBySource(d, s))
  }
}

/** The upload entry a manifest's relative path names, or undefined for anything that could leave it. */
function entryNamed(dir: string, p: string): string | undefined {
  if (p.includes('\0') || p.includes('\\') || path.posix.isAbsolute(p) || /^[A-Za-z]:/.test(p)) return undefined
  if (p.split('/').includes('..')) return undefined
  const joined = path.posix.normalize(dir && dir !== '.' ? `${dir}/${p}` : p)
  return joined.startsWith('../') || joined === '..' ? undefined : joined
}

function isManifest(name: string): boolean {
  return path.posix.basename(name).toLowerCase() === 'incident.yaml'
}

/** A shared name made safe as one name: no directories, no dot files, kept short. */
function safeName(name: string): string {
  const base = path.basename(name.replace(/\\/g, '/')).replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '')
  return base.slice(-100) || 'upload.log'
}

function uniqueName(name: string, used: Set<string>): string {
  let out = name
  for (let i = 2; used.has(out); i++) out = `${i}-${name}`
  used.add(out)
  return out
}

/** The name without its log or archive extensions: `broker-3.log.gz` → `broker-3`. */
function stem(name: string): string {
  return name.replace(/(\.(log|out|txt|gz|zip|tgz|tar))+$/i, '') || 'upload'
}
