import { maskMessage, templateIdOf } from '../../engine/template-miner.js'
import { LiteralScanner } from './literal-scanner.js'
import type { Draft, LogRecord, MatcherSet } from './matchers.js'
import { isWarnFailure, warnFailureLiterals } from './warn-failures.js'
import { findTemplate } from './wording/lookup.js'

/**
 * Every error is a signal. A FATAL or ERROR record, a WARN record that carries an exception, an
 * uncaught exception the JVM printed and a JVM fatal-error banner each become one generic signal
 * (`log.fatal`, `log.error`, `log.warn_exception`), and so does a WARN record without an exception that
 * a wording-table statement reporting a failure wrote (`log.warn_failure`, warn-failures.ts), whether
 * or not a specific matcher also knows the
 * line: the diagnosis subtracts what rules explain and shows the rest as unexplained errors, so a
 * log that is screaming never yields an empty answer.
 */

/** The generic signal names, most severe first. */
export const GENERIC_SIGNALS = ['log.fatal', 'log.error', 'log.warn_exception', 'log.warn_failure'] as const

/** One of the generic signal names. */
export type GenericSignal = (typeof GENERIC_SIGNALS)[number]

/**
 * Record-scope literals for the prefilter: where an exception, its cause or a JVM banner is written.
 * All are 10+ characters so the literal scanner keeps its skip distance (see literal-scanner.ts).
 */
export const GENERIC_RECORD_LITERALS: readonly string[] = [
  'Exception:',
  'Exception ',
  'Exception\n',
  'Exception\r',
  'Caused by: ',
  // HotSpot vmError.cpp / os_*.cpp banner lines (JDK 8-21), printed to stdout.
  'A fatal error has been detected by the Java Runtime Environment',
  'There is insufficient memory for the Java Runtime Environment',
]

/**
 * The level words of a record's first line, as a regex run beside the literal scanner: V8 finds these
 * two short literals with a Boyer-Moore skip far faster than a 7-character literal would let the
 * scanner skip. Every layout writes the level between spaces (`] ERROR `, `,123 ERROR `).
 */
export const LEVEL_TRIGGER = / (?:ERROR|FATAL) /g

/** A cut of the evidence text: header line plus the telling cause, as the brief evidence line. */
export const GENERIC_TEXT_MAX = 2048

const LEVEL_OF: Record<string, GenericSignal | 'warn'> = { FATAL: 'log.fatal', ERROR: 'log.error', SEVERE: 'log.error', WARN: 'warn', WARNING: 'warn' }

/**
 * A Java class name ending like a Throwable: with its package (`java.io.IOException`,
 * `org.apache.kafka.common.errors.TimeoutException`, `java.lang.OutOfMemoryError`) or bare when it says
 * Exception (`KafkaStorageException`). Followed by ":" , the end, or a space; preceded by a space, ":"
 * or a parenthesis (a pasted line glues the trailing "(logger)" to the exception).
 */
const THROWABLE_RE = /(?:^|[\s:()])((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)|[A-Z][\w$]*Exception)(?=$|[:;,)\s])/
const CAUSED_BY_RE = /^\s*Caused by: (\S+?)(?::\s*(.*))?\s*$/
const FRAME_RE = /^\s*(?:at |\.\.\. \d+ (?:more|common frames omitted))/
const UNCAUGHT = 'Exception in thread "'
const BANNERS = ['A fatal error has been detected by the Java Runtime Environment', 'There is insufficient memory for the Java Runtime Environment']

/** How much of a masked wording the pattern label keeps: enough to read and to cluster on. */
const PATTERN_LABEL_MAX = 200

/** How much of a `Caused by:` message the root_cause label keeps. */
const ROOT_MESSAGE_HEAD = 120

/**
 * The generic signal of one record, or undefined when the record is not an error. `specific` are the
 * names of the specific signals the matchers found in the same record: they are kept as the
 * `signals` label, so the diagnosis can tell which errors the matched rules already account for.
 */
export function genericDraft(rec: LogRecord, specific: readonly string[]): Draft | undefined {
  const level = rec.header.level ? LEVEL_OF[rec.header.level.toUpperCase()] : undefined
  const lines = rec.lines
  let exceptionLine = -1
  let exception: string | undefined
  let rootLine = -1
  let root: string | undefined
  let bannerLine = -1
  let uncaughtLine = -1
  for (let i = 0; i < lines.length; i++) {
    const line = i === 0 ? rec.header.message : lines[i]
    if (i > 0 && FRAME_RE.test(line)) continue
    const c = CAUSED_BY_RE.exec(line)
    if (c) {
      rootLine = i
      const head = (c[2] ?? '').trim()
      root = head ? `${c[1]}: ${head.length > ROOT_MESSAGE_HEAD ? `${head.slice(0, ROOT_MESSAGE_HEAD - 1)}…` : head}` : c[1]
      if (exception === undefined) {
        exception = c[1]
        exceptionLine = i
      }
      continue
    }
    if (bannerLine < 0 && BANNERS.some((b) => line.includes(b))) bannerLine = i
    if (uncaughtLine < 0 && line.includes(UNCAUGHT)) uncaughtLine = i
    if (exception === undefined) {
      const t = THROWABLE_RE.exec(line)
      if (t) {
        exception = t[1]
        exceptionLine = i
      }
    }
  }
  let name: GenericSignal | undefined
  let about = 0
  if (level === 'log.fatal' || bannerLine >= 0) {
    name = 'log.fatal'
    if (level !== 'log.fatal') about = bannerLine
  } else if (level === 'log.error') name = 'log.error'
  else if (uncaughtLine >= 0) {
    name = 'log.error'
    about = uncaughtLine
  } else if (level === 'warn' && exception !== undefined) name = 'log.warn_exception'
  else if (level === undefined && rec.header.level === undefined && exceptionLine === 0) name = 'log.error'
  // A WARN without an exception counts when the statement that wrote it reports a failure in words and no
  // matcher row knows the line (its specific signal carries it to the rules).
  let found: ReturnType<typeof findTemplate> | null = null
  if (!name && level === 'warn' && specific.length === 0) {
    found = findTemplate(rec.header.message, rec.header.logger)
    if (found && identifies(found.template) && isWarnFailure(found.id)) name = 'log.warn_failure'
  }
  if (!name) return undefined

  // The wording the signal is about: the record's message, or the continuation line (JVM stdout) that
  // made it an error when the record itself is an INFO line the banner or uncaught exception followed.
  const message = about === 0 ? rec.header.message : lines[about].trim()
  const logger = about === 0 ? rec.header.logger : undefined
  const labels: Record<string, string> = {}
  const entry = found ?? findTemplate(message, logger)
  if (entry && identifies(entry.template)) labels.template = entry.id
  else {
    const masked = maskMessage(message)
    labels.template = templateIdOf(masked)
    labels.pattern = masked.length > PATTERN_LABEL_MAX ? masked.slice(0, PATTERN_LABEL_MAX) : masked
  }
  if (logger) labels.logger = logger
  if (exception) labels.exception = exception
  if (root) labels.root_cause = root
  Object.assign(labels, entitiesOf(message))
  const names = [...new Set(specific)].filter((n) => !(GENERIC_SIGNALS as readonly string[]).includes(n)).sort()
  if (names.length) labels.signals = names.join(',')
  const draft: Draft = { name, labels }
  const telling = rootLine > 0 ? rootLine : about > 0 ? about : exceptionLine > 0 ? exceptionLine : -1
  if (telling > 0) draft.line = telling
  return draft
}

/** Literal letters a catalogue template needs to name a wording; `{}` or `{}: {}` says nothing. */
const MIN_TEMPLATE_LETTERS = 8

/**
 * True when a catalogue template is worded enough to stand for its lines. A statement that logs a
 * message built elsewhere (`error(msg, e)`, template `{}`) matches every line of its logger: those
 * lines are told apart by their mined template instead.
 */
function identifies(template: string): boolean {
  let letters = 0
  for (const part of template.split('{}')) letters += part.replace(/[^A-Za-z]/g, '').length
  return letters >= MIN_TEMPLATE_LETTERS
}

/**
 * The topic, partition, consumer group, other broker and file path a message names, where its
 * wording makes them recognisable (Kafka's own phrasing from 0.10 to 4.x).
 */
export function entitiesOf(message: string): Record<string, string> {
  const out: Record<string, string> = {}
  const tp =
    /\[Partition (\S+?) broker=\d+\]/.exec(message)?.[1] ??
    /\bpartition=([^,\]\s]+)/.exec(message)?.[1] ??
    /\b(?:topic-)?partitions? ([\w.-]+-\d+)\b/.exec(message)?.[1] ??
    /\b(?:to|for|of) ([\w.-]+-\d+) in (?:log )?dir\b/.exec(message)?.[1]
  const split = tp ? /^(.+)-(\d+)$/.exec(tp) : null
  if (split) {
    out.topic = split[1]
    out.partition = split[2]
  } else {
    const bracket = /Partition \[([^,\]]+),(\d+)\]/.exec(message)
    if (bracket) {
      out.topic = bracket[1]
      out.partition = bracket[2]
    } else {
      const topic = /\btopic[= ]([\w.-]+)/.exec(message)?.[1] ?? /\b(?:to|for) ([\w.-]+) in (?:log )?dir\b/.exec(message)?.[1]
      if (topic) out.topic = topic
    }
  }
  const group = /\bgroup(?:Id)?[= ]([\w.-]+)/.exec(message)?.[1]
  if (group && group !== 'coordinator' && group !== 'metadata') out.group = group
  const node = /\b(?:node|leaderId=|targetBrokerId=|to broker|from broker|leader broker) ?(\d+)\b/.exec(message)?.[1]
  if (node) out.node = node
  const p = /\bin (?:log )?dir (\/\S+?)(?=[\s,;)]|$)/.exec(message)?.[1] ?? /(?:^|[\s=('"])(\/[\w.@+-]+(?:\/[\w.@+-]+)+)/.exec(message)?.[1]
  if (p) out.path = p
  return out
}

/** The prefilter of a matcher set widened by the generic triggers (level words run beside it). */
export type GenericPrefilter = { scanner?: LiteralScanner; trigger: RegExp; level: RegExp }

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r')

/**
 * The matcher set's prefilter plus the generic record literals, as one literal scanner (when the set
 * had one) or one regex, and a fresh level regex. Built once per file.
 */
export function genericPrefilter(set: MatcherSet): GenericPrefilter {
  const literals = [...new Set([...[...set.message, ...set.record].flatMap((m) => m.literals), ...GENERIC_RECORD_LITERALS, ...warnFailureLiterals()])]
  // The scanner skips at most its shortest literal's length per step: one 8-character literal halves
  // its speed over every line. Short literals join the level words' regex pass instead.
  const long = literals.filter((l) => l.length >= SCAN_SKIP_LITERAL)
  const short = literals.filter((l) => l.length < SCAN_SKIP_LITERAL)
  const scanned = set.scanner !== undefined && long.length > 0
  return {
    scanner: scanned ? new LiteralScanner(long) : undefined,
    trigger: new RegExp(`${set.trigger.source}|${GENERIC_RECORD_LITERALS.map(escapeRe).join('|')}`, 'g'),
    level: new RegExp([LEVEL_TRIGGER.source, ...(scanned ? short.map(escapeRe) : [])].join('|'), 'g'),
  }
}

/** Literals at least this long are found by the skip-ahead scanner; shorter ones by the regex pass. */
const SCAN_SKIP_LITERAL = 10

/** The generic triggers as POSIX ERE alternatives, for `grep -E` baselines (a line ends where "\n" was). */
export function genericTriggersEre(): string {
  const lits = GENERIC_RECORD_LITERALS.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\n\r]$/, '$'))
  return [...new Set([...lits, ' (ERROR|FATAL) '])].join('|')
}
