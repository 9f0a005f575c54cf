import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { parseLogText } from '../../adapters/logs/parser.js'
import { CLIENT_WORDING_COLUMNS, clientTableFile, parseClientWordingTable, type ClientWordingEntry } from '../../adapters/logs/wording/client-lookup.js'
import { escapeField } from '../../adapters/logs/wording/lookup.js'
import { CLIENT_SOURCES, type ClientLibrary, type ClientStatement } from './client-extract.js'
import { GENERIC_SIGNALS, RENDER_TIME, renderMessage, versionRanges } from './render.js'

/**
 * The client half of `npm run wording`: mines the log statements of librdkafka, sarama, franz-go,
 * kafkajs and kafka-python from their git history (one table per library, the releases below as
 * version ranges) and records which signal the real parser gives a line rendered from each. The Java
 * client's statements are in kafka-wording.tsv already (the kafka-clients sources jar).
 */

/** A library's repository and the release tags sampled, oldest first (the order version ranges use). */
export type ClientRelease = { library: ClientLibrary; repo: string; tags: readonly string[] }

/** Add a tag at the end of a list and rerun `npm run wording -- --clients`; the table diff shows what it changed. */
export const CLIENT_RELEASES: readonly ClientRelease[] = [
  { library: 'librdkafka', repo: 'confluentinc/librdkafka', tags: ['v0.11.6', 'v1.6.2', 'v1.9.2', 'v2.3.0', 'v2.15.0'] },
  { library: 'sarama', repo: 'IBM/sarama', tags: ['v1.19.0', 'v1.27.2', 'v1.38.1', 'v1.45.2', 'v1.60.1'] },
  { library: 'franz-go', repo: 'twmb/franz-go', tags: ['v1.0.0', 'v1.10.0', 'v1.15.0', 'v1.21.5'] },
  { library: 'kafkajs', repo: 'tulios/kafkajs', tags: ['v1.12.0', 'v1.16.0', 'v2.0.0', 'v2.2.4'] },
  { library: 'kafka-python', repo: 'dpkp/kafka-python', tags: ['1.4.7', '2.0.2', '2.2.15', '3.0.11'] },
]

/**
 * The git directory of a repository: `<dir>/<owner>+<name>/repo` or `<dir>/<owner>+<name>` under
 * `--client-repos dir` (default ~/.cache/kafka-why/client-repos), cloned bare from GitHub when absent.
 */
export function clientRepo(repo: string, dir: string): string {
  const base = path.join(dir, repo.replace('/', '+'))
  for (const d of [path.join(base, 'repo'), base]) if (existsSync(path.join(d, 'HEAD')) || existsSync(path.join(d, '.git'))) return d
  mkdirSync(dir, { recursive: true })
  execFileSync('git', ['clone', '--bare', '--quiet', `https://github.com/${repo}.git`, base], { stdio: ['ignore', 'pipe', 'pipe'] })
  return base
}

export const DEFAULT_CLIENT_REPOS = path.join(homedir(), '.cache', 'kafka-why', 'client-repos')

const git = (dir: string, args: string[]) => execFileSync('git', ['-C', dir, ...args], { maxBuffer: 256 * 1024 * 1024 }).toString()

/** Letters a template must keep besides its values to be a statement worth a row ("{}: {}" is not). */
const MIN_LETTERS = 4

/** Every statement of one release: the files the library's spec includes, read at the tag. */
export function mineRelease(dir: string, library: ClientLibrary, tag: string): ClientStatement[] {
  const spec = CLIENT_SOURCES[library]
  const files = git(dir, ['ls-tree', '-r', '--name-only', tag])
    .split('\n')
    .filter((f) => spec.include.test(f) && !spec.exclude?.test(f))
  const out: ClientStatement[] = []
  for (const f of files) {
    for (const s of spec.extract(git(dir, ['show', `${tag}:${f}`]), f)) {
      if (s.template.replace(/\{\}/g, '').replace(/[^A-Za-z]/g, '').length < MIN_LETTERS) continue
      out.push(s)
    }
  }
  return out
}

/** INFO statements kept: the same subjects as the broker tables' INFO_KEEP, passed in by the generator. */
export type InfoKeep = RegExp

const LEVEL_ORDER: Record<string, number> = { FATAL: 0, ERROR: 1, WARN: 2, LOG: 3, INFO: 4 }

/**
 * A line as the library prints the message, in the log4j layout the parser reads without knowing the
 * client's own layout: the component stands where log4j puts the logger. librdkafka's leading broker
 * name and client name get the shapes librdkafka gives them, so a matcher reading the broker id from
 * `…:9093/1` sees one.
 */
export function renderClientLine(e: Pick<ClientWordingEntry, 'library' | 'level' | 'component' | 'template'>): string {
  let t = e.template
  if (e.library === 'librdkafka') t = t.replace(/^\{\}: \{\}: /, 'rdkafka#producer-1: ssl://broker-1.example.com:9093/1: ').replace(/^\{\}: /, e.component === 'ERROR' ? 'rdkafka#producer-1: ' : 'ssl://broker-1.example.com:9093/1: ')
  const level = e.level === 'LOG' ? 'INFO' : e.level
  return `[${RENDER_TIME}] ${level} ${renderMessage(t)} (${e.component})`
}

/** Specific signals the parser gives a rendered client line (format `client`). */
export function clientSignalsOf(e: Pick<ClientWordingEntry, 'library' | 'level' | 'component' | 'template'>): string[] {
  const { signals } = parseLogText(`${renderClientLine(e)}\n`, { path: 'wording.log', cluster: 'wording', format: 'client', layout: 'apache' })
  return [...new Set(signals.map((s) => s.name))].filter((n) => !GENERIC_SIGNALS.has(n)).sort()
}


/** Mines every sampled release of a library into table entries (signals not yet mapped). */
export function mineLibrary(rel: ClientRelease, repoDir: string, infoKeep: InfoKeep, templateId: (level: string, logger: string, template: string) => string, log: (m: string) => void): ClientWordingEntry[] {
  const dir = clientRepo(rel.repo, repoDir)
  const rows = new Map<string, { s: ClientStatement; versions: Set<number> }>()
  rel.tags.forEach((tag, vi) => {
    const found = mineRelease(dir, rel.library, tag)
    let kept = 0
    for (const s of found) {
      if (s.level === 'INFO' && !infoKeep.test(s.template)) continue
      kept++
      const key = `${s.level}\t${s.component}\t${s.template}`
      const row = rows.get(key)
      if (row) row.versions.add(vi)
      else rows.set(key, { s, versions: new Set([vi]) })
    }
    log(`${rel.library} ${tag}: ${found.length} statements, ${kept} kept`)
  })
  return [...rows.values()]
    .map(({ s, versions }) => ({
      id: templateId(s.level, `${rel.library}:${s.component}`, s.template),
      library: rel.library,
      level: s.level,
      component: s.component,
      versions: versionRanges(versions, rel.tags),
      file: s.file,
      template: s.template,
      signal: undefined as string | undefined,
    }))
    .sort((a, b) => (a.component < b.component ? -1 : a.component > b.component ? 1 : 0) || LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || (a.template < b.template ? -1 : a.template > b.template ? 1 : 0))
}

/** Fills the signal column of every non-INFO row. */
export function mapClientSignals(entries: ClientWordingEntry[]): void {
  for (const e of entries) {
    if (e.level === 'INFO') continue
    const s = clientSignalsOf(e)
    e.signal = s.length ? s.join(',') : undefined
  }
}

/** The table text, header comments first. */
export function clientTableText(rel: ClientRelease, entries: readonly ClientWordingEntry[]): string {
  const lines = [
    `# ${CLIENT_WORDING_COLUMNS.join('\t')}`,
    `# ${rel.library} (github.com/${rel.repo}) releases sampled: ${rel.tags.join(' ')} — generated by \`npm run wording -- --clients\` (lab/wording/clients.ts); do not edit by hand`,
  ]
  for (const e of entries) lines.push([e.id, e.level, e.component, e.versions, e.signal ?? '-', e.file, escapeField(e.template)].join('\t'))
  return `${lines.join('\n')}\n`
}

/** Writes one library's table. */
export function writeClientTable(tableDir: string, rel: ClientRelease, entries: readonly ClientWordingEntry[]): void {
  writeFileSync(path.join(tableDir, clientTableFile(rel.library)), clientTableText(rel, entries))
}

/** Reads a checked-in table back (for `--map`). */
export function readClientTable(text: string, library: ClientLibrary): ClientWordingEntry[] {
  return parseClientWordingTable(text, library)
}
