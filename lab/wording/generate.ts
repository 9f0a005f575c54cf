import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { COMPONENT_SIGNALS } from '../../adapters/logs/component-matchers.js'
import { parseLogText } from '../../adapters/logs/parser.js'
import { escapeField, parseWordingTable, WORDING_COLUMNS, type WordingEntry } from '../../adapters/logs/wording/lookup.js'
import { extractStatements, LOG_DIR_FAILURE_CHANNEL, type Statement } from './extract.js'
import { GENERIC_SIGNALS, renderLine, versionRanges } from './render.js'
export { versionRanges }
import { fetchSourcesJar, readSources, RELEASES, type Release } from './sources.js'
import { CLIENT_RELEASES, DEFAULT_CLIENT_REPOS, mapClientSignals, mineLibrary, readClientTable, writeClientTable } from './clients.js'
import { clientTableFile, type ClientWordingEntry } from '../../adapters/logs/wording/client-lookup.js'
import { mineRuntime, RUNTIME_TABLE, runtimeCoverage, type RuntimeProduct } from './connect-streams.js'
import { existsSync } from 'node:fs'

/**
 * `npm run wording` — mines the log statements of every release in sources.ts into
 * adapters/logs/wording/{kafka,zookeeper}-wording.tsv, records which signal the real parser gives a
 * line rendered from each template, and writes docs/wording-coverage.md.
 * `npm run wording -- --map` redoes only the last two steps from the checked-in tables (after a
 * matcher change; no Maven, a few seconds).
 *
 * Kept: every WARN, ERROR and FATAL statement; INFO only when its template or logger matches
 * INFO_KEEP (session expiry and re-registration, controller moves, ISR and leader changes, log
 * loading and recovery, startup and shutdown banners, rebalances, fencing, quorum changes). DEBUG and
 * TRACE never.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const TABLE_DIR = path.join(ROOT, 'adapters', 'logs', 'wording')
const COVERAGE_DOC = path.join(ROOT, 'docs', 'wording-coverage.md')

/** INFO templates worth a row: what a diagnosis of a sick broker reads from INFO lines. */
export const INFO_KEEP =
  /session|expir|re-?regist|controller|elect|resign|\bisr\b|in-sync|leader|shrink|expand|loading|loaded|load of|recover|truncat|start(?:ed|ing|up)|shut ?down|shutting|\bversion\b|rebalanc|fenc|unclean|offline|zookeeper|quorum|snapshot|log dir|corrupt|disconnect|reconnect|timed out|timeout|fail|error|exception|unable|could not|cannot|abort|revok|join|generation|coordinator|migrat|kraft|raft|\bvote|candidate|high watermark|divergen|reassign|preferred replica|under-?replicated|throttl|halt|exit|terminat|lost|expired|unavailable/i

const LEVEL_ORDER: Record<string, number> = { FATAL: 0, ERROR: 1, WARN: 2, INFO: 3 }

type Row = { level: WordingEntry['level']; logger: string; template: string; throwable: boolean; prefix: string; versions: Set<number> }

/** Stable id of a statement: changes only if its level, logger or text changes. */
export function templateId(level: string, logger: string, template: string): string {
  return createHash('sha1').update(`${level}\0${logger}\0${template}`).digest('hex').slice(0, 10)
}


/** Expands a range string back into the release versions it covers. */
export function expandVersions(ranges: string, versions: readonly string[]): string[] {
  return ranges.split(',').flatMap((r) => {
    const [a, b] = r.split('-')
    const i = versions.indexOf(a)
    const j = b === undefined ? i : versions.indexOf(b)
    if (i < 0 || j < 0) throw new Error(`version range '${r}' names a release not in sources.ts`)
    return versions.slice(i, j + 1)
  })
}

/**
 * Command-line tools shipped in the same jars (they print to a terminal, not to a broker's log) and the
 * Logging trait's own forwarding calls are not statements of a running broker or client.
 */
export const NOT_SERVICE = /^kafka\.(?:tools|admin)\.|^org\.apache\.kafka\.tools\.|Command\$?(?:\$|$)|^kafka\.utils\.Logging$|^org\.apache\.zookeeper\.(?:cli|ZooKeeperMain|version\.util)/

function keep(s: Statement): boolean {
  if (s.level === 'DEBUG' || s.level === 'TRACE' || NOT_SERVICE.test(s.logger)) return false
  if (s.level !== 'INFO') return true
  return INFO_KEEP.test(s.template) || /Controller|ZooKeeperClient|ReplicaManager|LogManager|GroupCoordinator|KafkaServer|BrokerServer|ControllerServer/.test(s.logger)
}

function mine(product: Release['product'], log: (m: string) => void): { rows: Row[]; versions: string[] } {
  const releases = RELEASES.filter((r) => r.product === product)
  const byKey = new Map<string, Row>()
  releases.forEach((rel, vi) => {
    let files = 0
    let found = 0
    const statements: Statement[] = []
    for (const module of rel.modules) {
      const jar = fetchSourcesJar(rel.group, module, rel.version)
      if (jar === undefined) {
        log(`${product} ${rel.version}: ${module} is not published for this release; skipped`)
        continue
      }
      for (const { name, text } of readSources(jar)) {
        files++
        statements.push(...extractStatements(text, name))
      }
    }
    // Messages handed to LogDirFailureChannel are logged under that class's name in this release.
    const channel = statements.find((s) => s.logger.endsWith('.LogDirFailureChannel'))?.logger ?? 'kafka.server.LogDirFailureChannel'
    for (const s0 of statements) {
      const s = s0.logger === LOG_DIR_FAILURE_CHANNEL ? { ...s0, logger: channel } : s0
      if (!keep(s)) continue
      found++
      const key = `${s.level}\t${s.logger}\t${s.template}`
      let row = byKey.get(key)
      if (!row) {
        row = { level: s.level as Row['level'], logger: s.logger, template: s.template, throwable: false, prefix: '-', versions: new Set() }
        byKey.set(key, row)
      }
      row.throwable ||= s.throwable
      if (row.prefix === '-') row.prefix = s.prefix
      row.versions.add(vi)
    }
    log(`${product} ${rel.version}: ${files} source files, ${found} statements kept`)
  })
  const rows = [...byKey.values()].sort(
    (a, b) => (a.logger < b.logger ? -1 : a.logger > b.logger ? 1 : 0) || LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || (a.template < b.template ? -1 : a.template > b.template ? 1 : 0),
  )
  return { rows, versions: releases.map((r) => r.version) }
}

/** Loggers of the Java client (producer, consumer, admin, NetworkClient): their lines come from applications. */
export const JAVA_CLIENT_LOGGER = /^org\.apache\.kafka\.clients\./

/** What the parser makes of one rendered line: specific signal names, and whether any signal came out at all. */
export function signalsOf(entry: Pick<WordingEntry, 'level' | 'template' | 'logger'> & { throwable?: boolean }): { specific: string[]; any: boolean } {
  // The Java client's statements are read as an application's client log (layout.ts's CLIENT_HINT makes a
  // file with them one), where the client matchers run; every other statement as a broker's log.
  const format = JAVA_CLIENT_LOGGER.test(entry.logger) ? 'client' : 'kafka'
  const { signals } = parseLogText(`${renderLine(entry)}\n`, { path: 'wording.log', cluster: 'wording', format })
  const names = [...new Set(signals.map((s) => s.name))].sort()
  return { specific: names.filter((n) => !GENERIC_SIGNALS.has(n)), any: names.length > 0 }
}

const HEADER = `# ${WORDING_COLUMNS.join('\t')}`

function tableText(product: string, versions: string[], entries: (Omit<WordingEntry, 'signal'> & { prefix: string })[], mapped: Map<string, string[]>): string {
  const lines = [
    HEADER,
    `# ${product} releases sampled: ${versions.join(' ')} — generated by \`npm run wording\` (lab/wording/generate.ts); do not edit by hand`,
  ]
  for (const e of entries) {
    const sig = mapped.get(e.id) ?? []
    lines.push([e.id, e.level, e.logger, e.versions, e.throwable ? 'T' : '-', sig.length ? sig.join(',') : '-', e.prefix, escapeField(e.template)].join('\t'))
  }
  return `${lines.join('\n')}\n`
}

type Product = Release['product']
const TABLE_OF: Record<Product, string> = { kafka: 'kafka-wording.tsv', zookeeper: 'zookeeper-wording.tsv' }

/** Reads a checked-in table with its prefix column (the lookup's parser drops it). */
function readTable(product: Product): (Omit<WordingEntry, 'signal'> & { prefix: string })[] {
  const file = path.join(TABLE_DIR, TABLE_OF[product])
  const text = readFileSync(file, 'utf8')
  const prefixes = text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t')[6])
  return parseWordingTable(text, TABLE_OF[product]).map((e, i) => {
    const { signal: _s, ...rest } = e
    return { ...rest, prefix: prefixes[i] }
  })
}

type Mapping = { specific: Map<string, string[]>; any: Map<string, boolean> }

function mapSignals(entries: readonly Omit<WordingEntry, 'signal'>[]): Mapping {
  const specific = new Map<string, string[]>()
  const any = new Map<string, boolean>()
  for (const e of entries) {
    if (e.level === 'INFO') continue
    const r = signalsOf(e)
    specific.set(e.id, r.specific)
    any.set(e.id, r.any)
  }
  return { specific, any }
}

const COMPONENT = new Set(COMPONENT_SIGNALS)

function coverageRows(product: Product, versions: string[], entries: readonly Omit<WordingEntry, 'signal'>[], m: Mapping): string[] {
  const rows: string[] = []
  for (const v of versions) {
    const present = entries.filter((e) => e.level !== 'INFO' && expandVersions(e.versions, versions).includes(v))
    const count = (list: typeof present) => {
      const spec = list.filter((e) => (m.specific.get(e.id) ?? []).length > 0).length
      const exact = list.filter((e) => (m.specific.get(e.id) ?? []).some((s) => !COMPONENT.has(s))).length
      const none = list.filter((e) => !m.any.get(e.id)).length
      return { n: list.length, spec, exact, generic: list.length - spec - none, none }
    }
    const ef = count(present.filter((e) => e.level !== 'WARN'))
    const w = count(present.filter((e) => e.level === 'WARN'))
    const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)} %`)
    rows.push(
      `| ${product} ${v} | ${ef.n} | ${ef.spec} (${pct(ef.spec, ef.n)}) | ${ef.exact} | ${ef.generic} | ${ef.none} (${pct(ef.none, ef.n)}) | ${w.n} | ${w.spec} | ${w.exact} | ${w.generic} | ${w.none} |`,
    )
  }
  return rows
}

function coverageDoc(parts: { product: Product; versions: string[]; entries: Omit<WordingEntry, 'signal'>[]; m: Mapping }[]): string {
  const topSignals = new Map<string, number>()
  for (const p of parts) for (const list of p.m.specific.values()) for (const s of list) topSignals.set(s, (topSignals.get(s) ?? 0) + 1)
  const lines = [
    '# Wording coverage',
    '',
    'Generated by `npm run wording` (or `npm run wording -- --map` after a matcher change) from',
    '`adapters/logs/wording/*.tsv`; do not edit by hand. For every WARN/ERROR/FATAL template of a release, one line',
    'is rendered with typical values in Kafka\'s log4j layout and parsed by the real log parser:',
    '',
    '- **specific**: a catalogue signal other than the generic `log.error`, `log.fatal`, `log.warn_exception`, `log.warn_failure` comes out;',
    '- **of which by wording**: one of those comes from a row that knows the exact wording (not only the component',
    '  family row of `adapters/logs/component-matchers.ts`, which names the failing part by the logging class);',
    '- **generic**: only a generic signal comes out;',
    '- **none**: the parser yields no signal for the line.',
    '',
    'Goal: none = 0 for ERROR/FATAL, specific ≥ 60 % of ERROR/FATAL. A WARN line yields a generic signal only',
    'when it carries an exception (rendered with a stack trace when the statement passes a Throwable).',
    '',
    '| release | ERROR/FATAL templates | specific | of which by wording | generic only | none | WARN templates | specific | of which by wording | generic only | none |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const p of parts) lines.push(...coverageRows(p.product, p.versions, p.entries, p.m))
  lines.push('', '## Specific signals reached (templates, all releases)', '', '| signal | templates |', '|---|---|')
  for (const [s, n] of [...topSignals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) lines.push(`| \`${s}\` | ${n} |`)
  return `${lines.join('\n')}\n`
}

/**
 * Mines (or with `--map` rereads) the client tables, maps their signals and writes them; returns each
 * library's entries for the coverage page.
 */
function clientTables(mapOnly: boolean, repoDir: string, log: (m: string) => void): { library: string; tags: readonly string[]; entries: ClientWordingEntry[] }[] {
  return CLIENT_RELEASES.map((rel) => {
    const entries = mapOnly
      ? readClientTable(readFileSync(path.join(TABLE_DIR, clientTableFile(rel.library)), 'utf8'), rel.library)
      : mineLibrary(rel, repoDir, INFO_KEEP, templateId, log)
    mapClientSignals(entries)
    writeClientTable(TABLE_DIR, rel, entries)
    log(`${clientTableFile(rel.library)}: ${entries.length} templates`)
    return { library: rel.library, tags: rel.tags, entries }
  })
}

/** The clients' section of the coverage page: per library, templates with a specific signal. */
function clientCoverage(clients: { library: string; tags: readonly string[]; entries: ClientWordingEntry[] }[]): string {
  const lines = [
    '',
    '## Clients',
    '',
    'One table per library (`adapters/logs/wording/client-*-wording.tsv`), all sampled releases together. Each',
    'template is rendered with typical values and parsed as a client log (`format: client`); sarama\'s logger has',
    'no levels, so its statements are counted under LOG.',
    '',
    '| library | releases | ERROR/FATAL templates | specific | WARN templates | specific | LOG templates | specific |',
    '|---|---|---|---|---|---|---|---|',
  ]
  for (const c of clients) {
    const count = (pred: (e: ClientWordingEntry) => boolean) => {
      const list = c.entries.filter(pred)
      const spec = list.filter((e) => e.signal !== undefined).length
      return [list.length, list.length ? `${spec} (${((100 * spec) / list.length).toFixed(1)} %)` : '—']
    }
    const ef = count((e) => e.level === 'ERROR' || e.level === 'FATAL')
    const w = count((e) => e.level === 'WARN')
    const l = count((e) => e.level === 'LOG')
    lines.push(`| ${c.library} | ${c.tags.join(' ')} | ${ef[0]} | ${ef[1]} | ${w[0]} | ${w[1]} | ${l[0]} | ${l[1]} |`)
  }
  return `${lines.join('\n')}\n`
}

const RUNTIME_HEADING = '\n## Kafka Connect and Kafka Streams\n'

/** The coverage page with its Connect and Streams section replaced (or put in) just before the clients' section. */
function withRuntimeSection(doc: string, section: string): string {
  const at = doc.indexOf(RUNTIME_HEADING)
  const clients = doc.indexOf('\n## Clients\n')
  const head = at >= 0 ? doc.slice(0, at) : clients >= 0 ? doc.slice(0, clients) : doc.replace(/\n+$/, '\n')
  const tail = clients >= 0 ? doc.slice(clients) : ''
  return head.replace(/\n+$/, '\n') + section + tail
}

/** The checked-in Connect and Streams tables, for the coverage page of a full run (they are mined by --connect-streams). */
function readRuntimeTables(): { product: RuntimeProduct; entries: WordingEntry[] }[] {
  return (['connect', 'streams'] as const)
    .filter((p) => existsSync(path.join(TABLE_DIR, RUNTIME_TABLE[p])))
    .map((product) => ({ product, entries: parseWordingTable(readFileSync(path.join(TABLE_DIR, RUNTIME_TABLE[product]), 'utf8'), RUNTIME_TABLE[product]) }))
}

/** Entry point; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const mapOnly = argv.includes('--map')
  const clientsOnly = argv.includes('--clients')
  const runtimesOnly = argv.includes('--connect-streams')
  const reposAt = argv.indexOf('--client-repos')
  const repoDir = reposAt >= 0 ? argv[reposAt + 1] : DEFAULT_CLIENT_REPOS
  const unknown = argv.filter((a, i) => a !== '--map' && a !== '--clients' && a !== '--connect-streams' && a !== '--client-repos' && !(reposAt >= 0 && i === reposAt + 1))
  if (unknown.length || (reposAt >= 0 && repoDir === undefined)) {
    process.stderr.write(`wording: unknown option ${unknown[0] ?? '--client-repos'} (usage: npm run wording [-- --map] [--clients] [--connect-streams] [--client-repos DIR])\n`)
    return 2
  }
  const log = (m: string) => process.stderr.write(`${m}\n`)
  const started = Date.now()
  if (runtimesOnly) {
    // Connect and Streams: their own tables and their section of the coverage page (kept before the clients').
    const parts = (['connect', 'streams'] as const).map((product) => ({ product, entries: mineRuntime(product, TABLE_DIR, templateId, log) }))
    writeFileSync(COVERAGE_DOC, withRuntimeSection(readFileSync(COVERAGE_DOC, 'utf8'), runtimeCoverage(parts)))
    log(`connect and streams tables and their section of docs/wording-coverage.md written; ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return 0
  }
  const clients = clientTables(mapOnly, repoDir, log)
  if (clientsOnly) {
    // The coverage page keeps its Kafka and ZooKeeper rows; only its clients section is rewritten.
    const doc = readFileSync(COVERAGE_DOC, 'utf8')
    const at = doc.indexOf('\n## Clients\n')
    writeFileSync(COVERAGE_DOC, (at >= 0 ? doc.slice(0, at) : doc.replace(/\n+$/, '\n')) + clientCoverage(clients))
    log(`client tables and the clients section of docs/wording-coverage.md written; ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return 0
  }
  const parts: { product: Product; versions: string[]; entries: (Omit<WordingEntry, 'signal'> & { prefix: string })[]; m: Mapping }[] = []
  for (const product of ['kafka', 'zookeeper'] as const) {
    const versions = RELEASES.filter((r) => r.product === product).map((r) => r.version)
    let entries: (Omit<WordingEntry, 'signal'> & { prefix: string })[]
    if (mapOnly) entries = readTable(product)
    else {
      const { rows } = mine(product, log)
      entries = rows.map((r) => ({
        id: templateId(r.level, r.logger, r.template),
        level: r.level,
        logger: r.logger,
        template: r.template,
        versions: versionRanges(r.versions, versions),
        throwable: r.throwable,
        prefix: r.prefix,
      }))
    }
    const m = mapSignals(entries)
    writeFileSync(path.join(TABLE_DIR, TABLE_OF[product]), tableText(product, versions, entries, m.specific))
    log(`${TABLE_OF[product]}: ${entries.length} templates`)
    parts.push({ product, versions, entries, m })
  }
  writeFileSync(COVERAGE_DOC, withRuntimeSection(coverageDoc(parts) + clientCoverage(clients), runtimeCoverage(readRuntimeTables())))
  log(`docs/wording-coverage.md written; ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return 0
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2))
