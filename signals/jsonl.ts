import { lookupSignal } from './catalogue.js'
import type { Signal } from './signal.js'
import { SIGNAL_LIMITS } from './signal-limits.js'
import { redactRepeated, redactText } from '../secrets/redact.js'

/**
 * Recorded signals as JSON Lines: one Signal object per line, so an incident (metric scrapes,
 * configs, facts) can be stored and replayed without any log parser.
 *
 * ```
 * {"name":"safepoint.sync","at":"2018-08-13T22:08:51.112-04:00","cluster":"prod","broker":"1","value":3301,"source":"gc:broker-1/gc.log:88"}
 * {"name":"config.segment_ms","at":1534212531000,"cluster":"prod","broker":"1","value":100,"labels":{"topic":"orders"}}
 * ```
 *
 * - `at`: epoch milliseconds, or an ISO-8601 date-time *with* an offset (`Z`, `+08:00`, `-0400`).
 * - `broker`: a string; a non-negative integer is accepted and turned into its decimal text.
 * - `value`: a finite number in the catalogue's base unit; gauges and facts must carry one.
 * - `labels`: an object of string values.
 * - `source`: when the key is absent the line's own position (`jsonl:<file>:<line>`) is used, which
 *   also makes replaying the same file twice idempotent.
 * - Blank lines are skipped. Any other bad line is rejected, counted by reason, and reported with its
 *   line number; one bad line never stops the rest of the file.
 */

/** Why a signal was refused. Stable text: it is a counter key in AppendResult.rejected. */
export type RejectReason =
  | 'invalid JSON'
  | 'not an object'
  | 'missing name'
  | 'unknown signal'
  | 'invalid at'
  | 'missing cluster'
  | 'invalid broker'
  | 'invalid value'
  | 'missing value'
  | 'invalid labels'
  | 'missing source'
  | 'invalid text'
  | 'cluster too long'
  | 'too many labels'
  | 'label too long'
  | 'source too long'

/** Outcome of validating one untrusted object; `detail` says which value was wrong, for people. */
export type SignalValidation = { ok: true; signal: Signal } | { ok: false; reason: RejectReason; detail?: string }

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i

/**
 * Turns an `at` given as epoch ms or ISO-8601 text into epoch ms. Text without an offset is refused:
 * guessing a zone would silently move evidence by hours.
 */
export function parseAt(at: unknown): number | undefined {
  if (typeof at === 'number') return Number.isFinite(at) ? at : undefined
  if (typeof at !== 'string' || !ISO_WITH_OFFSET.test(at.trim())) return undefined
  let text = at.trim().replace(' ', 'T').replace(',', '.')
  // Date.parse wants "+hh:mm"; accept the compact "+hhmm" and "+hh" forms too.
  text = text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(/([+-]\d{2})$/, '$1:00')
  // Date.parse keeps milliseconds only; sub-millisecond digits are dropped before parsing.
  text = text.replace(/(\.\d{3})\d+/, '$1')
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : undefined
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/**
 * A refused field's value for the error detail. Untrusted JSON can hold objects whose `toString` is not
 * a function (`{"toString": false}`), on which String() throws; JSON text never does.
 */
function describeValue(v: unknown): string {
  if (typeof v === 'string') return v.slice(0, 80)
  if (typeof v !== 'object' || v === null) return String(v)
  let text: string
  try {
    text = JSON.stringify(v) ?? typeof v
  } catch {
    text = Array.isArray(v) ? 'an array' : 'an object'
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/**
 * Checks an untrusted value against the Signal contract and the catalogue and returns a normalised
 * signal (numeric `at`, text broker, no undefined or unknown keys; text cut and every text field
 * redacted; the labels object is shared with the input, not copied, unless redaction changed a value,
 * because this runs for every ingested signal). Stores and the JSONL reader call it so that a bad signal is
 * refused whole, never half-stored.
 */
export function validateSignal(x: unknown): SignalValidation {
  if (!isObject(x)) return { ok: false, reason: 'not an object' }
  const { name, at, cluster, broker, value, labels, source, text } = x
  if (typeof name !== 'string' || name === '') return { ok: false, reason: 'missing name' }
  const entry = lookupSignal(name)
  if (!entry) return { ok: false, reason: 'unknown signal', detail: name }
  const atMs = parseAt(at)
  if (atMs === undefined) return { ok: false, reason: 'invalid at', detail: describeValue(at) }
  if (typeof cluster !== 'string' || cluster === '') return { ok: false, reason: 'missing cluster' }
  if (cluster.length > SIGNAL_LIMITS.clusterChars) return { ok: false, reason: 'cluster too long', detail: `${cluster.length} characters, at most ${SIGNAL_LIMITS.clusterChars}` }
  let brokerText: string | undefined
  if (broker !== undefined) {
    if (typeof broker === 'string' && broker !== '') brokerText = broker
    else if (typeof broker === 'number' && Number.isSafeInteger(broker) && broker >= 0) brokerText = String(broker)
    else return { ok: false, reason: 'invalid broker', detail: describeValue(broker) }
  }
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    return { ok: false, reason: 'invalid value', detail: describeValue(value) }
  }
  if (value === undefined && entry.kind !== 'event') return { ok: false, reason: 'missing value', detail: `${entry.kind} ${name}` }
  let labelCount = 0
  let labelChars = 0
  let redactedLabels: Record<string, string> | undefined
  if (labels !== undefined) {
    if (!isObject(labels)) return { ok: false, reason: 'invalid labels' }
    for (const k in labels) {
      if (!Object.hasOwn(labels, k)) continue
      const v = labels[k]
      if (typeof v !== 'string') return { ok: false, reason: 'invalid labels', detail: k }
      if (++labelCount > SIGNAL_LIMITS.labels) return { ok: false, reason: 'too many labels', detail: `at most ${SIGNAL_LIMITS.labels}` }
      labelChars += k.length + v.length
      if (k.length > SIGNAL_LIMITS.labelKeyChars || v.length > SIGNAL_LIMITS.labelValueChars || labelChars > SIGNAL_LIMITS.labelsChars) {
        return { ok: false, reason: 'label too long', detail: `${k.slice(0, 40)}: names at most ${SIGNAL_LIMITS.labelKeyChars}, values at most ${SIGNAL_LIMITS.labelValueChars}, all together at most ${SIGNAL_LIMITS.labelsChars} characters` }
      }
      const clean = redactRepeated(v)
      if (clean !== v) (redactedLabels ??= { ...(labels as Record<string, string>) })[k] = clean
    }
  }
  if (typeof source !== 'string' || source === '') return { ok: false, reason: 'missing source' }
  if (source.length > SIGNAL_LIMITS.sourceChars) return { ok: false, reason: 'source too long', detail: `${source.length} characters, at most ${SIGNAL_LIMITS.sourceChars}` }
  if (text !== undefined && typeof text !== 'string') return { ok: false, reason: 'invalid text' }
  // What is stored goes through the same redaction as everything shown: a password a broker logged
  // never reaches the store, its template labels, or a reply built from them.
  const signal: Signal = { name, at: atMs, cluster, source: redactText(source) }
  if (brokerText !== undefined) signal.broker = brokerText
  if (value !== undefined) signal.value = value as number
  if (labelCount > 0) signal.labels = redactedLabels ?? (labels as Record<string, string>)
  // Redacted before it is cut, so a secret straddling the cut is not kept by its first half; only
  // twice what is kept is read, whatever the line's length.
  if (text !== undefined) signal.text = capText(redactText((text as string).slice(0, SIGNAL_LIMITS.textChars * 2)))
  return { ok: true, signal }
}

/** The text cut to SIGNAL_LIMITS.textChars (ending in "…"), never splitting a surrogate pair; the same string when it fits. */
export function capText(text: string): string {
  if (text.length <= SIGNAL_LIMITS.textChars) return text
  let end = SIGNAL_LIMITS.textChars - 1
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return text.slice(0, end) + '…'
}

/** One refused line, with enough position to fix it. */
export type JsonlReject = { file: string; line: number; reason: RejectReason; detail?: string }

/** A whole file's worth: what to store, and what to tell the person who recorded it. */
export type JsonlParse = {
  signals: Signal[]
  /** Every refused line in file order. */
  rejects: JsonlReject[]
  /** The same refusals counted by reason, the shape AppendResult.rejected uses. */
  rejected: Record<string, number>
}

/**
 * Reads a recorded-signals file. Never throws: each line is accepted whole or refused with its line
 * number and reason, so a corrupt line costs one signal, not the incident.
 */
export function parseSignalsJsonl(text: string, file: string): JsonlParse {
  const signals: Signal[] = []
  const rejects: JsonlReject[] = []
  const rejected: Record<string, number> = {}
  const reject = (line: number, reason: RejectReason, detail?: string) => {
    rejects.push(detail === undefined ? { file, line, reason } : { file, line, reason, detail })
    rejected[reason] = (rejected[reason] ?? 0) + 1
  }
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim()
    if (raw === '') continue
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch (err) {
      reject(i + 1, 'invalid JSON', (err as Error).message)
      continue
    }
    if (isObject(parsed) && !('source' in parsed)) parsed = { ...parsed, source: `jsonl:${file}:${i + 1}` }
    const result = validateSignal(parsed)
    if (result.ok) signals.push(result.signal)
    else reject(i + 1, result.reason, result.detail)
  }
  return { signals, rejects, rejected }
}
