import type { Signal } from '../../signals/signal.js'
import { componentDraft } from './component-matchers.js'
import { GENERIC_SIGNALS, GENERIC_TEXT_MAX, genericDraft, genericPrefilter, type GenericPrefilter } from './generic.js'
import { detectFormat, detectLayout, detectWrapper, isHeaderAt, learnLinePrefix, readHeader, readJvmHeader, unwrapLine } from './layout.js'
import { brokerNamedIn, MATCHERS, matchersFor, mayMatch, newMatchState, type Draft, type LogRecord, type MatcherSet, type MatchState } from './matchers.js'
import type { LinePrefix } from './line-prefix.js'
import { LEARNED_ERROR_LEVEL } from './learned-layout.js'
import { resolveZone, type ZoneOffset } from './timestamp.js'
import { emptyStats, type LayoutName, type LogFormat, type LogSourceConfig, type ParseStats, type WrapperName } from './types.js'

/**
 * The log pipeline: detect the file's layout and format, assemble multi-line records, run the
 * matcher table, and turn drafts into Signals with time, broker and evidence. Replay and tailing both
 * feed text through one LogParser, so a line means the same thing whichever way it arrives.
 *
 * Speed comes from never looking at most lines: one prefilter (a literal scanner over the matchers'
 * trigger literals, or their union as a regex for GC logs) runs over the whole chunk; only the records
 * around its hits are read.
 */

/** Tuning; the defaults suit Kafka's own logs. */
export type ParserLimits = {
  /** Longer lines are cut to this many characters and counted as `line-too-long`. */
  maxLineChars: number
  /** A record (first line plus stack trace) is cut after this many lines. */
  maxRecordLines: number
  /** Lines read to detect layout and format. */
  sampleLines: number
  /**
   * A follower cannot wait for a full sample (a busy gc.log takes minutes to write 200 lines): with
   * this set, detection decides on the first line that settles the question (a dated line naming its
   * logger, or a JVM-decorated GC line), or after this many lines, whichever comes first. 0 waits for
   * the full sample, as whole-file reads do.
   */
  earlySampleLines: number
}

const DEFAULT_LIMITS: ParserLimits = { maxLineChars: 64 * 1024, maxRecordLines: 400, sampleLines: 200, earlySampleLines: 0 }
const UTC: ZoneOffset = () => 0

const DAMAGED_HEADER = /^[\d\-:,. T]{1,30}\]? (?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL) /

/** kafka-producer-perf-test prints a progress line every 5000 ms (ProducerPerformance Stats reportingInterval). */
const PERF_REPORT_INTERVAL_MS = 5000

/** How far back (characters) an undated record looks for the time of the timestamped line before it. */
const NEIGHBOUR_LOOKBACK_CHARS = 64 * 1024

/** The label a signal carries when its file had no timestamps at all and its time is a stand-in. */
export const TIME_UNKNOWN_LABEL = 'time_unknown'

const GENERIC = new Set<string>(GENERIC_SIGNALS)

/**
 * The first line of a Java exception (or of its "Caused by:", when a paste starts inside the stack trace) or a
 * JVM fatal banner, read as a record where no record is above it.
 */
const ORPHAN_EXCEPTION = /^\s*(?:Exception in thread "|(?:Caused by: )?(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)(?::|\s*$)|#\s+(?:A fatal error has been detected|There is insufficient memory) )/

/** Signals of undated records waiting for the next timestamped line of the file to give them a time. */
type Pending = { drafts: Signal[] }

/**
 * The wrapper most of a sample's lines carry (a container runtime's, else a learned per-line prefix) and
 * the lines without it: what early and full detection both read the layout from.
 */
function unwrapSample(sample: readonly string[]): { wrapper?: WrapperName; linePrefix?: LinePrefix; lines: readonly string[] } {
  const runtime = detectWrapper(sample)
  const linePrefix = runtime ? undefined : learnLinePrefix(sample)
  const wrapper = runtime ?? (linePrefix ? 'line-prefix' : undefined)
  if (!wrapper) return { lines: sample }
  return { wrapper, linePrefix, lines: sample.map((l) => unwrapLine(l, wrapper, linePrefix)?.inner ?? l) }
}

/**
 * An undated, level-less paste whose lines a matcher row knows ("No readable meta.properties files
 * found", "Too many connections from /10.0.0.7 - max is 60") is a log of the format that row reads:
 * the wording says what wrote it even when the log line around it was cut off.
 */
function matchedFormat(lines: readonly string[]): LogFormat | undefined {
  const short = lines.filter((l) => l.length > 0 && l.length <= 1024)
  if (short.length === 0) return undefined
  for (const format of ['kafka', 'client'] as const) {
    for (const m of MATCHERS) {
      if (m.literals.length === 0 || !m.formats.includes(format)) continue
      for (const line of short) if (mayMatch(m, line) && m.re.test(line)) return format
    }
  }
  return undefined
}

/** A stateful parser for one file; feed it whole lines in order. */
export class LogParser {
  readonly stats: ParseStats = emptyStats()
  format: LogFormat | undefined
  layout: LayoutName | undefined
  wrapper: WrapperName | undefined
  /** The learned per-line prefix, when `wrapper` is 'line-prefix'. */
  private linePrefix: LinePrefix | undefined
  private readonly cfg: LogSourceConfig
  private readonly limits: ParserLimits
  private readonly zone: ZoneOffset
  private set: MatcherSet | undefined
  private prefilter: GenericPrefilter | undefined
  /** Time of the latest timestamped line seen, for records written without one. */
  private lastAt: number | undefined
  /** Signals of undated records met before any timestamped line, in file order. */
  private readonly pending: Pending = { drafts: [] }
  /** Records placed at `undatedAt` so far (each 1 ms after the one before, to keep their order). */
  private undated = 0
  private readonly state: MatchState = newMatchState()
  private anchor: number | undefined
  private carry = ''
  private carryLine = 1
  private detected = false
  private unknown = false
  private progress = 0
  private partial = ''
  /** Detection ran on a short head with no dated line (see redetect); lines looked at since. */
  private provisional = false
  private sampled = 0
  /** The last time of day read (clockTime), and the days its clock has wrapped past midnight. */
  private lastClock: number | undefined
  private clockDays = 0

  /** `startLine` is the number of the first line fed (a tailer resuming mid-file). */
  constructor(cfg: LogSourceConfig, limits: Partial<ParserLimits> = {}, startLine = 1) {
    this.cfg = cfg
    this.carryLine = startLine
    this.limits = { ...DEFAULT_LIMITS, ...limits }
    const zone = resolveZone(cfg.timeZone)
    if (!zone) throw new Error(`unknown time zone '${cfg.timeZone}' for ${cfg.path}`)
    this.zone = zone
    this.anchor = cfg.jvmStart
    this.format = cfg.format
    this.layout = cfg.layout
  }

  /** True while a record (or undetected head of file) waits for more lines; the tailer flushes it on a timeout. */
  hasPending(): boolean {
    return this.carry !== '' || this.partial !== ''
  }

  /**
   * Hands the text held for an unfinished record back to a reader that will put it in front of the next
   * bytes itself: decoding joined bytes gives one flat string, where `held + text` would give a joined
   * string that V8 copies again on first search (measured 20+ ms per 4 MiB chunk). Empty while the text
   * held is not raw file text (format detection's sample, container-unwrapped lines).
   */
  releaseCarry(): string {
    if (!this.detected || this.wrapper !== undefined || this.provisional) return ''
    const held = this.carry
    this.carry = ''
    return held
  }

  /** Where a restart must resume so nothing pending is lost: bytes held back and the line they start at. */
  resumePoint(): { pendingBytes: number; line: number } {
    return { pendingBytes: Buffer.byteLength(this.carry) + Buffer.byteLength(this.partial), line: this.carryLine }
  }

  /**
   * Feeds text made of whole lines (each ending in "\n"; with `final` the last may lack it). Returns the
   * signals of every record known to be complete.
   */
  push(text: string, final = false): Signal[] {
    if (this.provisional && text !== '') this.redetect(text)
    if (this.wrapper !== undefined || !this.detected) {
      if (!this.detected) {
        const s = this.carry + text
        const lines = s.split('\n', this.limits.sampleLines + 1)
        if (!final && lines.length <= this.limits.sampleLines && this.cfg.format === undefined && !this.decidesEarly(lines)) {
          this.carry = s
          return []
        }
        this.carry = ''
        this.detect(lines.slice(0, this.limits.sampleLines))
        if (lines.length <= this.limits.sampleLines && this.cfg.layout === undefined && (this.unknown || this.layout === 'none')) {
          this.provisional = true
          this.sampled = lines.length
        }
        return this.push(s, final)
      }
      text = this.unwrap(text, final)
    }
    const s = this.carry + text
    const base = this.carryLine
    this.carry = ''
    if (this.unknown) {
      const n = countLines(s, final)
      this.stats.lines += n
      this.stats.unparsed['unknown-format'] += n
      this.carryLine = base + n
      return []
    }
    return this.scan(s, base, final)
  }

  /** Flushes whatever is pending as complete (end of file, or the tailer's idle timeout). */
  end(): Signal[] {
    this.carry += this.partial
    this.partial = ''
    return this.push('', true)
  }

  /** Whether the complete lines read so far already settle layout and format (see earlySampleLines). */
  private decidesEarly(lines: readonly string[]): boolean {
    const early = this.limits.earlySampleLines
    if (early <= 0) return false
    const complete = lines.slice(0, -1).filter((l) => l.trim() !== '')
    if (complete.length >= early) return true
    if (complete.length === 0) return false
    const inner = unwrapSample(complete).lines
    const layout = this.cfg.layout ?? detectLayout(inner)
    if (layout === 'none') return false
    if (layout === 'jvm' || detectFormat(inner, layout) === 'gc') return true
    return inner.some((l) => readHeader(l, layout, UTC, 0)?.logger !== undefined)
  }

  private detect(sample: string[]): void {
    this.detected = true
    const unwrapped = unwrapSample(sample)
    this.wrapper = unwrapped.wrapper
    this.linePrefix = unwrapped.linePrefix
    const lines = unwrapped.lines
    // A file declared a GC log is read in the JVM's layout even when stdout mixed in dated log4j lines.
    if (this.layout === undefined) this.layout = this.cfg.format === 'gc' ? 'jvm' : detectLayout(lines)
    if (this.format === undefined) this.format = detectFormat(lines, this.layout)
    if (this.format === undefined && this.layout === 'none') this.format = matchedFormat(lines)
    if (this.format === undefined) {
      this.unknown = true
      return
    }
    if (this.format === 'gc' && this.layout === 'none') this.layout = 'jvm'
    this.set = matchersFor(this.format)
    this.prefilter = genericPrefilter(this.set)
    // Learned and undated layouts write an error's level in more ways than " ERROR " ([ERROR], "level":"ERROR",
    // ERROR:kafka.conn:, librdkafka's %3|): their error lines are found too, so unknown wording still counts.
    if (this.layout === 'none' || this.layout?.startsWith('learned:')) {
      this.prefilter = { ...this.prefilter, level: new RegExp(`${this.prefilter.level.source}|${LEARNED_ERROR_LEVEL.source}`, 'g') }
    }
    if (this.format === 'gc' && this.anchor === undefined) {
      for (const l of lines) {
        const h = readJvmHeader(l, this.zone)
        if (h?.at !== undefined && h.uptimeMs !== undefined) {
          this.anchor = h.at - h.uptimeMs
          break
        }
      }
    }
  }

  /**
   * A head flushed before a full sample was read (a tailer's idle timeout) may hold no dated line at
   * all, e.g. the tail of a stack trace: the layout found in it is a guess. Later chunks are looked at
   * until one shows a dated layout, which replaces the guess, or a full sample has gone by.
   */
  private redetect(text: string): void {
    const lines = text.split('\n', this.limits.sampleLines)
    this.sampled += lines.length
    const inner = this.wrapper ? lines.map((l) => unwrapLine(l, this.wrapper!, this.linePrefix)?.inner ?? l) : lines
    if (detectLayout(inner) !== 'none') {
      this.provisional = false
      this.layout = this.cfg.layout
      this.format = this.cfg.format
      this.unknown = false
      this.detect(lines)
    } else if (this.sampled >= this.limits.sampleLines) {
      this.provisional = false
    }
  }

  /** Removes container wrappers, joining CRI/json-file partial pieces; keeps one output line per input line. */
  private unwrap(text: string, final: boolean): string {
    const w = this.wrapper
    if (w === undefined || text === '') return text
    const lines = text.split('\n')
    const last = lines.pop() ?? ''
    if (last !== '') lines.push(last)
    const out: string[] = []
    for (const line of lines) {
      const u = unwrapLine(line, w, this.linePrefix)
      if (!u) {
        out.push(line)
        continue
      }
      if (u.partial) {
        this.partial += u.inner
        out.push('')
      } else {
        out.push(this.partial + u.inner)
        this.partial = ''
      }
    }
    if (final && this.partial !== '') {
      out[out.length - 1] = this.partial
      this.partial = ''
    }
    return out.join('\n') + (last === '' || !final ? '\n' : '')
  }

  private scan(s: string, base: number, final: boolean): Signal[] {
    const layout = this.layout as LayoutName
    const set = this.set as MatcherSet
    const out: Signal[] = []
    let limit = s.length
    if (!final) {
      limit = lastHeaderStart(s, layout, this.limits.maxRecordLines)
      if (limit < 0) limit = s.length
    }
    let pos = 0
    let line = base
    let floor = 0
    const maxLine = this.limits.maxLineChars
    const advance = (to: number) => {
      while (pos < to) {
        const nl = s.indexOf('\n', pos)
        const end = nl < 0 || nl >= to ? to : nl
        if (end - pos > maxLine) this.stats.unparsed['line-too-long']++
        if (nl < 0 || nl >= to) {
          if (to === s.length && end > pos) line++
          pos = to
          break
        }
        pos = nl + 1
        line++
      }
    }
    const pre = this.prefilter as GenericPrefilter
    const re = pre.trigger
    const scanner = pre.scanner
    const levelRe = pre.level
    let levelAt = -1
    // Lines holding U+FFFD (invalid UTF-8) are skipped; one forward pointer keeps the check linear.
    let nextBad = s.indexOf('\ufffd')
    let from = 0
    for (;;) {
      let hit: number
      if (scanner) hit = scanner.next(s, from)
      else {
        re.lastIndex = from
        hit = re.exec(s)?.index ?? -1
      }
      // Level words ("] ERROR ") are found by a second, regex pass; its next hit is kept until passed.
      if (levelAt !== Infinity && levelAt < from) {
        levelRe.lastIndex = from
        levelAt = levelRe.exec(s)?.index ?? Infinity
      }
      if (levelAt < s.length && (hit < 0 || levelAt < hit)) hit = levelAt
      if (hit < 0 || hit >= limit) break
      const ls = hit === 0 ? 0 : s.lastIndexOf('\n', hit - 1) + 1
      if (ls < pos) {
        from = lineEnd(s, hit) + 1
        continue
      }
      advance(ls)
      const le = lineEnd(s, ls)
      if (nextBad >= 0 && nextBad < ls) nextBad = s.indexOf('\ufffd', ls)
      if (nextBad >= 0 && nextBad < le) {
        from = le + 1
        continue
      }
      let start = ls
      let startLine = line
      let orphan = false
      if (!isHeaderAt(s, ls, layout)) {
        // A trigger inside a stack trace belongs to the record above it; a line that still shows a
        // level after a mangled timestamp (seed 002's "018-03-24 13:43:00,285] INFO …") is a record
        // whose start was cut off, and so is a trigger line with no record above it.
        const hs = DAMAGED_HEADER.test(s.slice(ls, Math.min(le, ls + 48))) ? -1 : headerBefore(s, ls, floor, layout, this.limits.maxRecordLines)
        if (hs < 0) {
          // An exception with no record above it (JVM stdout before log4j, a file cut mid-way) is an
          // undated record of its own: its error still counts.
          orphan = ORPHAN_EXCEPTION.test(s.slice(ls, Math.min(le, ls + 512)))
          if (!orphan) {
            this.stats.unparsed['no-layout']++
            from = le + 1
            continue
          }
        } else {
          startLine = line - countNewlines(s, hs, ls)
          start = hs
        }
      }
      const end = recordEnd(s, start, layout, this.limits.maxRecordLines, limit)
      this.emit(s.slice(start, end), startLine, out, s, start, orphan)
      advance(end)
      floor = end
      from = end
    }
    advance(limit)
    this.countInvalid(s, limit)
    this.settleTimes(s, limit, layout, out, final)
    this.stats.lines += line - base
    this.carry = s.slice(limit)
    this.carryLine = line
    return out
  }

  private countInvalid(s: string, limit: number): void {
    let p = s.indexOf('\ufffd')
    let lastLine = -1
    while (p >= 0 && p < limit) {
      const ls = s.lastIndexOf('\n', p) + 1
      if (ls !== lastLine) this.stats.unparsed['invalid-utf8']++
      lastLine = ls
      p = s.indexOf('\ufffd', p + 1)
    }
  }

  private emit(text: string, lineNo: number, out: Signal[], chunk: string, offset: number, orphan = false): void {
    const maxLine = this.limits.maxLineChars
    const nl = text.indexOf('\n')
    let lines = nl < 0 || nl === text.length - 1 ? [nl < 0 ? text : text.slice(0, nl)] : text.split('\n')
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
    lines = lines.map((l) => (l.length > maxLine ? l.slice(0, maxLine) : l.endsWith('\r') ? l.slice(0, -1) : l))
    const layout = this.layout as LayoutName
    const header = readHeader(lines[0], layout, this.zone, this.anchor) ?? (orphan ? { message: lines[0].trim() } : undefined)
    if (!header) {
      this.stats.unparsed['no-layout']++
      return
    }
    if (this.format === 'gc' && this.cfg.jvmStart === undefined && header.at !== undefined && header.uptimeMs !== undefined) {
      this.anchor = header.at - header.uptimeMs
    }
    let at = header.at
    // A time of day without its date (a learned `HH:mm:ss,SSS` layout) is placed on the stand-in date.
    const byClock = at === undefined && header.timeOfDayMs !== undefined ? this.clockTime(header.timeOfDayMs) : undefined
    if (byClock !== undefined) at = byClock
    if (at === undefined && layout === 'none') {
      if (/^\d+ records sent, /.test(header.message)) this.progress++
      if (this.cfg.start !== undefined) at = this.cfg.start + PERF_REPORT_INTERVAL_MS * this.progress
    }
    this.stats.records++
    const rec: LogRecord = { header, lines }
    const drafts = this.match(rec, at)
    // No row knows the wording: an ERROR/FATAL record still names the component that failed.
    const component = drafts.length === 0 ? componentDraft(rec) : undefined
    if (component) drafts.push(component)
    const generic = genericDraft(rec, drafts.map((d) => d.name))
    if (generic) drafts.push(generic)
    if (header.at !== undefined) this.stampSeen(header.at, out)
    if (drafts.length === 0) return
    // A record written without a time takes the time of the timestamped line before it; before the
    // first one, it waits for the next (settleTimes), and a file with none at all uses `undatedAt`.
    if (at === undefined && layout !== 'none') at = this.timeBefore(chunk, offset, layout)
    const signals = this.toSignals(drafts, at ?? Number.NaN, lines, lineNo, header.message)
    if (byClock !== undefined) for (const sig of signals) sig.labels = { ...sig.labels, [TIME_UNKNOWN_LABEL]: 'true' }
    if (at === undefined) this.pending.drafts.push(...signals)
    else out.push(...signals)
  }

  private toSignals(drafts: Draft[], at: number, lines: readonly string[], lineNo: number, message: string): Signal[] {
    const named = this.cfg.broker === undefined && this.format !== 'client' ? brokerNamedIn(message) : undefined
    const out: Signal[] = []
    for (const d of drafts) {
      const sig: Signal = { name: d.name, at: d.atOffsetMs ? at + Math.round(d.atOffsetMs) : at, cluster: this.cfg.cluster, source: `log:${this.cfg.path}:${lineNo}` }
      const broker = d.broker ?? this.cfg.broker ?? named
      if (broker !== undefined) sig.broker = broker
      if (d.value !== undefined) sig.value = d.value
      if (d.labels && Object.keys(d.labels).length > 0) sig.labels = d.labels
      sig.text = d.line ? `${lines[0]}\n${lines[d.line].trim()}` : lines[0]
      if (GENERIC.has(d.name) && sig.text.length > GENERIC_TEXT_MAX) sig.text = `${sig.text.slice(0, GENERIC_TEXT_MAX - 1)}…`
      out.push(sig)
    }
    this.stats.signals += drafts.length
    return out
  }

  /**
   * Epoch ms of a time of day read without its date: on the day of `undatedAt` (replay: the file's
   * modification time), a day later each time the clock runs backwards by more than an hour. Its
   * signals are marked `time_unknown`: their gaps hold, their date is a stand-in. Undefined without
   * `undatedAt`, so the record waits for a dated line like any undated one.
   */
  private clockTime(timeOfDayMs: number): number | undefined {
    const base = this.cfg.undatedAt
    if (base === undefined) return undefined
    if (this.lastClock !== undefined && timeOfDayMs < this.lastClock - 3_600_000) this.clockDays++
    this.lastClock = timeOfDayMs
    const day = Math.floor((base + this.zone(base)) / 86_400_000) * 86_400_000
    const local = day + this.clockDays * 86_400_000 + timeOfDayMs
    return local - this.zone(local)
  }

  /** A timestamped line was read: it dates the undated records waiting before it. */
  private stampSeen(at: number, out: Signal[]): void {
    this.lastAt = at
    if (this.pending.drafts.length === 0) return
    for (const sig of this.pending.drafts) {
      sig.at = at
      out.push(sig)
    }
    this.pending.drafts = []
  }

  /** Time of the nearest timestamped record line before `offset` in this chunk, else the last one seen. */
  private timeBefore(s: string, offset: number, layout: LayoutName): number | undefined {
    const floor = Math.max(0, offset - NEIGHBOUR_LOOKBACK_CHARS)
    let p = offset
    while (p > floor) {
      const ls = s.lastIndexOf('\n', p - 2) + 1
      if (ls < floor) break
      if (isHeaderAt(s, ls, layout)) {
        const at = readHeader(s.slice(ls, lineEnd(s, ls)), layout, this.zone, this.anchor)?.at
        if (at !== undefined) return at
      }
      if (ls === 0) break
      p = ls
    }
    return this.lastAt
  }

  /**
   * After each chunk: undated records still waiting take the first timestamped line after them; the
   * last timestamp of the chunk is remembered for the next. At the end of the file, records that never
   * met a timestamp are placed at `undatedAt` in file order (1 ms apart) and marked `time_unknown`,
   * or counted as `no-timestamp` when no such time was given.
   */
  private settleTimes(s: string, limit: number, layout: LayoutName, out: Signal[], final: boolean): void {
    if (layout !== 'none' && this.pending.drafts.length > 0) {
      // Bounded: past that many lines the next stamp met (a later record, the chunk's last line) serves.
      for (let p = 0, k = 0; p < limit && k < this.limits.maxRecordLines; p = lineEnd(s, p) + 1, k++) {
        if (!isHeaderAt(s, p, layout)) continue
        const at = readHeader(s.slice(p, lineEnd(s, p)), layout, this.zone, this.anchor)?.at
        if (at !== undefined) {
          this.stampSeen(at, out)
          break
        }
      }
    }
    if (layout !== 'none') {
      let p = limit
      for (let k = 0; k < this.limits.maxRecordLines && p > 0; k++) {
        const ls = s.lastIndexOf('\n', p - 2) + 1
        if (isHeaderAt(s, ls, layout)) {
          const at = readHeader(s.slice(ls, lineEnd(s, ls)), layout, this.zone, this.anchor)?.at
          if (at !== undefined) {
            this.stampSeen(at, out)
            break
          }
        }
        if (ls === 0) break
        p = ls
      }
    }
    if (!final || this.pending.drafts.length === 0) return
    const base = this.cfg.undatedAt ?? this.cfg.start
    if (base === undefined) {
      this.stats.unparsed['no-timestamp'] += new Set(this.pending.drafts.map((d) => d.source)).size
      this.stats.signals -= this.pending.drafts.length
    } else {
      let lastSource = ''
      for (const sig of this.pending.drafts) {
        if (sig.source !== lastSource) this.undated++
        lastSource = sig.source
        sig.at = base + this.undated - 1
        sig.labels = { ...sig.labels, [TIME_UNKNOWN_LABEL]: 'true' }
        out.push(sig)
      }
    }
    this.pending.drafts = []
  }

  private match(rec: LogRecord, at: number | undefined): Draft[] {
    const set = this.set as MatcherSet
    const drafts: Draft[] = []
    const add = (r: Draft[] | Draft | undefined, line: number) => {
      if (!r) return
      for (const d of Array.isArray(r) ? r : [r]) drafts.push(line > 0 && d.line === undefined ? { ...d, line } : d)
    }
    const msg = rec.header.message
    const first = rec.lines[0]
    for (const mt of set.message) {
      if (!mayMatch(mt, first)) continue
      const m = mt.re.exec(msg)
      if (m) add(mt.build(m, rec, this.state, at), 0)
    }
    for (const mt of set.record) {
      for (let i = 0; i < rec.lines.length; i++) {
        const line = rec.lines[i]
        if (!mayMatch(mt, line)) continue
        const m = mt.re.exec(i === 0 ? msg : line)
        if (m) {
          add(mt.build(m, rec, this.state, at), i)
          break
        }
      }
    }
    return drafts
  }
}

function lineEnd(s: string, from: number): number {
  const nl = s.indexOf('\n', from)
  return nl < 0 ? s.length : nl
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0
  let p = s.indexOf('\n', from)
  while (p >= 0 && p < to) {
    n++
    p = s.indexOf('\n', p + 1)
  }
  return n
}

function countLines(s: string, final: boolean): number {
  if (s === '') return 0
  const n = countNewlines(s, 0, s.length)
  return final && !s.endsWith('\n') ? n + 1 : n
}

/** Start of the last line that opens a record (searching at most `max` lines back), or -1. */
function lastHeaderStart(s: string, layout: LayoutName, max: number): number {
  let p = s.endsWith('\n') ? s.length - 1 : s.length
  for (let k = 0; k <= max && p > 0; k++) {
    const ls = s.lastIndexOf('\n', p - 1) + 1
    if (isHeaderAt(s, ls, layout)) return ls
    if (ls === 0) return -1
    p = ls - 1
  }
  return -1
}

/** Start of the record line before `ls` (a continuation line), not before `floor`; -1 when none. */
function headerBefore(s: string, ls: number, floor: number, layout: LayoutName, max: number): number {
  let p = ls
  for (let k = 0; k < max && p > floor; k++) {
    const prev = s.lastIndexOf('\n', p - 2) + 1
    if (prev < floor) return -1
    if (isHeaderAt(s, prev, layout)) return prev
    p = prev
  }
  return -1
}

/** End (exclusive, after its newline) of the record starting at `start`: up to the next record's first line. */
function recordEnd(s: string, start: number, layout: LayoutName, max: number, limit: number): number {
  let p = lineEnd(s, start) + 1
  for (let k = 1; k < max && p < limit; k++) {
    if (isHeaderAt(s, p, layout)) return p
    p = lineEnd(s, p) + 1
  }
  return Math.min(p, s.length)
}

/** The outcome of parsing a whole text. */
export type ParseResult = { signals: Signal[]; stats: ParseStats; format?: LogFormat; layout?: LayoutName }

/** Parses a whole log held in memory (replay of a small file, tests). */
export function parseLogText(text: string, cfg: LogSourceConfig): ParseResult {
  const p = new LogParser(cfg)
  const signals = p.push(text, true)
  p.stats.bytes += Buffer.byteLength(text)
  return { signals, stats: p.stats, format: p.format, layout: p.layout }
}

/** Parses lines already split (e.g. from a signals topic); same as parseLogText on their join. */
export function parseLogLines(lines: readonly string[], cfg: LogSourceConfig): ParseResult {
  return parseLogText(lines.join('\n'), cfg)
}
