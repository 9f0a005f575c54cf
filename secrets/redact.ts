import { inspect } from 'node:util'

/**
 * The one redaction step between the process and anything a person or a scraper reads: logs,
 * /metrics, /healthz, stored signal sources, Slack. Slack and HTTP client errors carry the bot token
 * in their request config and headers, and scrape URLs may carry a password; both are scrubbed here
 * by shape, and every secret the config resolved is scrubbed by value, so a secret is never printed
 * whatever library wrapped it.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]'

// Slack tokens: bot (xoxb-), user (xoxp-), app-level (xapp-), and the other xox? kinds.
const SLACK_TOKEN = /\bx(?:ox[abposre]|app)-[A-Za-z0-9-]{6,}/g
// HTTP credentials in headers and in inspected request configs.
const AUTH_HEADER = /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi
// user:password@ (or user@) in any scheme://; the host stays readable.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi
// Slack request signatures: a valid one is a credential for five minutes.
const SLACK_SIGNATURE = /\bv0=[0-9a-f]{64}\b/g
// key=value and "key": "value" forms of obviously secret fields (form bodies, JSON, inspected objects).
// An errno code after the colon is a reason, not a value ("cannot read '/run/secrets/kafka-password':
// ENOENT"), and is kept so a missing secret file says why.
const SECRET_FIELD = /((?:password|passwd|secret|token|signing_secret|client_secret|api[_-]?key)["']?\s*[:=]\s*["']?)(?!(?:ENOENT|EACCES|EPERM|EISDIR|ENOTDIR|ELOOP|EMFILE|ENFILE|ENAMETOOLONG|EIO)\b)([^\s"',&}]{3,})/gi

const known = new Set<string>()

/**
 * Remembers a secret's exact value (a resolved SASL password, a signing secret), so it is redacted
 * even where its shape says nothing. Values under 6 characters are not registered: redacting every
 * "1234" in the logs would hide more than it protects, and such a secret is not one anyway.
 */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 6) return
  memo.clear()
  known.add(value)
  // The same secret as Slack mrkdwn and JSON text carry it, so an escaped copy is caught too.
  const escaped = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  if (escaped !== value) known.add(escaped)
  const json = JSON.stringify(value).slice(1, -1)
  if (json !== value) known.add(json)
}

const USERINFO_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"<>]*:([^\s/?#@'"<>]+)@/gi

/**
 * Registers the password of every `scheme://user:password@host` in a text (REDIS_URL,
 * REDIS_CLUSTER_NODES), decoded as the client will send it: the URL shape is redacted anyway, but a
 * broker line may carry the bare password (`requirepass …`, a dumped client config).
 */
export function registerUrlPasswords(text: string | undefined): void {
  if (!text) return
  for (const m of text.matchAll(USERINFO_PASSWORD)) {
    registerSecret(m[1])
    try {
      registerSecret(decodeURIComponent(m[1]))
    } catch {
      // A malformed %-escape: the raw form is registered above.
    }
  }
}

// Something every shape above starts with: a text holding none of these needs no regex pass. This
// runs for every stored signal's text, source and labels, where the five passes cost 20x the check.
const ANY_SHAPE = /x(?:ox[abposre]|app)-|bearer|basic|:\/\/|v0=|passw|secret|token|api[_-]?key/i

const MEMO_MAX = 20_000
const memo = new Map<string, string>()

/**
 * redactText for short texts that repeat (label values: topics, groups, loggers, patterns): each
 * distinct value is redacted once. Forgotten whenever a secret is registered.
 */
export function redactRepeated(text: string): string {
  if (text.length > 512) return redactText(text)
  let out = memo.get(text)
  if (out === undefined) {
    if (memo.size >= MEMO_MAX) memo.clear()
    out = redactText(text)
    memo.set(text, out)
  }
  return out
}

/** Scrubs every known secret and every secret-shaped string from a text. */
export function redactText(text: string): string {
  let out = text
  for (const s of known) if (out.includes(s)) out = out.split(s).join(REDACTED)
  if (!ANY_SHAPE.test(out)) return out
  return out
    .replace(SLACK_TOKEN, (t) => `${t.slice(0, 5)}${REDACTED}`)
    .replace(AUTH_HEADER, (_, kind: string, space: string) => `${kind}${space}${REDACTED}`)
    .replace(URL_USERINFO, (_, scheme: string) => `${scheme}${REDACTED}@`)
    .replace(SLACK_SIGNATURE, `v0=${REDACTED}`)
    .replace(SECRET_FIELD, (_, key: string) => `${key}${REDACTED}`)
}

/** A URL as it may be shown or stored: credentials replaced, everything else as written. */
export function redactUrl(url: string): string {
  return redactText(url)
}

/**
 * Formats log arguments the way console does (errors with their stack and properties, objects
 * inspected a few levels deep) and redacts the result. Library errors are inspected, not trusted to
 * have a safe message: the token usually sits in `config.headers`, not in `message`.
 */
export function formatRedacted(...args: unknown[]): string {
  return redactText(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 3, breakLength: Infinity }))).join(' '))
}

/** The logger shape serve, the bot and the console share. */
export type Log = { error(...args: unknown[]): void; warn(...args: unknown[]): void; info(...args: unknown[]): void; debug?(...args: unknown[]): void; trace?(...args: unknown[]): void }

/**
 * Marks a logger that redacts every record itself (logging/logger.ts): wrapping it again would
 * flatten its structured fields into one string for nothing.
 */
export const REDACTS = Symbol.for('kafka-why.log.redacts')

/** Wraps a logger so every line it writes has been through redaction; a redacting logger is returned as it is. */
export function redactingLog<L extends Log>(base: L): L
export function redactingLog(base?: Log): Log
export function redactingLog(base: Log = { error: console.error, warn: console.warn, info: console.log }): Log {
  if ((base as { [REDACTS]?: boolean })[REDACTS]) return base
  return {
    error: (...a) => base.error(formatRedacted(...a)),
    warn: (...a) => base.warn(formatRedacted(...a)),
    info: (...a) => base.info(formatRedacted(...a)),
  }
}
