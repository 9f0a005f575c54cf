import { dateTimeLength, parseDateTime, type ZoneOffset } from './timestamp.js'
import type { ClientName, LearnedLayoutName, LearnedTime } from './types.js'

/**
 * Layouts learned from a file's own lines instead of a fixed list. Each line's front is read as fields —
 * a time (full date-time, time of day, epoch, or a JSON object's), a level word, a thread, a logger, and
 * the separators patterns put between them — and the layout is whatever most lines of a sample agree on:
 * where the time is and, for a client library's own layout, which client. Custom log4j/logback patterns
 * (`HH:mm:ss,SSS thread LEVEL logger [] - msg`), Spring Boot, Quarkus, Akka, Python logging, and the
 * clients' own layouts (librdkafka, sarama, kafkajs, franz-go, kafka-python) are read this way.
 *
 * Every step is a bounded, forward walk over the first HEAD characters of a line: nothing here backtracks.
 */

/** A record front as read: its time, level, thread, logger, client and message. */
export type Fields = {
  time: LearnedTime | 'none'
  at?: number
  /** ms since midnight when the line gives a time of day only. */
  timeOfDayMs?: number
  level?: string
  thread?: string
  logger?: string
  client?: ClientName
  message: string
}

/** How far into a line the fields are looked for: a record's front is never longer. */
const HEAD = 512

/** Level words of log4j/logback, Python, Go, syslog and .NET's Serilog (`[Information]`, `[Verbose]`). */
const LEVEL_WORDS = new Set(['TRACE', 'VERBOSE', 'DEBUG', 'INFO', 'INFORMATION', 'NOTICE', 'WARN', 'WARNING', 'ERROR', 'SEVERE', 'CRITICAL', 'FATAL'])
/** librdkafka's syslog levels (rdkafka.h LOG_EMERG … LOG_DEBUG) as level words. */
const SYSLOG_LEVELS = ['FATAL', 'FATAL', 'FATAL', 'ERROR', 'WARN', 'NOTICE', 'INFO', 'DEBUG']

const isDigit = (c: number) => c >= 48 && c <= 57
const isSpace = (c: number) => c === 32 || c === 9

/** A level word as patterns print it: `WARN`, `[WARN]`, `[warn]`, upper case unless bracketed; Python's CRITICAL is FATAL. */
function levelOf(token: string, bracketed: boolean): string | undefined {
  const up = token.toUpperCase()
  if (!LEVEL_WORDS.has(up)) return undefined
  if (!bracketed && token !== up) return undefined
  return up === 'CRITICAL' ? 'FATAL' : up
}

/**
 * Error and fatal levels as learned and undated layouts write them, beside Kafka's " ERROR ": the parser's
 * level prefilter adds it for those layouts so an error line with wording no matcher knows is still read.
 */
export const LEARNED_ERROR_LEVEL = /\[(?:ERROR|FATAL|error|fatal)\]|"level":"(?:ERROR|FATAL|error|fatal)"|(?:ERROR|CRITICAL):[\w.]+:|%[0-3]\|\d|RDKAFKA-[0-3]-/

/** A logger name: dotted (`org.apache.kafka.clients.NetworkClient`, `o.a.k.c.NetworkClient`, `kafka.conn`). */
function isLogger(t: string): boolean {
  if (t.length < 3 || t.length > 200) return false
  let dots = 0
  let prevDot = true
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c === 46) {
      if (prevDot) return false
      dots++
      prevDot = true
      continue
    }
    const word = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || (!prevDot && isDigit(c))
    if (!word) return false
    prevDot = false
  }
  return dots > 0 && !prevDot
}

type Time = { kind: LearnedTime; at?: number; timeOfDayMs?: number; end: number }

const SLASH_DATE = /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})?/
const TIME_OF_DAY = /^(\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(?![\d:])/
const EPOCH = /^(\d{10})(?:\.(\d{1,6}))?(?![\d:-])|^(\d{13})(?![\d:.-])/
/** 2000-01-01 to 2100-01-01 in epoch seconds: a 10-digit number outside it is not a time. */
const EPOCH_MIN_S = 946_684_800
const EPOCH_MAX_S = 4_102_444_800

/** A time at `i` (optionally in `[…]`), and where the field after it starts. */
function readTime(s: string, i: number, zone: ZoneOffset): Time | undefined {
  let j = i
  const bracket = s.charCodeAt(j) === 91
  if (bracket) j++
  if (!isDigit(s.charCodeAt(j))) return undefined
  let t: Time | undefined
  const dl = dateTimeLength(s, j)
  if (dl > 0) {
    const at = parseDateTime(s, zone, j)
    if (at !== undefined) t = { kind: 'date-time', at, end: j + dl }
  }
  const head = s.slice(j, j + 40)
  if (!t) {
    const m = SLASH_DATE.exec(head)
    if (m) {
      const at = parseDateTime(m[0].replace(/\//g, '-'), zone)
      if (at !== undefined) t = { kind: 'date-time', at, end: j + m[0].length }
    }
  }
  if (!t) {
    const m = TIME_OF_DAY.exec(head)
    if (m && Number(m[1]) <= 23 && Number(m[2]) <= 59 && Number(m[3]) <= 60) {
      const ms = m[4] ? Math.floor(Number(`0.${m[4]}`) * 1000) : 0
      t = { kind: 'time-of-day', timeOfDayMs: ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + ms, end: j + m[0].length }
    }
  }
  if (!t) {
    const m = EPOCH.exec(head)
    const secs = m ? (m[3] ? Number(m[3]) / 1000 : Number(`${m[1]}.${m[2] ?? '0'}`)) : NaN
    if (m && secs >= EPOCH_MIN_S && secs < EPOCH_MAX_S) t = { kind: 'epoch', at: Math.round(secs * 1000), end: j + m[0].length }
  }
  if (!t) return undefined
  if (bracket) {
    if (s.charCodeAt(t.end) !== 93) return undefined
    t.end++
  }
  return t
}

/** librdkafka's own log line: `%3|1571732798.712|FAIL|rdkafka#producer-1| [thrd:…]: …` (rd_kafka_log_print). */
function readLibrdkafka(s: string, zone: ZoneOffset): Fields | undefined {
  if (s.charCodeAt(0) !== 37 || !isDigit(s.charCodeAt(1)) || s.charCodeAt(2) !== 124) return undefined
  const t = readTime(s, 3, zone)
  if (!t || t.kind !== 'epoch' || s.charCodeAt(t.end) !== 124) return undefined
  const facEnd = s.indexOf('|', t.end + 1)
  if (facEnd < 0 || facEnd - t.end > 40) return undefined
  const nameEnd = s.indexOf('|', facEnd + 1)
  if (nameEnd < 0 || nameEnd - facEnd > 200) return undefined
  const level = SYSLOG_LEVELS[s.charCodeAt(1) - 48] ?? 'INFO'
  const message = s.slice(nameEnd + 1).replace(/^ /, '')
  const thrd = /^\[thrd:([^\]]{0,200})\]: /.exec(message)
  return { time: 'epoch', at: t.at, level, logger: s.slice(t.end + 1, facEnd), thread: thrd ? thrd[1] : s.slice(facEnd + 1, nameEnd), client: 'librdkafka', message }
}

/** librdkafka through an application's log callback: `RDKAFKA-3-FAIL: rdkafka#producer-1: …`, `LOG-3-FAIL: …`. */
const RDKAFKA_CALLBACK = /^(?:RDKAFKA|LOG)-([0-7])-([A-Z_]{1,30}): (?:([\w.-]{1,100}#[\w-]{1,100}): )?/

/** kafkajs' JSON logger: `{"level":"ERROR","timestamp":"…","logger":"kafkajs","message":"[Connection] …",…}`. */
function readJson(s: string, from: number, zone: ZoneOffset): Fields | undefined {
  if (!s.startsWith('{"level":', from)) return undefined
  let o: Record<string, unknown>
  try {
    o = JSON.parse(s.slice(from)) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (typeof o.message !== 'string' || typeof o.level !== 'string') return undefined
  const at = typeof o.timestamp === 'string' ? parseDateTime(o.timestamp, zone) : undefined
  const level = o.level.toUpperCase()
  const logger = typeof o.logger === 'string' ? o.logger : undefined
  return { time: 'json', at, level, logger, client: logger === 'kafkajs' ? 'kafkajs' : undefined, message: o.message }
}

/** A token of a record's front: a `[…]` or `(…)` group, or a run of non-blanks. */
type Token = { text: string; bracket: '[' | '(' | ''; start: number; end: number }

function tokenAt(s: string, i: number, limit: number): Token | undefined {
  while (i < limit && isSpace(s.charCodeAt(i))) i++
  if (i >= limit) return undefined
  const c = s.charCodeAt(i)
  if (c === 91 || c === 40) {
    const close = s.indexOf(c === 91 ? ']' : ')', i + 1)
    if (close > 0 && close < limit) return { text: s.slice(i + 1, close), bracket: c === 91 ? '[' : '(', start: i, end: close + 1 }
  }
  let j = i
  while (j < limit && !isSpace(s.charCodeAt(j))) j++
  return { text: s.slice(i, j), bracket: '', start: i, end: j }
}

const SEPARATORS = new Set(['-', ':', '|', '||', '---', '>'])

/**
 * After the level: Spring's `12345 --- [thread] logger : `, logback's `logger - `, a custom `logger [] - `,
 * Akka's `[logger] [] [] [thread] - `, Quarkus' `[logger] (thread) `. Fields are taken only when a
 * separator ends them within a few tokens (or Quarkus' two groups); otherwise the message starts at once,
 * so a Kafka message's own `[Consumer clientId=…]` stays in the message.
 */
function afterLevel(s: string, i: number, limit: number): { thread?: string; logger?: string; end: number } {
  let thread: string | undefined
  let logger: string | undefined
  let j = i
  for (let k = 0; k < 8; k++) {
    const t = tokenAt(s, j, limit)
    if (!t) break
    if (t.bracket === '' && SEPARATORS.has(t.text)) {
      if (t.text === '---' || t.text === '||') {
        j = t.end
        continue
      }
      if (k === 0) break
      return { thread, logger, end: t.end }
    }
    if (t.bracket === '' && t.text.endsWith(':') && isLogger(t.text.slice(0, -1))) return { thread, logger: t.text.slice(0, -1), end: t.end }
    if (t.bracket !== '') {
      if (logger === undefined && isLogger(t.text)) logger = t.text
      else if (t.text.trim() !== '') thread ??= t.text
    } else if (isLogger(t.text)) {
      logger ??= t.text
    } else if (!/^\d{1,10}$/.test(t.text)) {
      break
    }
    j = t.end
  }
  // Quarkus/JBoss: `[org.apa.kaf.cli.NetworkClient] (smallrye-kafka-consumer-thread-3) message`.
  const a = tokenAt(s, i, limit)
  const b = a && tokenAt(s, a.end, limit)
  if (a?.bracket === '[' && isLogger(a.text) && b?.bracket === '(') return { logger: a.text, thread: b.text, end: b.end }
  return { end: i }
}

/** Where the level word is before a few tokens of thread, pid or logger; -1 when none is near the front. */
function findLevel(s: string, i: number, limit: number, maxTokens: number): { level: string; python: boolean; token: Token; before: Token[] } | undefined {
  const before: Token[] = []
  let j = i
  for (let k = 0; k < maxTokens; k++) {
    const t = tokenAt(s, j, limit)
    if (!t) return undefined
    const lvl = levelOf(t.text, t.bracket !== '') ?? (t.bracket === '' && t.text.endsWith(':') ? levelOf(t.text.slice(0, -1), false) : undefined)
    if (lvl) return { level: lvl, python: false, token: t, before }
    if (t.bracket === '') {
      // Python logging's default "%(levelname)s:%(name)s:%(message)s": `ERROR:kafka.conn:…`.
      const colon = t.text.indexOf(':')
      if (colon > 0 && levelOf(t.text.slice(0, colon), false)) return { level: levelOf(t.text.slice(0, colon), false)!, python: true, token: { ...t, end: t.start + colon + 1 }, before }
    }
    before.push(t)
    j = t.end
  }
  return undefined
}

/**
 * Ruby's standard Logger (ruby-kafka, rdkafka-ruby, Karafka applications): `E, [2022-05-18T04:25:31.804583
 * #67039] ERROR -- progname: msg` — the level's initial, the ISO time and pid in brackets, the level padded to
 * five, then `--`, the program name (often empty) and `: `.
 */
const RUBY_LOGGER = /^[DIWEFA], \[(?=\d{4}-)([^\]\s]{10,40}) #\d{1,10}\] {1,2}(DEBUG|INFO|WARN|ERROR|FATAL|ANY) -- ([^:\s]{0,100}): /

function readRubyLogger(line: string, zone: ZoneOffset): Fields | undefined {
  const m = RUBY_LOGGER.exec(line.slice(0, 200))
  if (!m) return undefined
  const t = readTime(line, 4, zone)
  if (!t) return undefined
  return { time: t.kind, at: t.at, timeOfDayMs: t.timeOfDayMs, level: m[2] === 'ANY' ? 'INFO' : m[2], ...(m[3] ? { logger: m[3] } : {}), message: line.slice(m[0].length) }
}

/**
 * Reads a line's front as fields. Undefined when the line opens no record: it starts with neither a time
 * nor (near the front) a level word, nor a client's own layout.
 */
export function readFields(line: string, zone: ZoneOffset): Fields | undefined {
  const rk = readLibrdkafka(line, zone)
  if (rk) return rk
  const ruby = readRubyLogger(line, zone)
  if (ruby) return ruby
  const json = readJson(line, 0, zone)
  if (json) return json
  const limit = Math.min(line.length, HEAD)
  let i = 0
  let client: ClientName | undefined
  if (line.startsWith('[sarama] ') || line.startsWith('[Sarama] ')) {
    client = 'sarama'
    i = 9
  }
  const t = readTime(line, i, zone)
  if (t) i = t.end
  while (i < limit && isSpace(line.charCodeAt(i))) i++
  // librdkafka through a callback, after its epoch: `1511418210.136 RDKAFKA-3-FAIL: rdkafka#producer-1: …`.
  const cb = RDKAFKA_CALLBACK.exec(line.slice(i, i + 240))
  if (cb) {
    return { time: t?.kind ?? 'none', at: t?.at, timeOfDayMs: t?.timeOfDayMs, level: SYSLOG_LEVELS[Number(cb[1])], logger: cb[2], thread: cb[3], client: 'librdkafka', message: line.slice(i + cb[0].length) }
  }
  // ZooKeeper's `[myid:3] - ` between the date and the level.
  const myid = /^\[myid:\d*\] - /.exec(line.slice(i, i + 24))
  if (myid) i += myid[0].length
  // Undated lines must start with their level (a paste with the stamps cut off); dated ones may put a
  // thread, pid or logger first (`13:57:44.697 [main] INFO …`, `… - kafka.conn - ERROR - …`).
  const found = findLevel(line, i, limit, t ? 6 : 1)
  if (!found) {
    if (!t) return undefined
    // A dated line without a level (sarama's std-log lines, franz-go behind a time prefix is below).
    return { time: t.kind, at: t.at, timeOfDayMs: t.timeOfDayMs, client, message: line.slice(i) }
  }
  let logger: string | undefined
  let thread: string | undefined
  for (const b of found.before) {
    if (SEPARATORS.has(b.text) && b.bracket === '') continue
    if (logger === undefined && isLogger(b.text)) logger = b.text
    else if (thread === undefined && b.bracket !== '') thread = b.text
    else if (thread === undefined && b.bracket === '' && !/^\d+$/.test(b.text)) thread = b.text
  }
  let message: string
  if (found.python) {
    const rest = found.token.end
    const colon = line.indexOf(':', rest)
    const name = colon > rest && colon - rest <= 200 ? line.slice(rest, colon) : ''
    if (name && /^[\w.]+$/.test(name)) {
      logger = name
      message = line.slice(colon + 1)
    } else message = line.slice(rest)
  } else {
    const after = afterLevel(line, found.token.end, limit)
    logger = after.logger ?? logger
    thread = after.thread ?? thread
    let m = after.end
    while (m < line.length && isSpace(line.charCodeAt(m))) m++
    message = line.slice(m)
  }
  // A JSON record behind a collector's columns (an AWS Lambda line: time, request id, level, then kafkajs' JSON).
  if (message.startsWith('{"level":')) {
    const inner = readJson(message, 0, zone)
    if (inner) return { ...inner, time: t?.kind ?? 'none', at: t?.at ?? inner.at, timeOfDayMs: t?.timeOfDayMs }
  }
  if (logger === undefined) {
    const tl = trailingLogger(message)
    if (tl) {
      logger = tl.logger
      message = tl.message
    }
  }
  client ??= clientOfLogger(logger) ?? (found.token.bracket === '[' && !logger && /; \w+: /.test(message) ? 'franz-go' : undefined)
  return { time: t?.kind ?? 'none', at: t?.at, timeOfDayMs: t?.timeOfDayMs, level: found.level, thread, logger, client, message }
}

/** The client a logger name gives away: the Java client's packages, kafka-python's lower-case modules. */
function clientOfLogger(logger: string | undefined): ClientName | undefined {
  if (!logger) return undefined
  if (/^(?:org\.apache\.kafka\.(?:clients|streams|connect)\.|o\.a\.k\.(?:c|s|connect)\.|org\.apa\.kaf\.(?:cli|str|con)\.)/.test(logger)) return 'java'
  if (/^kafka(?:\.[a-z_0-9]+)+$/.test(logger)) return 'kafka-python'
  return undefined
}

/** A message's trailing ` (logger)` or ` (logger:line)` (log4j's `(%c)`, Connect's `(%c:%L)`), cut by hand. */
function trailingLogger(message: string): { logger: string; message: string } | undefined {
  const n = message.length
  if (message.charCodeAt(n - 1) !== 41) return undefined
  const open = message.lastIndexOf(' (', n - 2)
  if (open < 0 || n - open > 220) return undefined
  let name = message.slice(open + 2, n - 1)
  const colon = name.indexOf(':')
  if (colon > 0 && /^\d+$/.test(name.slice(colon + 1))) name = name.slice(0, colon)
  return isLogger(name) ? { logger: name, message: message.slice(0, open) } : undefined
}

/**
 * True when the line at `p` opens a record of a learned layout: it starts with that layout's time. A
 * librdkafka line (`%3|…`) opens a record under any learned layout: wrappers such as confluent-kafka-dotnet
 * let librdkafka print its own lines between the application's.
 */
export function learnedHeaderAt(s: string, p: number, layout: LearnedLayoutName, zone: ZoneOffset): boolean {
  const kind = learnedTimeOf(layout)
  if (s.charCodeAt(p) === 37 && isDigit(s.charCodeAt(p + 1)) && s.charCodeAt(p + 2) === 124) return true
  if (kind === 'json') return s.startsWith('{"level":', p)
  let i = p
  if (s.startsWith('[sarama] ', p) || s.startsWith('[Sarama] ', p)) i += 9
  // Ruby's Logger puts the level's initial and a bracket before its time (`E, [2022-05-18T04:25:31.804583 #67039]`).
  else if (s.charCodeAt(p + 1) === 44 && s.charCodeAt(p + 2) === 32 && s.charCodeAt(p + 3) === 91 && /[DIWEFA]/.test(s[p])) i += 4
  return readTime(s.slice(i, i + 48), 0, zone)?.kind === kind
}

/** The time kind a learned layout's name holds. */
export function learnedTimeOf(layout: LearnedLayoutName): LearnedTime {
  const end = layout.indexOf(':', 8)
  return layout.slice(8, end < 0 ? undefined : end) as LearnedTime
}

/** The client a learned layout's name holds, if any. */
export function learnedClientOf(layout: string): ClientName | undefined {
  if (!layout.startsWith('learned:')) return undefined
  const end = layout.indexOf(':', 8)
  return end < 0 ? undefined : (layout.slice(end + 1) as ClientName)
}

/**
 * Learns a layout from a sample: the time kind most dated lines share, and the client when most of them
 * name one. `score` counts the lines read as dated records, to weigh against the fixed layouts'.
 */
export function learnLayout(sample: readonly string[]): { name: LearnedLayoutName; score: number } | undefined {
  const utc: ZoneOffset = () => 0
  const byTime = new Map<LearnedTime, number>()
  const byClient = new Map<ClientName, number>()
  let dated = 0
  for (const l of sample) {
    if (l.trim() === '') continue
    const f = readFields(l, utc)
    if (!f || f.time === 'none') continue
    // A time with neither a level nor a client's layout is not a record start on its own (a CSV row, a
    // table of timestamps), except sarama's `[sarama] 2015/04/15 23:29:42 …`.
    if (f.level === undefined && f.client === undefined) continue
    dated++
    byTime.set(f.time, (byTime.get(f.time) ?? 0) + 1)
    if (f.client) byClient.set(f.client, (byClient.get(f.client) ?? 0) + 1)
  }
  let time: LearnedTime | undefined
  let best = 0
  for (const [k, n] of byTime) if (n > best) [time, best] = [k, n]
  if (!time) return undefined
  let client: ClientName | undefined
  let clientN = 0
  for (const [k, n] of byClient) if (n > clientN) [client, clientN] = [k, n]
  const name: LearnedLayoutName = client && clientN * 2 >= dated ? `learned:${time}:${client}` : `learned:${time}`
  return { name, score: best }
}
