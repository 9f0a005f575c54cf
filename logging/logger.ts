import { inspect } from 'node:util'
import { pino, stdSerializers, type Logger as PinoLogger } from 'pino'
import { REDACTED, REDACTS, redactText } from '../secrets/redact.js'
import { formatPrettyRecord } from './pretty.js'

/**
 * The one logger of the long-running commands (serve, the bot, the agent): pino underneath, so a
 * log pipeline gets one JSON object per line with a level, an epoch-ms time and the ids of what the
 * line is about; a person at a terminal gets one readable line per record. Redaction is configured
 * here once, by field path and over all text, so no caller has to remember it.
 */

/** Levels from the noisiest; `silent` writes nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

/** A level name as `--log-level` and KAFKA_WHY_LOG_LEVEL take it. */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** JSON lines for pipelines, one readable line per record for people. */
export type LogFormat = 'json' | 'pretty'

/** Ids and context carried on every line of a child logger (alertId, requestId, cluster, …). */
export type LogFields = Record<string, unknown>

/**
 * The logging calls the code makes. Arguments are taken the way console takes them, so a caller
 * writes `log.error('digest failed', err)`: a leading plain object becomes fields, an Error becomes
 * `err` (type, message, stack), strings and other values make the message.
 */
export type Logger = {
  readonly level: LogLevel
  trace(...args: unknown[]): void
  debug(...args: unknown[]): void
  info(...args: unknown[]): void
  warn(...args: unknown[]): void
  error(...args: unknown[]): void
  fatal(...args: unknown[]): void
  /** A logger whose every line also carries `fields`. */
  child(fields: LogFields): Logger
  isLevelEnabled(level: LogLevel): boolean
}

/**
 * Field paths whose value is a secret whatever it looks like: a SASL password of six letters has no
 * shape to recognise. Matched at the top and one or two objects down (`sasl.password`,
 * `admin.sasl.password`); everything else is caught by the text scrub of every string value.
 */
export const REDACT_PATHS = [
  ...['password', 'passwd', 'token', 'secret', 'botToken', 'appToken', 'signingSecret', 'authorization', 'Authorization', 'apiKey'].flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
  'headers.cookie',
  '*.headers.cookie',
  '*.*.headers.cookie',
]

/** Where records go: a stream (stderr by default); `isTTY` picks the readable form when no format is forced. */
export type LogDestination = { write(chunk: string): unknown; isTTY?: boolean }

/** How to build a logger; every field has a default fit for `serve`. */
export type LoggerOptions = {
  level?: LogLevel
  format?: LogFormat
  destination?: LogDestination
  /** Colours in the readable form; default: on a TTY unless NO_COLOR is set. */
  colors?: boolean
  /** Fields on every line (the command's name). */
  bindings?: LogFields
  env?: NodeJS.ProcessEnv
}

/** Builds the logger; JSON unless the destination is a TTY or the format is forced. */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const env = opts.env ?? process.env
  const destination = opts.destination ?? process.stderr
  const format = opts.format ?? (destination.isTTY ? 'pretty' : 'json')
  const colors = opts.colors ?? (Boolean(destination.isTTY) && !env.NO_COLOR)
  const stream = format === 'pretty' ? { write: (line: string) => destination.write(formatPrettyRecord(line, { colors })) } : destination
  const base = pino(
    {
      level: opts.level ?? 'info',
      base: { pid: process.pid, ...opts.bindings },
      timestamp: pino.stdTimeFunctions.epochTime,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      serializers: { err: (e: unknown) => redactValue(e instanceof Error ? stdSerializers.err(e) : e) },
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (b) => redactValue(b) as Record<string, unknown>,
        log: (o) => redactValue(o) as Record<string, unknown>,
      },
      hooks: {
        // The message and its printf arguments: free text where a URL or token may sit.
        logMethod(args, method) {
          return method.apply(this, args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as Parameters<typeof method>)
        },
      },
    },
    stream,
  )
  return wrap(base)
}

/** Reads a level name; undefined when it is not one. */
export function parseLogLevel(text: string): LogLevel | undefined {
  const t = text.trim().toLowerCase()
  return (LOG_LEVELS as readonly string[]).includes(t) ? (t as LogLevel) : undefined
}

/**
 * The level and format a long-running command logs at: `--log-level` over KAFKA_WHY_LOG_LEVEL over
 * info; KAFKA_WHY_LOG_FORMAT forces json or pretty, else the destination decides. A bad value is a
 * one-line error for the caller to print as a usage error.
 */
export function logSettingsFrom(env: NodeJS.ProcessEnv, flagLevel?: string): { level: LogLevel; format?: LogFormat } | { error: string } {
  const [text, from] = flagLevel !== undefined ? [flagLevel, '--log-level'] : env.KAFKA_WHY_LOG_LEVEL ? [env.KAFKA_WHY_LOG_LEVEL, 'KAFKA_WHY_LOG_LEVEL'] : ['info', '']
  const level = parseLogLevel(text)
  if (!level) return { error: `${from}: '${text}' is not a level (${LOG_LEVELS.join(', ')})` }
  const f = env.KAFKA_WHY_LOG_FORMAT?.trim().toLowerCase()
  if (f && f !== 'json' && f !== 'pretty') return { error: `KAFKA_WHY_LOG_FORMAT: '${env.KAFKA_WHY_LOG_FORMAT}' is not json or pretty` }
  return { level, format: f ? (f as LogFormat) : undefined }
}

/**
 * A child of any log the code is handed: a real Logger gets a child with the fields, a plain
 * `{ info, warn, error }` (tests, the console) is returned as it is.
 */
export function childLog<L extends object>(log: L, fields: LogFields): L {
  const c = (log as { child?: (f: LogFields) => L }).child
  return typeof c === 'function' ? c.call(log, fields) : log
}

function wrap(p: PinoLogger): Logger {
  const at = (level: Exclude<LogLevel, 'silent'>) => (...args: unknown[]) => {
    if (!p.isLevelEnabled(level)) return
    const { fields, msg } = splitArgs(args)
    p[level](fields, msg)
  }
  return {
    [REDACTS]: true,
    get level() {
      return p.level as LogLevel
    },
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    // pino runs the bindings formatter for the root's bindings only, so a child's are scrubbed here.
    child: (fields) => wrap(p.child(redactValue(fields) as LogFields)),
    isLevelEnabled: (level) => level !== 'silent' && p.isLevelEnabled(level),
  } as Logger
}

/** console-style arguments → fields and a message (see Logger). */
function splitArgs(args: unknown[]): { fields: LogFields; msg: string } {
  const fields: LogFields = {}
  const parts: string[] = []
  args.forEach((a, i) => {
    if (i === 0 && isPlainObject(a)) Object.assign(fields, a)
    else if (typeof a === 'string') parts.push(a)
    else if (a instanceof Error && fields.err === undefined) fields.err = a
    else parts.push(inspect(a, { depth: 3, breakLength: Infinity }))
  })
  let msg = parts.join(' ')
  if (!msg && fields.err instanceof Error) msg = fields.err.message
  return { fields, msg }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/**
 * Every string in a record's fields through the text scrub (a URL with a password in `url`, a token
 * inside an error's message), Errors anywhere serialised first. Depth-limited and cycle-safe: a
 * library error may point back at its own request.
 */
function redactValue(v: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof v === 'string') return redactText(v)
  if (v === null || typeof v !== 'object') return v
  if (seen.has(v)) return '[circular]'
  if (depth > 6) return '[deep]'
  seen.add(v)
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1, seen))
  // pino's serialised error is not a plain object (it has its own prototype) but is walked the same.
  const entries = v instanceof Error ? Object.entries(stdSerializers.err(v)) : isPlainObject(v) ? Object.entries(v) : undefined
  if (!entries) return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of entries) out[k] = redactValue(x, depth + 1, seen)
  return out
}
