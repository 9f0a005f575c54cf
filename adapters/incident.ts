import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import YAML from 'yaml'
import { parseAt, parseSignalsJsonl, type JsonlReject } from '../signals/jsonl.js'
import type { Signal } from '../signals/signal.js'
import { readLogFile } from './logs/read-file.js'
import { resolveZone } from './logs/timestamp.js'
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
}

/** Options of readSignalSources. */
export type ReadSourcesOptions = {
  /** Cluster for logs outside an incident directory (default "default"); an incident.yaml's own wins. */
  cluster?: string
  /** Filled while reading; pass one in to see per-file counts. */
  stats?: SourceStats
}

/** An empty SourceStats to hand to readSignalSources. */
export function emptySourceStats(): SourceStats {
  return { files: [], logs: emptyStats(), jsonlRejects: [] }
}

const FORMATS = new Set(['kafka', 'gc', 'client'])
const LAYOUTS = new Set(['apache', 'strimzi', 'cloudera', 'jvm', 'none'])

type IncidentSource = { file: string; cfg: LogSourceConfig }

/** Reads and checks an incident.yaml; a wrong entry is an error naming the file and field. */
export async function readIncidentYaml(dir: string): Promise<{ cluster: string; sources: IncidentSource[] }> {
  const file = path.join(dir, 'incident.yaml')
  const doc = YAML.parse(await readFile(file, 'utf8')) as unknown
  const fail = (what: string): never => {
    throw new Error(`${file}: ${what}`)
  }
  if (typeof doc !== 'object' || doc === null) fail('expected a mapping with cluster and sources')
  const d = doc as Record<string, unknown>
  if (typeof d.cluster !== 'string' || d.cluster === '') fail('cluster: expected a name')
  if (d.timeZone !== undefined && typeof d.timeZone !== 'string') fail('timeZone: expected text like "+08:00"')
  const sources: IncidentSource[] = []
  const list = d.sources ?? []
  if (!Array.isArray(list)) fail('sources: expected a list')
  ;(list as unknown[]).forEach((raw, i) => {
    if (typeof raw !== 'object' || raw === null) fail(`sources[${i}]: expected a mapping`)
    const s = raw as Record<string, unknown>
    if (typeof s.path !== 'string' || s.path === '') fail(`sources[${i}].path: expected a relative path`)
    const cfg: LogSourceConfig = { path: s.path as string, cluster: d.cluster as string }
    if (s.broker !== undefined) cfg.broker = String(s.broker)
    if (s.format !== undefined) {
      if (!FORMATS.has(String(s.format))) fail(`sources[${i}].format: expected kafka, gc or client`)
      cfg.format = s.format as LogFormat
    }
    if (s.layout !== undefined) {
      if (!LAYOUTS.has(String(s.layout))) fail(`sources[${i}].layout: expected one of ${[...LAYOUTS].join(', ')}`)
      cfg.layout = s.layout as LayoutName
    }
    const tz = s.timeZone ?? d.timeZone
    if (tz !== undefined) {
      if (!resolveZone(String(tz))) fail(`sources[${i}].timeZone: unknown zone '${String(tz)}'`)
      cfg.timeZone = String(tz)
    }
    for (const key of ['jvmStart', 'start'] as const) {
      if (s[key] === undefined) continue
      const ms = parseAt(s[key] instanceof Date ? (s[key] as Date).getTime() : s[key])
      if (ms === undefined) fail(`sources[${i}].${key}: expected an ISO date-time with an offset`)
      cfg[key] = ms
    }
    sources.push({ file: path.join(dir, s.path as string), cfg })
  })
  return { cluster: d.cluster as string, sources }
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
  for (const p of paths) {
    if (await isDir(p)) {
      let hasYaml = true
      try {
        await stat(path.join(p, 'incident.yaml'))
      } catch {
        hasYaml = false
      }
      if (hasYaml) {
        const inc = await readIncidentYaml(p)
        for (const s of inc.sources) yield* readLog(s.file, s.cfg, stats)
        const jsonl = path.join(p, 'signals.jsonl')
        if (await stat(jsonl).then(() => true, () => false)) yield* readJsonl(jsonl, stats)
        continue
      }
      for (const f of await listFiles(p)) yield* readOne(f, path.relative(p, f), cluster, stats)
      continue
    }
    yield* readOne(p, p, cluster, stats)
  }
}

async function* readOne(file: string, name: string, cluster: string, stats: SourceStats): AsyncIterable<Signal[]> {
  if (file.endsWith('.jsonl')) yield* readJsonl(file, stats)
  else yield* readLog(file, { path: name, cluster }, stats)
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

async function* readLog(file: string, cfg: LogSourceConfig, stats: SourceStats): AsyncIterable<Signal[]> {
  const reader = readLogFile(cfg, file)
  const report: FileReport = { file, kind: 'log', stats: reader.stats }
  stats.files.push(report)
  try {
    for await (const batch of reader.batches) yield batch
  } finally {
    report.format = reader.parser.format
    report.layout = reader.parser.layout
    addStats(stats.logs, reader.stats)
  }
}
