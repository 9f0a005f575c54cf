import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Store } from '../engine/store/store.js'
import { brokerOfPath, emptySourceStats, readSignalSources, type SourceStats } from './incident.js'
import { ArchiveLimitError, type ArchiveLimits } from './logs/open-input.js'

/**
 * Logs handed over as bytes (a file uploaded to chat, lines pasted in a message) read through the
 * same path as logs on disk — format detection, `.gz`/`.zip`/`.tar.gz` bundles with their limits,
 * broker attribution and zone inference — so an upload is diagnosed exactly as `why --replay` would.
 * The bytes are written to a private directory (mode 0700) that is deleted whatever happens.
 */

/** One uploaded log or bundle: the name it was shared under and its bytes. */
export type UploadedLog = { name: string; bytes: Buffer }

/** What reading uploads gave: counters, the brokers found, the time span, signals stored. */
export type UploadedRead = { stats: SourceStats; brokers: string[]; window?: { from: number; to: number }; accepted: number }

/** Options: the cluster to file them under, the broker asked about, zone and archive limits. */
export type UploadedReadOptions = { cluster: string; broker?: string; timeZone?: string; archiveLimits?: ArchiveLimits }

/**
 * Reads uploads into `store` (meant to be a fresh in-memory one per request). Records naming no
 * broker belong to the asked broker, else to the one broker their file names, else to the broker the
 * first upload's name says (`broker-3.zip` → 3), else to that name itself.
 */
export async function readUploadedLogs(uploads: readonly UploadedLog[], store: Store, opts: UploadedReadOptions): Promise<UploadedRead> {
  const stats = emptySourceStats()
  const dir = await mkdtemp(path.join(tmpdir(), 'kafka-why-upload-'))
  try {
    const used = new Set<string>()
    for (const u of uploads) {
      const name = uniqueName(safeName(u.name), used)
      await writeFile(path.join(dir, name), u.bytes, { mode: 0o600, flag: 'wx' })
    }
    const brokers = new Set<string>()
    let window: { from: number; to: number } | undefined
    let accepted = 0
    const first = uploads[0] ? stem(safeName(uploads[0].name)) : 'upload'
    const sources = readSignalSources([dir], {
      cluster: opts.cluster,
      stats,
      defaultBroker: opts.broker,
      fallbackBroker: opts.broker === undefined ? brokerOfPath(first) ?? first : undefined,
      timeZone: opts.timeZone,
      archiveLimits: opts.archiveLimits,
    })
    for await (const batch of sources) {
      accepted += (await store.append(batch)).accepted
      for (const s of batch) {
        if (s.broker !== undefined) brokers.add(s.broker)
        window = window ? { from: Math.min(window.from, s.at), to: Math.max(window.to, s.at) } : { from: s.at, to: s.at }
      }
    }
    // Reports name the file as it was shared, not the private directory it was read from.
    for (const f of stats.files) f.file = path.relative(dir, f.file)
    for (const s of stats.skipped) s.file = path.relative(dir, s.file)
    return { stats, brokers: [...brokers].sort(), window, accepted }
  } catch (err) {
    // A limit's message names the file as it was shared, not where it was written.
    if (err instanceof ArchiveLimitError) throw new ArchiveLimitError(err.message.split(dir + path.sep).join(''))
    throw err
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A shared name made safe as one file name: no directories, no dot files, kept short. */
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
