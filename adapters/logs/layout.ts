import { dateTimeLength, parseDateTime, parseUptimeMs, type ZoneOffset } from './timestamp.js'
import { matchLinePrefix, prefixShape, type LinePrefix } from './line-prefix.js'
import { templatedLine } from './templated-line.js'
import { learnedClientOf, learnedHeaderAt, learnLayout, readFields, type Fields } from './learned-layout.js'
import type { ClientName, LayoutName, LogFormat, WrapperName } from './types.js'

/**
 * Line layouts: where a record starts, and its time, level, message and logger. Deployments wrap
 * Kafka's log4j output differently (Apache's default, Strimzi, Cloudera, containers), and GC logs have
 * their own stamps; everything past this module sees only the message.
 */

/** What the front of a record's first line says. `at` is absent when the line carries no usable time. */
export type Header = {
  at?: number
  /** ms since JVM start, from JDK 8 stamps or unified `uptime` decorators. */
  uptimeMs?: number
  level?: string
  logger?: string
  /** The thread, when the layout prints one apart from the message (learned layouts). */
  thread?: string
  /** The client library whose layout the record is in (see ClientName); client matchers key on it. */
  client?: ClientName
  /** ms since midnight, for a line that gives only a time of day (`13:57:44.697`); `at` is then absent. */
  timeOfDayMs?: number
  message: string
}

const UTC_ZONE: ZoneOffset = () => 0

const isDigit = (c: number) => c >= 48 && c <= 57

/**
 * True when the line starting at `p` opens a new record in this layout; anything else (stack frames,
 * `Caused by:`, G1 detail lines) continues the record before it. Cheap: it runs on every line.
 */
export function isHeaderAt(s: string, p: number, layout: LayoutName): boolean {
  const c = s.charCodeAt(p)
  switch (layout) {
    case 'apache':
      // "[2018-…] LEVEL", or "[] LEVEL" from a pattern whose date conversion printed nothing.
      return c === 91 && (isDigit(s.charCodeAt(p + 1)) || (s.charCodeAt(p + 1) === 93 && s.charCodeAt(p + 2) === 32 && s.charCodeAt(p + 3) >= 65))
    case 'strimzi':
    case 'cloudera':
      return isDigit(c) && s.charCodeAt(p + 4) === 45 && isDigit(s.charCodeAt(p + 11))
    case 'jvm': {
      // A stamp, a decorator or a JDK 8 "[GC …" at column 0; indented lines continue a G1 record,
      // except PrintSafepointStatistics rows, which are indented uptime stamps.
      if (c === 91 || isDigit(c)) return true
      let i = p
      while (s.charCodeAt(i) === 32) i++
      return i > p && isDigit(s.charCodeAt(i))
    }
    case 'none':
      return !continuesStackTrace(s, p, c)
    default:
      return learnedHeaderAt(s, p, layout, UTC_ZONE)
  }
}

const FRAME_AT_COLUMN_0 = /^at [\w$.\/]+[.<][\w$<>]*\(/

/** A stack frame ("\tat …", "    at …", "\t... 12 more") or "Caused by: …" line: part of the exception above it. */
function continuesStackTrace(s: string, p: number, c: number): boolean {
  if (c === 67) return s.startsWith('Caused by: ', p)
  // Frames pasted without their tab (seed 001's report): "at java.base/sun.nio.ch.FileChannelImpl.map(…)".
  if (c === 97) return FRAME_AT_COLUMN_0.test(s.slice(p, p + 256))
  if (c !== 9 && c !== 32) return false
  let i = p
  while (s.charCodeAt(i) === 9 || s.charCodeAt(i) === 32) i++
  return s.startsWith('at ', i) || s.startsWith('... ', i) || s.startsWith('Caused by: ', i)
}

const APACHE_RE = /^\[([^\]]*)\] (\w+) ?(.*)$/s
// ZooKeeper's own log4j pattern ("%d{ISO8601} [myid:%X{myid}] - %-5p [%t:%C{1}@%L] - %m%n") puts the server id
// between the date and the level, and the thread and class before the message.
const DATE_FIRST_RE = /^(\S+(?: \d\d:\d\d\S*)?) +(?:\[myid:\d*\] - )?(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+(.*)$/s
const ZOOKEEPER_SOURCE_RE = /^\[.*:([\w$]+)@\d+\] - /s
// Kafka Connect's shipped pattern ("[%d] %p %X{connector.context}%m (%c:%L)%n") adds the source line to the
// class; only a class name (a capitalised last segment) takes it, so "(kafka-1.example.com:9092)" stays message.
const TRAILING_LOGGER_RE = /\s\(([\w.$-]+|(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?=:\d+\)$))(?::\d+)?\)$/
const CLOUDERA_LOGGER_RE = /^([\w.$-]+): (.*)$/s
const LEVELS = new Set(['trace', 'debug', 'info', 'warning', 'error'])

/** Reads a record's first line. `anchor` is the JVM start (epoch ms) for uptime-only GC stamps. */
export function readHeader(line: string, layout: LayoutName, zone: ZoneOffset, anchor?: number): Header | undefined {
  switch (layout) {
    case 'apache': {
      const m = APACHE_RE.exec(line)
      if (!m) return undefined
      const at = parseDateTime(m[1], zone)
      return splitLogger(at, m[2], m[3])
    }
    case 'strimzi':
    case 'cloudera': {
      const m = DATE_FIRST_RE.exec(line)
      if (!m) return undefined
      const at = parseDateTime(m[1], zone)
      if (layout === 'cloudera') {
        const c = CLOUDERA_LOGGER_RE.exec(m[3])
        if (c) return { at, level: m[2], logger: c[1], message: c[2] }
      }
      const z = ZOOKEEPER_SOURCE_RE.exec(m[3].slice(0, 400))
      if (z) return { at, level: m[2], logger: z[1], message: m[3].slice(z[0].length) }
      return splitLogger(at, m[2], withoutTrailingThread(m[3]))
    }
    case 'jvm':
      return readJvmHeader(line, zone, anchor)
    case 'none': {
      // A pattern without a date ("%p %m (%c)%n", or a line quoted without its stamp) still names its level;
      // so do kafka-python's `ERROR:kafka.conn:…`, franz-go's `[WARN] …` and a client's own layouts.
      const m = UNDATED_LEVEL_RE.exec(line)
      if (m) return splitLogger(undefined, m[1], m[2])
      const f = readFields(line, zone)
      if (f && (f.level !== undefined || f.client !== undefined)) return headerOf(f, true)
      // A bare message keeps the level and logger of the statement the wording tables say wrote it.
      const t = templatedLine(line)
      if (!t) return { message: line }
      const h: Header = { message: line, level: t.level }
      if (t.logger !== undefined) h.logger = t.logger
      if (t.client !== undefined) h.client = t.client
      return h
    }
    default: {
      const f = readFields(line, zone)
      return f ? headerOf(f, false) : undefined
    }
  }
}

/** Fields read by a learned layout as a Header; `undated` keeps a stray stamp in an undated file out. */
function headerOf(f: Fields, undated: boolean): Header {
  const h: Header = { message: f.message }
  if (!undated && f.at !== undefined) h.at = f.at
  if (!undated && f.timeOfDayMs !== undefined) h.timeOfDayMs = f.timeOfDayMs
  if (f.level !== undefined) h.level = f.level
  if (f.logger !== undefined) h.logger = f.logger
  if (f.thread !== undefined) h.thread = f.thread
  if (f.client !== undefined) h.client = f.client
  return h
}

/**
 * The message without a trailing " [thread]" (Strimzi's `%t`). By hand: the regex `\s\[[^\]]*\]$` tries
 * every " [" of the line and scans to its end, quadratic on a line of " [" repeated.
 */
function withoutTrailingThread(rest: string): string {
  const n = rest.length
  if (rest.charCodeAt(n - 1) !== 93) return rest
  const prevClose = rest.lastIndexOf(']', n - 2)
  let open = rest.indexOf('[', prevClose + 1)
  while (open > 0 && open < n - 1 && !/\s/.test(rest[open - 1])) open = rest.indexOf('[', open + 1)
  return open > 0 && open < n - 1 ? rest.slice(0, open - 1) : rest
}

const UNDATED_LEVEL_RE = /^(TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*)$/s

function splitLogger(at: number | undefined, level: string, rest: string): Header {
  const l = TRAILING_LOGGER_RE.exec(rest)
  if (l) return { at, level, logger: l[1], message: rest.slice(0, l.index) }
  return { at, level, message: rest }
}

/**
 * JDK 8 `2018-08-13T22:16:09.744-0400: 491.491: msg` (date and/or uptime stamp) and JDK 9+ unified
 * logging `[time][uptime][level][tags] msg` with any decorator set (time, utctime, uptime, timemillis,
 * uptimemillis, timenanos, uptimenanos, level, tags, pid, tid) in any order.
 */
export function readJvmHeader(line: string, zone: ZoneOffset, anchor?: number): Header | undefined {
  let i = 0
  while (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9) i++
  if (line.charCodeAt(i) === 91) {
    const u = readUnified(line, i, zone, anchor)
    if (u) return u
  }
  let at: number | undefined
  let uptimeMs: number | undefined
  const dl = dateTimeLength(line, i)
  if (dl > 0 && line.charCodeAt(i + dl) === 58) {
    at = parseDateTime(line, zone, i)
    i += dl + 1
    while (line.charCodeAt(i) === 32) i++
  }
  const u = /^(\d+[.,]\d+): /.exec(line.slice(i, i + 24))
  if (u) {
    uptimeMs = parseUptimeMs(u[1])
    i += u[0].length
  }
  if (at === undefined && uptimeMs !== undefined && anchor !== undefined) at = anchor + uptimeMs
  return { at, uptimeMs, message: line.slice(i) }
}

function readUnified(line: string, start: number, zone: ZoneOffset, anchor?: number): Header | undefined {
  let i = start
  let at: number | undefined
  let uptimeMs: number | undefined
  let level: string | undefined
  let logger: string | undefined
  while (line.charCodeAt(i) === 91) {
    const end = line.indexOf(']', i)
    if (end < 0) break
    const v = line.slice(i + 1, end).trim()
    const n = /^(\d+(?:[.,]\d+)?)(s|ms|ns)$/.exec(v)
    if (n) {
      const num = Number(n[1].replace(',', '.'))
      if (n[2] === 'ms' && num > 1e11) at = num
      else if (n[2] === 'ns' && num > 1e17) at = num / 1e6
      else uptimeMs = parseUptimeMs(v)
    } else if (dateTimeLength(v) === v.length && v.length > 0) {
      at = parseDateTime(v, zone)
    } else if (LEVELS.has(v)) {
      level = v
    } else if (/^[a-z0-9_]+(?:,[a-z0-9_]+)*$/.test(v) && logger === undefined) {
      logger = v
    } else if (!/^\d+$/.test(v)) {
      break
    }
    i = end + 1
  }
  if (i === start) return undefined
  if (at === undefined && uptimeMs !== undefined && anchor !== undefined) at = anchor + uptimeMs
  return { at, uptimeMs, level, logger, message: line.slice(line.charCodeAt(i) === 32 ? i + 1 : i) }
}

const COMPOSE_RE = /^[\w.-]+\s*\| ?/
const K8S_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) (?:(?:stdout|stderr) ([FP]) )?/

/**
 * Removes a container runtime's wrapper from one physical line. Returns `partial: true` for a piece of
 * a longer line (CRI `P` flag, a json-file entry without its newline) so the caller can join pieces.
 */
export function unwrapLine(line: string, wrapper: WrapperName, linePrefix?: LinePrefix): { inner: string; partial: boolean } | undefined {
  switch (wrapper) {
    case 'line-prefix': {
      const n = linePrefix ? matchLinePrefix(linePrefix, line) : -1
      return n >= 0 ? { inner: line.slice(n), partial: false } : undefined
    }
    case 'docker-compose': {
      const m = COMPOSE_RE.exec(line)
      return m ? { inner: line.slice(m[0].length), partial: false } : undefined
    }
    case 'kubernetes': {
      const m = K8S_RE.exec(line)
      return m ? { inner: line.slice(m[0].length), partial: m[1] === 'P' } : undefined
    }
    case 'docker-json': {
      if (line.charCodeAt(0) !== 123) return undefined
      try {
        const o = JSON.parse(line) as { log?: unknown }
        if (typeof o.log !== 'string') return undefined
        const partial = !o.log.endsWith('\n')
        return { inner: partial ? o.log : o.log.replace(/\r?\n$/, ''), partial }
      } catch {
        return undefined
      }
    }
  }
}

/** Picks the container wrapper most of a file's first lines carry, if any. */
export function detectWrapper(sample: readonly string[]): WrapperName | undefined {
  const lines = sample.filter((l) => l.trim() !== '')
  if (lines.length === 0) return undefined
  const order: WrapperName[] = ['docker-json', 'kubernetes', 'docker-compose']
  for (const w of order) {
    const hits = lines.filter((l) => unwrapLine(l, w) !== undefined).length
    if (hits >= Math.max(1, lines.length * 0.6)) return w
  }
  return undefined
}

/** A log4j record start (Apache's "[date] LEVEL" or the date-first layouts) somewhere inside a line. */
const EMBEDDED_RECORD = /\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?\] (?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\b|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d+ (?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\b/

/**
 * Learns a prefix that a collector or harness writes before every line (syslog's "Sep 23 15:25:24 host
 * kafka[812]: ", a test harness's "[  398550] [ 66.95] [service_kafka-3] [I] "), so the record behind it
 * is read in its own layout and the stack-trace lines carrying the same prefix stay with their record.
 * The prefix's shape comes from the lines where a record starts after it: digits and padding may vary,
 * the rest must repeat; it is accepted when most of the sample's lines carry it.
 */
export function learnLinePrefix(sample: readonly string[]): LinePrefix | undefined {
  const lines = sample.filter((l) => l.trim() !== '')
  const shapes = new Map<string, { prefix: LinePrefix; n: number }>()
  for (const l of lines) {
    const m = EMBEDDED_RECORD.exec(l.slice(0, 400))
    if (!m || m.index === 0) continue
    const prefix = prefixShape(l.slice(0, m.index))
    const seen = shapes.get(prefix.key)
    if (seen) seen.n++
    else shapes.set(prefix.key, { prefix, n: 1 })
  }
  let best: { prefix: LinePrefix; n: number } | undefined
  for (const s of shapes.values()) if (!best || s.n > best.n) best = s
  if (!best) return undefined
  const prefix = best.prefix
  const carried = lines.filter((l) => matchLinePrefix(prefix, l) >= 0).length
  return carried >= Math.max(1, lines.length * 0.6) ? prefix : undefined
}

/** Picks the layout under which most of a file's first lines open a record with a timestamp. */
export function detectLayout(sample: readonly string[]): LayoutName {
  const lines = sample.filter((l) => l.trim() !== '')
  const utc: ZoneOffset = () => 0
  const score = (layout: LayoutName) => {
    let n = 0
    for (const l of lines) {
      if (!isHeaderAt(l, 0, layout)) continue
      const h = readHeader(l, layout, utc, 0)
      if (h?.at === undefined) continue
      if (layout === 'cloudera' && !(h.logger && l.includes(`${h.logger}: `))) continue
      if (layout === 'strimzi' && h.logger === undefined) continue
      n++
    }
    return n
  }
  let best: LayoutName = 'none'
  let bestScore = 0
  for (const layout of ['apache', 'strimzi', 'cloudera', 'jvm'] as const) {
    const s = score(layout)
    if (s > bestScore) {
      best = layout
      bestScore = s
    }
  }
  // A layout learned from the lines themselves wins only where it reads more dated records than every
  // fixed one: Kafka's own layouts keep their readers.
  // JDK unified logging reads any "[date] " front as a decorator: without a GC line in sight, a learned
  // layout that also found the level (Akka's "[date] [WARN] [logger] …") takes a tie.
  const learned = learnLayout(lines)
  if (learned && (learned.score > bestScore || (best === 'jvm' && learned.score === bestScore && !GC_HINT.test(lines.join('\n'))))) return learned.name
  return best
}

const GC_HINT = /Total time for which application threads were stopped|\[GC|\[Full GC|GC\(\d+\) Pause|Safepoint "|\bvmop\b|\[gc\b|\[safepoint/
const CLIENT_HINT = /records sent, |\[(?:Producer|Consumer) clientId=|org\.apache\.kafka\.clients\.|Exception: This server is not the leader/
// Linear: a class name is tried only where a word starts, and only blanks may come before a frame's "at".
const JAVA_TEXT_HINT = /^[ \t]+at [\w$.\/]+[.<][\w$<>]*\(|^Caused by: |^Exception in thread "|(?<![\w$])[\w$]+(?:Exception|Error)(?::|$)|A fatal error has been detected by the Java Runtime Environment|insufficient memory for the Java Runtime Environment/m
/** An undated Kafka record: a level, then a component's log ident ("INFO [ControllerServer id=9990] …"). */
const UNDATED_KAFKA_HINT = /^(?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \[[A-Z][\w-]*(?: (?:id|broker|node)=\d+| \d+)[\] ]/m
const BROKER_HINT = /\((?:kafka\.(?:server|cluster|log|controller|coordinator|network|zk|zookeeper)\.|state\.change\.logger|org\.apache\.zookeeper\.|org\.apache\.kafka\.(?:storage|controller|metadata|raft|server)\.)/

/**
 * Decides what wrote a file from its first lines. Undefined means unknown: the caller counts the
 * file's lines as unparsed rather than guessing.
 */
export function detectFormat(sample: readonly string[], layout: LayoutName): LogFormat | undefined {
  if (learnedClientOf(layout)) return 'client'
  const text = sample.join('\n')
  if (layout === 'jvm' || (layout === 'none' && GC_HINT.test(text))) return 'gc'
  const broker = BROKER_HINT.test(text)
  if (!broker && CLIENT_HINT.test(text)) return 'client'
  if (layout !== 'none') return broker || !CLIENT_HINT.test(text) ? 'kafka' : 'client'
  // Undated text that holds a Java exception or a JVM fatal banner (stdout, a pasted stack) is read
  // as the broker's: its errors become signals instead of the file being skipped as unknown.
  if (JAVA_TEXT_HINT.test(text) || UNDATED_KAFKA_HINT.test(text)) return 'kafka'
  // A line that starts with a level word is a log line whatever surrounds it (a paste with its stamps cut
  // off, kafka-python's default layout, franz-go's basic logger): a client's when one is named.
  return undatedFormat(sample)
}

/** The format of undated lines that open with a level word or a client's own layout, if any do. */
function undatedFormat(sample: readonly string[]): LogFormat | undefined {
  let levelled = 0
  let client = 0
  for (const l of sample) {
    const f = l.length > 0 ? readFields(l, UTC_ZONE) : undefined
    if (!f || (f.level === undefined && f.client === undefined)) continue
    levelled++
    if (f.client) client++
  }
  if (levelled > 0) return client * 2 >= levelled ? 'client' : 'kafka'
  // No level anywhere: lines whose wording a Kafka, ZooKeeper or client statement writes are log lines.
  for (const l of sample) {
    const t = templatedLine(l)
    if (t) return t.client ? 'client' : 'kafka'
  }
  return undefined
}
