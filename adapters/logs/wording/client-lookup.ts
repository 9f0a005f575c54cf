import { readFileSync } from 'node:fs'
import { matchesAt, unescapeField } from './lookup.js'

/**
 * The client wording tables at run time: every log statement librdkafka, sarama, franz-go, kafkajs and
 * kafka-python write (mined from their sources by lab/wording/clients.ts into one table per library
 * next to this file), and a lookup from a client's message back to the statement that wrote it. The
 * Java client's statements are in kafka-wording.tsv (lookup.ts).
 */

/** The libraries with a table, by the name the `library` label uses. */
export const CLIENT_LIBRARIES = ['librdkafka', 'sarama', 'franz-go', 'kafkajs', 'kafka-python'] as const
export type ClientLibraryName = (typeof CLIENT_LIBRARIES)[number]

/** One client log statement. */
export type ClientWordingEntry = {
  /** Stable across regenerations: a hash of level, `library:component` and template. */
  id: string
  library: ClientLibraryName
  /** FATAL/ERROR/WARN/INFO from the library's own levels; LOG for sarama, whose logger has none. */
  level: 'FATAL' | 'ERROR' | 'WARN' | 'INFO' | 'LOG'
  /** librdkafka facility, sarama `area/part` tag, `kgo`, kafkajs namespace, kafka-python module. */
  component: string
  /** Sampled releases that have it, consecutive ones as a range: `v1.6.2-v2.15.0`. */
  versions: string
  /** Source file of the statement in the library's repository. */
  file: string
  template: string
  /** Specific signals the parser gives a line rendered from it (`a,b`), if any. */
  signal?: string
}

/** Column order of the client tables. */
export const CLIENT_WORDING_COLUMNS = ['id', 'level', 'component', 'versions', 'signal', 'file', 'template'] as const

const LEVELS = new Set(['FATAL', 'ERROR', 'WARN', 'INFO', 'LOG'])

/** The file a library's table is checked in as. */
export function clientTableFile(library: string): string {
  return `client-${library}-wording.tsv`
}

/** Reads one client table; a malformed row is an error naming file and line. */
export function parseClientWordingTable(text: string, library: ClientLibraryName): ClientWordingEntry[] {
  const file = clientTableFile(library)
  const out: ClientWordingEntry[] = []
  text.split('\n').forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return
    const f = line.split('\t')
    if (f.length !== CLIENT_WORDING_COLUMNS.length) throw new Error(`${file}:${i + 1}: expected ${CLIENT_WORDING_COLUMNS.length} tab-separated columns, found ${f.length}`)
    const [id, level, component, versions, signal, src, template] = f
    if (!LEVELS.has(level)) throw new Error(`${file}:${i + 1}: unknown level '${level}'`)
    out.push({ id, library, level: level as ClientWordingEntry['level'], component, versions, file: src, template: unescapeField(template), ...(signal !== '-' ? { signal } : {}) })
  })
  return out
}

type Compiled = { entry: ClientWordingEntry; parts: string[]; literal: number }
const tables = new Map<ClientLibraryName, Compiled[]>()

/** A template with fewer literal characters than this only matches under its own component. */
const MIN_GLOBAL_LITERAL = 8

function load(library: ClientLibraryName): Compiled[] {
  let t = tables.get(library)
  if (t) return t
  const text = readFileSync(new URL(`./${clientTableFile(library)}`, import.meta.url), 'utf8')
  t = parseClientWordingTable(text, library).map((entry) => {
    const parts = entry.template.split('\n')[0].split('{}')
    return { entry, parts, literal: parts.reduce((n, p) => n + p.length, 0) }
  })
  t.sort((a, b) => b.literal - a.literal)
  tables.set(library, t)
  return t
}

/** Every statement of a library's table, in table order of specificity. */
export function clientWordingEntries(library: ClientLibraryName): readonly ClientWordingEntry[] {
  return load(library).map((c) => c.entry)
}

/**
 * The statement of `library` a message was written from: the match with the most literal text, a
 * statement of the record's own component (facility, namespace, module) first. Linear in the table
 * (a few hundred rows) and in the message.
 */
export function findClientTemplate(library: ClientLibraryName, message: string, component?: string): ClientWordingEntry | undefined {
  const nl = message.indexOf('\n')
  const msg = (nl >= 0 ? message.slice(0, nl) : message).trimEnd()
  let best: Compiled | undefined
  let bestScore = -1
  for (const c of load(library)) {
    const own = component !== undefined && c.entry.component === component
    if (!own && c.literal < MIN_GLOBAL_LITERAL) continue
    const score = c.literal + (own ? 5 : 0)
    if (score <= bestScore) continue
    if (matchesAt(msg, 0, c.parts)) {
      best = c
      bestScore = score
    }
  }
  return best?.entry
}
