/**
 * Log templates for lines no catalogue entry names. Two steps, both pure:
 *
 * 1. `maskMessage` replaces the variable parts of one message (numbers, hex and UUID ids, IPs,
 *    paths, durations) by typed placeholders, and `templateIdOf` hashes the result. This runs per line
 *    in the log adapter, so the id is a function of the line alone: the same wording gets the same id
 *    in every file, process and day, which is what "a template absent from the day before" needs.
 * 2. `TemplateMiner` clusters masked templates the way Drain does (same token count and leading
 *    token, then a similarity threshold, differing positions become `<*>`), so wordings that differ in
 *    a name the masker cannot know (a topic, a client id) still end up as one row.
 *
 * Ten thousand repetitions of one line are one masked template after step 1; step 2 only merges the
 * few distinct templates of a window, so its cost does not grow with the number of lines.
 */

import { redactText } from '../secrets/redact.js'

/** The placeholder Drain puts where clustered templates differ. */
export const WILDCARD = '<*>'

/** Masked messages are cut here: a 2 KiB request dump says nothing more about the wording. */
const MAX_MASKED_CHARS = 400

const TOKEN_EDGE = /^([(\[{"'<,;]*)(.*?)([)\]}"'>,;:.]*)$/s
const IP_TOKEN = /^\/?(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?$|^\/?\[?(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\]?(?::\d+)?$/i
const PATH_TOKEN = /^(?:[A-Za-z]:)?[\\/][^\s]*[\\/.][^\s]*$/
const DURATION_TOKEN = /^\d+(?:[.,]\d+)?(?:ns|us|µs|ms|s|m|h|d|sec|secs|seconds?|millis|milliseconds?)$/
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
const HEX_RE = /\b0x[0-9a-f]+\b|(?<![A-Za-z0-9])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?![A-Za-z0-9])/gi
const BASE64_ID_RE = /(?<![A-Za-z0-9])(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g
const NUMBER_RE = /(?:(?<![A-Za-z0-9_])-)?\d+(?:[.,]\d+)*/g

/** Masks one whitespace-free token; keeps punctuation around it so the wording stays readable. */
function maskToken(token: string): string {
  const m = TOKEN_EDGE.exec(token)
  const [pre, core, post] = m ? [m[1], m[2], m[3]] : ['', token, '']
  if (core === '') return token
  if (IP_TOKEN.test(core) && /\d/.test(core) && (core.includes('.') || core.includes('::') || core.split(':').length > 4)) return `${pre}<ip>${post}`
  if (PATH_TOKEN.test(core)) return `${pre}<path>${post}`
  if (DURATION_TOKEN.test(core)) return `${pre}<dur>${post}`
  if (!/\d/.test(core)) return token
  const eq = core.indexOf('=')
  if (eq > 0 && eq < core.length - 1 && !core.includes('{')) return `${pre}${core.slice(0, eq + 1)}${maskToken(core.slice(eq + 1))}${post}`
  const masked = core.replace(UUID_RE, '<id>').replace(BASE64_ID_RE, '<id>').replace(HEX_RE, '<hex>').replace(NUMBER_RE, '<num>')
  return `${pre}${masked}${post}`
}

/**
 * The wording of a message with its variable parts masked: `Error while appending records to
 * LoadTestingTopic-1 in dir /broder/log` → `… LoadTestingTopic-<num> in dir <path>`. Whitespace runs
 * become one space. Deterministic; never throws.
 */
export function maskMessage(message: string): string {
  // Redacted before masking: a masked secret ('s3cret-<num>') no longer matches its registered value,
  // yet the pattern label that carries it is stored and shown.
  const words = redactText(message.slice(0, MAX_MASKED_CHARS * 4)).slice(0, MAX_MASKED_CHARS * 2).split(/\s+/).filter((w) => w !== '')
  const out = words.map(maskToken).join(' ')
  return out.length > MAX_MASKED_CHARS ? out.slice(0, MAX_MASKED_CHARS) : out
}

/** 32-bit FNV-1a over UTF-16 code units, as 8 hex digits: short, stable, no dependency. */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, '0')
}

/** The id of a masked template ("m-1a2b3c4d"); the prefix tells it from a catalogue entry's id. */
export function templateIdOf(masked: string): string {
  return `m-${fnv1a(masked)}`
}

/** One input to the miner: a masked template (or any token text) and what it stands for. */
export type MinerInput<T> = { masked: string; item: T }

/** A cluster the miner found: its template (with `<*>` where members differ) and its members. */
export type MinedTemplate<T> = { id: string; template: string; items: T[] }

/** Options of the Drain-style miner. */
export type MinerOptions = {
  /** Share of equal tokens (0..1) from which a template joins a cluster; Drain's default is 0.4–0.5. */
  similarity?: number
  /** Leading tokens that must be equal (Drain's parse-tree depth minus the length layer). */
  prefixTokens?: number
}

const isVariable = (t: string) => t.startsWith('<') && t.endsWith('>')

type Cluster<T> = { tokens: string[]; items: T[] }

/**
 * Drain (He et al., ICWS 2017), without its online state: templates are bucketed by token count and
 * their first `prefixTokens` tokens (a variable token sends a template to the `<*>` branch, as in
 * Drain); within a bucket each joins the most similar cluster when the share of positions with equal
 * tokens reaches `similarity`, the differing positions becoming `<*>`. Feed inputs in a stable order
 * (the caller sorts them): the result, and each cluster's id (a hash of its final template), then
 * depend on the inputs alone.
 */
export class TemplateMiner<T> {
  private readonly similarity: number
  private readonly prefixTokens: number
  private readonly buckets = new Map<string, Cluster<T>[]>()
  private readonly order: Cluster<T>[] = []

  constructor(opts: MinerOptions = {}) {
    this.similarity = opts.similarity ?? 0.5
    this.prefixTokens = opts.prefixTokens ?? 1
    if (!(this.similarity > 0 && this.similarity <= 1)) throw new RangeError(`similarity must be in (0, 1], got ${this.similarity}`)
  }

  /** Adds one masked template. */
  add(input: MinerInput<T>): void {
    const tokens = input.masked.split(' ').filter((t) => t !== '')
    const prefix = tokens.slice(0, this.prefixTokens).map((t) => (isVariable(t) ? WILDCARD : t))
    const key = `${tokens.length}\u0000${prefix.join('\u0000')}`
    let bucket = this.buckets.get(key)
    if (!bucket) this.buckets.set(key, (bucket = []))
    let best: Cluster<T> | undefined
    let bestSim = -1
    for (const c of bucket) {
      const sim = similarityOf(c.tokens, tokens)
      if (sim > bestSim) {
        best = c
        bestSim = sim
      }
    }
    if (best && (tokens.length === 0 || bestSim >= this.similarity)) {
      for (let i = 0; i < tokens.length; i++) if (best.tokens[i] !== tokens[i]) best.tokens[i] = WILDCARD
      best.items.push(input.item)
      return
    }
    const created: Cluster<T> = { tokens: [...tokens], items: [input.item] }
    bucket.push(created)
    this.order.push(created)
  }

  /** The clusters in the order they were first seen. */
  templates(): MinedTemplate<T>[] {
    return this.order.map((c) => {
      const template = c.tokens.join(' ')
      return { id: templateIdOf(template), template, items: c.items }
    })
  }
}

/** Drain's simSeq: the share of positions whose tokens are equal (a `<*>` in the cluster matches anything). */
function similarityOf(cluster: readonly string[], tokens: readonly string[]): number {
  if (tokens.length === 0) return 1
  let same = 0
  for (let i = 0; i < tokens.length; i++) if (cluster[i] === tokens[i] || cluster[i] === WILDCARD) same++
  return same / tokens.length
}
