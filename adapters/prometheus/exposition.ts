/**
 * The Prometheus text exposition format (0.0.4, and the OpenMetrics lines a 1.x exporter may send),
 * parsed one line at a time so a scrape of any size is never held in memory whole. Bad lines are
 * counted with a reason and skipped; parsing never throws.
 */

/** One sample line: `name{labels} value [timestamp]`. */
export type Sample = {
  name: string
  labels: Record<string, string>
  /** NaN, +Inf and -Inf are kept as the JavaScript numbers they name. */
  value: number
  /** Epoch ms when the exporter stamped the sample itself; most JMX exporters do not. */
  timestampMs?: number
}

/** What a line turned out to be; `bad` carries the reason so scrape statistics can say why. */
export type LineResult =
  | { kind: 'sample'; sample: Sample }
  | { kind: 'type'; name: string; type: string }
  | { kind: 'help'; name: string; help: string }
  | { kind: 'comment' }
  | { kind: 'blank' }
  | { kind: 'bad'; reason: string }

const NAME_START = /[a-zA-Z_:]/
const NAME_CHAR = /[a-zA-Z0-9_:]/
const LABEL_START = /[a-zA-Z_]/
const LABEL_CHAR = /[a-zA-Z0-9_]/

/** Parses a sample value the way the Go client does: floats, NaN, ±Inf (any case). */
export function parseValue(text: string): number | undefined {
  switch (text.toLowerCase()) {
    case 'nan':
      return NaN
    case '+inf':
    case 'inf':
      return Infinity
    case '-inf':
      return -Infinity
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined
  return Number(text)
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'))
}

function parseComment(line: string): LineResult {
  const m = /^#\s*(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\s+(.*))?$/.exec(line)
  if (!m) return { kind: 'comment' }
  const rest = m[3] ?? ''
  if (m[1] === 'HELP') return { kind: 'help', name: m[2], help: unescapeHelp(rest) }
  const type = rest.trim().toLowerCase()
  if (!/^(counter|gauge|histogram|summary|untyped|unknown|info|stateset|gaugehistogram)$/.test(type)) {
    return { kind: 'bad', reason: 'unknown metric type' }
  }
  return { kind: 'type', name: m[2], type }
}

/** Parses one line of exposition text (without its newline). */
export function parseLine(raw: string): LineResult {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
  let i = 0
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++
  if (i === line.length) return { kind: 'blank' }
  if (line[i] === '#') return parseComment(line.slice(i))

  const nameStart = i
  if (!NAME_START.test(line[i])) return { kind: 'bad', reason: 'invalid metric name' }
  while (i < line.length && NAME_CHAR.test(line[i])) i++
  const name = line.slice(nameStart, i)
  const labels: Record<string, string> = {}

  if (line[i] === '{') {
    i++
    for (;;) {
      while (line[i] === ' ' || line[i] === '\t') i++
      if (line[i] === '}') {
        i++
        break
      }
      if (i >= line.length || !LABEL_START.test(line[i])) return { kind: 'bad', reason: 'invalid label name' }
      const labelStart = i
      while (i < line.length && LABEL_CHAR.test(line[i])) i++
      const labelName = line.slice(labelStart, i)
      while (line[i] === ' ' || line[i] === '\t') i++
      if (line[i] !== '=') return { kind: 'bad', reason: 'expected = after label name' }
      i++
      while (line[i] === ' ' || line[i] === '\t') i++
      if (line[i] !== '"') return { kind: 'bad', reason: 'expected quoted label value' }
      i++
      let value = ''
      let closed = false
      while (i < line.length) {
        const c = line[i]
        if (c === '\\') {
          const next = line[i + 1]
          if (next === 'n') value += '\n'
          else if (next === '\\' || next === '"') value += next
          else if (next === undefined) return { kind: 'bad', reason: 'unterminated label value' }
          else value += '\\' + next
          i += 2
          continue
        }
        if (c === '"') {
          closed = true
          i++
          break
        }
        value += c
        i++
      }
      if (!closed) return { kind: 'bad', reason: 'unterminated label value' }
      if (labelName in labels) return { kind: 'bad', reason: 'duplicate label name' }
      labels[labelName] = value
      while (line[i] === ' ' || line[i] === '\t') i++
      if (line[i] === ',') {
        i++
        continue
      }
      if (line[i] === '}') {
        i++
        break
      }
      return { kind: 'bad', reason: 'expected , or } in label set' }
    }
  }

  // An OpenMetrics exemplar (` # {trace_id="…"} 0.4`) follows the value; it is not part of the sample.
  let tail = line.slice(i)
  const exemplar = tail.indexOf(' # ')
  if (exemplar >= 0) tail = tail.slice(0, exemplar)
  const rest = tail.trim().split(/[ \t]+/)
  if (rest.length === 0 || rest[0] === '') return { kind: 'bad', reason: 'missing value' }
  if (rest.length > 2) return { kind: 'bad', reason: 'trailing text after timestamp' }
  const value = parseValue(rest[0])
  if (value === undefined) return { kind: 'bad', reason: 'invalid value' }
  const sample: Sample = { name, labels, value }
  if (rest.length === 2) {
    const ts = Number(rest[1])
    if (!Number.isFinite(ts)) return { kind: 'bad', reason: 'invalid timestamp' }
    // Text format 0.0.4 stamps in ms (integers); OpenMetrics in seconds (may carry a fraction).
    sample.timestampMs = rest[1].includes('.') ? Math.round(ts * 1000) : ts
  }
  return { kind: 'sample', sample }
}

/** Counts of one parse, for scrape statistics and the `/metrics` of `serve`. */
export type ParseStats = {
  lines: number
  samples: number
  badLines: number
  /** Bad lines by reason. */
  badByReason: Record<string, number>
  /** The first few bad lines with their line numbers, for the log. */
  badExamples: { line: number; text: string; reason: string }[]
}

const MAX_BAD_EXAMPLES = 5
const MAX_LINE_CHARS = 64 * 1024

/**
 * Incremental parser: feed text chunks as they arrive from the socket; complete lines are parsed at
 * once and handed to `onSample`, so memory stays at one partial line plus the caller's own state.
 */
export class ExpositionParser {
  readonly stats: ParseStats = { lines: 0, samples: 0, badLines: 0, badByReason: {}, badExamples: [] }
  /** `# TYPE` declarations seen so far, by family name. */
  readonly types = new Map<string, string>()
  private partial = ''
  private skippingLongLine = false

  constructor(private readonly onSample: (sample: Sample, type: string | undefined) => void) {}

  /** Feeds a chunk of text; lines may span chunks. */
  push(chunk: string): void {
    let start = 0
    for (;;) {
      const nl = chunk.indexOf('\n', start)
      if (nl < 0) break
      const piece = chunk.slice(start, nl)
      start = nl + 1
      if (this.skippingLongLine) {
        this.skippingLongLine = false
        this.partial = ''
        continue
      }
      const line = this.partial ? this.partial + piece : piece
      this.partial = ''
      this.handle(line)
    }
    if (start < chunk.length && !this.skippingLongLine) {
      this.partial += chunk.slice(start)
      if (this.partial.length > MAX_LINE_CHARS) {
        this.bad(this.partial.slice(0, 200), 'line too long')
        this.partial = ''
        this.skippingLongLine = true
      }
    }
  }

  /** Flushes a last line that had no newline. */
  end(): ParseStats {
    if (this.partial && !this.skippingLongLine) this.handle(this.partial)
    this.partial = ''
    this.skippingLongLine = false
    return this.stats
  }

  private bad(text: string, reason: string): void {
    this.stats.badLines++
    this.stats.badByReason[reason] = (this.stats.badByReason[reason] ?? 0) + 1
    if (this.stats.badExamples.length < MAX_BAD_EXAMPLES) {
      this.stats.badExamples.push({ line: this.stats.lines, text: text.slice(0, 200), reason })
    }
  }

  private handle(line: string): void {
    this.stats.lines++
    const r = parseLine(line)
    switch (r.kind) {
      case 'sample':
        this.stats.samples++
        this.onSample(r.sample, this.familyType(r.sample.name))
        return
      case 'type':
        this.types.set(r.name, r.type)
        return
      case 'bad':
        this.bad(line, r.reason)
        return
      default:
        return
    }
  }

  /** A sample's family: `x_total`, `x_count`, `x_sum`, `x_bucket` belong to `x` when `x` was declared. */
  private familyType(name: string): string | undefined {
    const direct = this.types.get(name)
    if (direct) return direct
    const m = /^(.*)_(total|count|sum|bucket|created)$/.exec(name)
    return m ? this.types.get(m[1]) : undefined
  }
}

/** Parses a whole text at once (tests, files); the scraper streams through ExpositionParser instead. */
export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string>; stats: ParseStats } {
  const samples: Sample[] = []
  const parser = new ExpositionParser((s) => samples.push(s))
  parser.push(text)
  const stats = parser.end()
  return { samples, types: parser.types, stats }
}
