import { readFileSync } from 'node:fs'

/**
 * The wording catalogue at run time: every log statement Kafka and ZooKeeper write (mined from their
 * sources by lab/wording/generate.ts into the checked-in tables next to this file), and a lookup from a
 * logged message back to the statement that wrote it. A line no matcher row knows can still be named,
 * counted and grouped by the template it came from.
 */

/** One log statement of the sources: level, declaring logger, its text with every value as `{}`. */
export type WordingEntry = {
  /** Stable across regenerations: a hash of level, logger and template. */
  id: string
  level: 'FATAL' | 'ERROR' | 'WARN' | 'INFO'
  /** The class as log4j prints it in the trailing "(…)" (the declaring class; a subclass may log it). */
  logger: string
  /** The message with every interpolated value written as `{}`. */
  template: string
  /** Compact version set, e.g. "0.10.2-2.8,4.1" (Kafka) or "3.4-3.8" (ZooKeeper). */
  versions: string
  /** True when the statement passes a Throwable (a stack trace follows the line). */
  throwable: boolean
  /** The specific signal the parser gives a line rendered from this template, if any. */
  signal?: string
}

/** The checked-in tables, one per product; the generator writes them, nothing edits them by hand. */
export const WORDING_TABLES = ['kafka-wording.tsv', 'zookeeper-wording.tsv', 'connect-wording.tsv', 'streams-wording.tsv'] as const

/** Column order of the tables (the first line of each file names them after a "#"). */
export const WORDING_COLUMNS = ['id', 'level', 'logger', 'versions', 'throwable', 'signal', 'prefix', 'template'] as const

const LEVELS = new Set(['FATAL', 'ERROR', 'WARN', 'INFO'])

/** Tabs, newlines and backslashes inside a template are written as \t, \n and \\ so a row stays one line. */
export function escapeField(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n')
}

/** Inverse of escapeField. */
export function unescapeField(text: string): string {
  return text.replace(/\\([\\tnr])/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : '\\'))
}

/** Reads one table's text; a malformed row is an error naming file and line, never skipped silently. */
export function parseWordingTable(text: string, file: string): WordingEntry[] {
  const out: WordingEntry[] = []
  const lines = text.split('\n')
  lines.forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return
    const f = line.split('\t')
    if (f.length !== WORDING_COLUMNS.length) throw new Error(`${file}:${i + 1}: expected ${WORDING_COLUMNS.length} tab-separated columns, found ${f.length}`)
    const [id, level, logger, versions, throwable, signal, , template] = f
    if (!LEVELS.has(level)) throw new Error(`${file}:${i + 1}: unknown level '${level}'`)
    out.push({
      id,
      level: level as WordingEntry['level'],
      logger,
      versions,
      throwable: throwable === 'T',
      template: unescapeField(template),
      ...(signal !== '-' ? { signal } : {}),
    })
  })
  return out
}

/** A template cut at its `{}`s, ready for linear matching. */
type Compiled = {
  entry: WordingEntry
  /** Literal text between placeholders; parts[0] before the first, the last after the last (either may be ''). */
  parts: string[]
  /** Characters of literal text: the more, the more specific a match. */
  literalChars: number
  /** The longest literal, used to find templates that start with a value. */
  anchor: string
  /** Hashes of every 4-character run of its literals, to reject it on a long message without a scan. */
  grams: Uint32Array
  /** The lookup that last tried this template from the anchor slide (see `epoch`). */
  tried: number
}

/** Counts lookups, so marking a template tried needs no per-lookup set. */
let epoch = 0

/**
 * Lengths of leading text used as index keys, longest first: a template is filed under the longest
 * its leading literal has, so "Error while appending records to {}" does not share a bucket with the
 * 260 other templates that start with "Error ".
 */
const HEADS = [24, 12, 6] as const
const HEAD = HEADS[HEADS.length - 1]
/** A template with fewer literal characters than this ("{}", "{} failed") only matches under its own logger. */
const MIN_GLOBAL_LITERAL = 8
/** Nor does one whose longest literal is shorter than this (" in ", " to " occur in any line). */
const MIN_ANCHOR = 5
/** At most this many "[…] " log-context prefixes are skipped in front of a message. */
const MAX_PREFIXES = 3

type Index = {
  entries: WordingEntry[]
  byLogger: Map<string, Compiled[]>
  byHead: Map<string, Compiled[]>
  /**
   * Templates whose leading literal is shorter than HEAD, by an 18-bit hash of their anchor's first
   * three characters: a slide over a line reads one array slot per position, no allocation.
   */
  loose: (Compiled[] | undefined)[]
  looseCount: number
}

let index: Index | undefined

function compile(entry: WordingEntry): Compiled {
  const firstLine = entry.template.split('\n')[0]
  const parts = firstLine.split('{}')
  parts[parts.length - 1] = parts[parts.length - 1].trimEnd()
  const literalChars = parts.reduce((n, p) => n + p.length, 0)
  const anchor = parts.reduce((a, p) => (p.length > a.length ? p : a), '')
  const grams: number[] = []
  for (const p of parts) for (let i = 0; i + 4 <= p.length; i++) grams.push(gram4(p, i))
  return { entry, parts, literalChars, anchor, grams: Uint32Array.from(new Set(grams)), tried: 0 }
}

/** Bits of the 4-gram set of a long message (2^20: a 64 KiB line fills under 7 %). */
const GRAM_BITS = 1 << 20
/** Messages at least this long are checked against the 4-gram set before any template scans them. */
const LONG_MESSAGE = 2048
let gramSet: Uint32Array | undefined

function gram4(s: string, i: number): number {
  let h = Math.imul(s.charCodeAt(i), 0x9e3779b1)
  h = Math.imul(h ^ s.charCodeAt(i + 1), 0x85ebca6b)
  h = Math.imul(h ^ s.charCodeAt(i + 2), 0xc2b2ae35)
  h = Math.imul(h ^ s.charCodeAt(i + 3), 0x27d4eb2f)
  return (h ^ (h >>> 15)) & (GRAM_BITS - 1)
}

/** Fills the 4-gram set of `msg`: one pass, so a template whose literals cannot all occur costs no scan. */
function fillGrams(msg: string): Uint32Array {
  gramSet ??= new Uint32Array(GRAM_BITS / 32)
  gramSet.fill(0)
  for (let i = 0; i + 4 <= msg.length; i++) {
    const g = gram4(msg, i)
    gramSet[g >>> 5] |= 1 << (g & 31)
  }
  return gramSet
}

function mayOccur(set: Uint32Array, c: Compiled): boolean {
  const g = c.grams
  for (let i = 0; i < g.length; i++) if ((set[g[i] >>> 5] & (1 << (g[i] & 31))) === 0) return false
  return true
}

function buildIndex(entries: WordingEntry[]): Index {
  const byLogger = new Map<string, Compiled[]>()
  const byHead = new Map<string, Compiled[]>()
  const loose: (Compiled[] | undefined)[] = new Array(LOOSE_SLOTS)
  let looseCount = 0
  for (const entry of entries) {
    const c = compile(entry)
    const own = byLogger.get(entry.logger)
    if (own) own.push(c)
    else byLogger.set(entry.logger, [c])
    if (c.literalChars < MIN_GLOBAL_LITERAL || c.anchor.length < MIN_ANCHOR) continue
    if (c.parts[0].length >= HEAD) {
      const len = HEADS.find((h) => c.parts[0].length >= h) as number
      const key = c.parts[0].slice(0, len)
      const list = byHead.get(key)
      if (list) list.push(c)
      else byHead.set(key, [c])
    } else {
      ;(loose[bit3(c.anchor, 0)] ??= []).push(c)
      looseCount++
    }
  }
  // Most specific first: once one matches, the rest of a list is passed over on its score.
  const bySpecificity = (a: Compiled, b: Compiled) => b.literalChars - a.literalChars
  for (const list of [...byLogger.values(), ...byHead.values(), ...loose]) list?.sort(bySpecificity)
  return { entries, byLogger, byHead, loose, looseCount }
}

const LOOSE_SLOTS = 1 << 18

/** A cheap 18-bit hash of three characters, for the bit test before the exact key. */
function bit3(s: string, i: number): number {
  return ((s.charCodeAt(i) & 0x3f) << 12) | ((s.charCodeAt(i + 1) & 0x3f) << 6) | (s.charCodeAt(i + 2) & 0x3f)
}



/** Loads the tables next to this file once, on first use. */
function loadIndex(): Index {
  if (index) return index
  const entries: WordingEntry[] = []
  for (const name of WORDING_TABLES) {
    const url = new URL(`./${name}`, import.meta.url)
    entries.push(...parseWordingTable(readFileSync(url, 'utf8'), name))
  }
  index = buildIndex(entries)
  return index
}

/** Every entry of the catalogue, in table order (Kafka, ZooKeeper, Connect, Streams). */
export function wordingEntries(): readonly WordingEntry[] {
  return loadIndex().entries
}

/**
 * Does `msg` from `start` on read as the template? Placeholders take the shortest text that lets the
 * next literal follow (leftmost indexOf), the first literal is anchored at `start` and the last at the
 * end: linear in the message, no backtracking.
 */
export function matchesAt(msg: string, start: number, parts: readonly string[]): boolean {
  const n = parts.length
  if (n === 1) return msg.length - start === parts[0].length && msg.startsWith(parts[0], start)
  if (!msg.startsWith(parts[0], start)) return false
  let pos = start + parts[0].length
  const last = parts[n - 1]
  const end = msg.length - last.length
  if (end < pos || !msg.endsWith(last)) return false
  for (let i = 1; i < n - 1; i++) {
    const p = parts[i]
    if (p === '') continue
    const at = msg.indexOf(p, pos)
    if (at < 0 || at + p.length > end) return false
    pos = at + p.length
  }
  return true
}

/** Kafka Streams' LogContext prefixes: "stream-thread [app-StreamThread-1] ", "stream-client [app] ", "stream-task [0_1] ". */
const STREAMS_CONTEXT = /^stream-(?:thread|client|task) (?=\[)/

/** Where the message may start: 0, then after each leading "[…] " context prefix (logIdent, LogContext). */
function starts(msg: string): number[] {
  const out = [0]
  let pos = STREAMS_CONTEXT.exec(msg.slice(0, 16))?.[0].length ?? 0
  for (let i = 0; i < MAX_PREFIXES && msg.charCodeAt(pos) === 91 /* [ */; i++) {
    const close = msg.indexOf('] ', pos)
    if (close < 0) break
    pos = close + 2
    out.push(pos)
  }
  return out
}

/**
 * Finds the catalogue template a log message was written from; logger is the text in the trailing
 * "(…)" if any. The match with the most literal text wins; templates of that logger get five
 * characters' head start (a subclass prints its own name for statements it inherits, so the others
 * are searched too).
 */
export function findTemplate(message: string, logger?: string): WordingEntry | undefined {
  const ix = loadIndex()
  const nl = message.indexOf('\n')
  const msg = (nl >= 0 ? message.slice(0, nl) : message).trimEnd()
  const begins = starts(msg)
  const grams = msg.length >= LONG_MESSAGE ? fillGrams(msg) : undefined
  let best: Compiled | undefined
  let bestScore = -1
  const consider = (c: Compiled, bonus: number) => {
    const score = c.literalChars + bonus
    if (score <= bestScore) return
    if (grams && !mayOccur(grams, c)) return
    for (const s of begins) {
      if (matchesAt(msg, s, c.parts)) {
        best = c
        bestScore = score
        return
      }
    }
  }
  if (logger) {
    const own = ix.byLogger.get(logger) ?? ix.byLogger.get(logger.replace(/\$$/, ''))
    if (own) for (const c of own) consider(c, 5)
  }
  for (const s of begins) {
    for (const h of HEADS) {
      if (msg.length - s < h) continue
      const list = ix.byHead.get(msg.slice(s, s + h))
      if (list) for (const c of list) consider(c, 0)
    }
  }
  if (ix.looseCount > 0) {
    // One slide over the line finds the templates whose anchor starts somewhere in it; each is tried once.
    const now = ++epoch
    for (let i = 0; i + 3 <= msg.length; i++) {
      const list = ix.loose[bit3(msg, i)]
      if (list === undefined) continue
      for (const c of list) {
        if (c.tried === now || !msg.startsWith(c.anchor, i)) continue
        c.tried = now
        consider(c, 0)
      }
    }
  }
  return best?.entry
}
