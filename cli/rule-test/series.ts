import { lookupSignal } from '../../signals/catalogue.js'
import type { Signal } from '../../signals/signal.js'
import { encodeVersion, RATE_PER, UNIT_SUFFIXES, type Dimension } from '../../signals/units.js'

/**
 * The compact series notation of rule tests, after promtool's: one line per series,
 * `name{label="v", broker="1"}: 0 0 3300 _x4 1+1x3`, one value per `interval` from the test's start.
 * It lets a rule author write a whole incident's shape in a line instead of hundreds of JSON signals.
 *
 * Values: `7` (one sample), `_` (no sample), `a+bxn` / `a-bxn` (n+1 samples a, a±b, …, a±n·b),
 * `axn` (a repeated n+1 times), `_xn` (n steps without a sample). Numbers may carry the catalogue's
 * units (`3.3s`, `512MiB`, `20%`, `2/s`) and are stored in the base unit; versions are written as
 * they are (`0.10.2.1`). For events without a value (`isr.shrink`) a sample `n` means n events at
 * that step, so `0 3 0` is three shrinks at the second step.
 */

/** One expanded series: which signal, its scope and labels, and a value (or nothing) per step. */
export type SeriesLine = {
  name: string
  broker?: string
  cluster?: string
  labels: Record<string, string>
  /** One entry per step; undefined = no sample at that step. */
  values: (number | undefined)[]
}

/** A problem in one series line, with the 1-based column it starts at. */
export class SeriesError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message)
    this.name = 'SeriesError'
  }
}

const HEAD = /^\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)\s*(\{[^}]*\})?\s*:\s*/
const LABEL = /\s*([A-Za-z_]\w*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,|$)/y
const NUMBER = String.raw`[0-9]+(?:\.[0-9]+)?`
const UNITS = Object.keys(UNIT_SUFFIXES).sort((a, b) => b.length - a.length).join('|')
const QUANTITY = new RegExp(String.raw`^(-?${NUMBER})(${UNITS}|/[smhd])?$`)
const VERSION = /^v?\d+\.\d+\.\d+(?:\.\d+)?$/
const EXPANDING = new RegExp(String.raw`^(.+?)([+-])(.+?)x(\d+)$`)
const REPEAT = /^(.+?)x(\d+)$/

/** Longest expansion accepted from one token, so a typo like `0x1000000000` cannot eat the memory. */
export const MAX_STEPS = 100_000

/** Reads one value literal into the base unit of `dimension`; throws SeriesError on nonsense. */
export function readSeriesValue(text: string, dimension: Dimension, column: number): number {
  if (VERSION.test(text) && (dimension === 'version' || text.split('.').length > 2)) {
    const v = encodeVersion(text)
    if (v === undefined || dimension !== 'version') throw new SeriesError(`'${text}' is a version, but this signal is measured in ${dimension}`, column)
    return v
  }
  const m = QUANTITY.exec(text)
  if (!m) throw new SeriesError(`'${text}' is not a number, a number with a unit (3.3s, 512MiB, 20%, 2/s) or a version`, column)
  const n = Number(m[1])
  const unit = m[2]
  if (!unit) return n
  if (unit.startsWith('/')) {
    if (dimension !== 'rate') throw new SeriesError(`'${text}' is a rate, but this signal is measured in ${dimension}`, column)
    return n * RATE_PER[unit.slice(1)]
  }
  const u = UNIT_SUFFIXES[unit]
  if (u.dimension !== dimension) throw new SeriesError(`'${text}' is a ${u.dimension}, but this signal is measured in ${dimension}`, column)
  return n * u.factor
}

/** Expands the value part of a series line into one entry per step. */
export function expandValues(text: string, dimension: Dimension, startColumn = 1): (number | undefined)[] {
  const out: (number | undefined)[] = []
  const re = /\S+/g
  let m: RegExpExecArray | null
  while ((m = re.exec(text))) {
    const token = m[0]
    const column = startColumn + m.index
    const push = (values: (number | undefined)[]) => {
      if (out.length + values.length > MAX_STEPS) throw new SeriesError(`series longer than ${MAX_STEPS} steps`, column)
      for (const v of values) out.push(v)
    }
    const count = (digits: string) => {
      const n = Number(digits)
      if (!Number.isSafeInteger(n) || n > MAX_STEPS) throw new SeriesError(`repeat count ${digits} is larger than ${MAX_STEPS}`, column)
      return n
    }
    if (token === '_') {
      push([undefined])
      continue
    }
    const blank = /^_x(\d+)$/.exec(token)
    if (blank) {
      push(new Array<undefined>(count(blank[1])).fill(undefined))
      continue
    }
    const exp = EXPANDING.exec(token)
    if (exp && !VERSION.test(token)) {
      const a = readSeriesValue(exp[1], dimension, column)
      const b = readSeriesValue(exp[3], dimension, column) * (exp[2] === '-' ? -1 : 1)
      const n = count(exp[4])
      push(Array.from({ length: n + 1 }, (_, i) => a + i * b))
      continue
    }
    const rep = REPEAT.exec(token)
    if (rep && !VERSION.test(token)) {
      const a = readSeriesValue(rep[1], dimension, column)
      push(new Array<number>(count(rep[2]) + 1).fill(a))
      continue
    }
    push([readSeriesValue(token, dimension, column)])
  }
  return out
}

/** Parses `name{labels}: values` against the signal catalogue. */
export function parseSeriesLine(line: string): SeriesLine {
  const head = HEAD.exec(line)
  if (!head) throw new SeriesError('expected `signal.name{label="value"}: values`', 1)
  const name = head[1]
  const entry = lookupSignal(name)
  if (!entry) throw new SeriesError(`unknown signal '${name}' (see signals/catalogue.ts)`, line.indexOf(name) + 1)
  const labels: Record<string, string> = {}
  let broker: string | undefined
  let cluster: string | undefined
  if (head[2]) {
    const body = head[2].slice(1, -1)
    const base = line.indexOf(head[2]) + 2
    LABEL.lastIndex = 0
    while (LABEL.lastIndex < body.length && body.slice(LABEL.lastIndex).trim() !== '') {
      const at = LABEL.lastIndex
      const m = LABEL.exec(body)
      if (!m) throw new SeriesError('expected label="value"', base + at)
      const value = m[2].replace(/\\(.)/g, '$1')
      if (m[1] === 'broker') broker = value
      else if (m[1] === 'cluster') cluster = value
      else if (!entry.labels.includes(m[1])) throw new SeriesError(`${name} has no label '${m[1]}' (it has: ${entry.labels.join(', ') || 'none'})`, base + at)
      else labels[m[1]] = value
      if (m[3] === '') break
    }
  }
  const valueText = line.slice(head[0].length)
  const dimension: Dimension = entry.unit === 'none' ? 'count' : entry.unit
  const values = expandValues(valueText, dimension, head[0].length + 1)
  if (values.length === 0) throw new SeriesError('no values', head[0].length + 1)
  return { name, broker, cluster, labels, values }
}

/** Turns expanded series into Signals: step i is at `start + i * intervalMs`. */
export function seriesToSignals(series: SeriesLine, opts: { start: number; intervalMs: number; cluster: string; source: string }): Signal[] {
  const entry = lookupSignal(series.name)
  const valueless = entry?.kind === 'event' && entry.unit === 'none'
  const out: Signal[] = []
  series.values.forEach((v, i) => {
    if (v === undefined) return
    const base: Signal = {
      name: series.name,
      at: opts.start + i * opts.intervalMs,
      cluster: series.cluster ?? opts.cluster,
      source: `${opts.source}#${i}`,
      ...(series.broker !== undefined ? { broker: series.broker } : {}),
      ...(Object.keys(series.labels).length ? { labels: { ...series.labels } } : {}),
    }
    if (valueless) {
      for (let k = 0; k < Math.round(v); k++) out.push({ ...base, source: `${base.source}.${k}` })
    } else out.push({ ...base, value: v })
  })
  return out
}
