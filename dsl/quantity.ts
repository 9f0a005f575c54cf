import { encodeVersion, RATE_PER, UNIT_SUFFIXES, type Dimension } from '../signals/units.js'
import { closest } from './suggest.js'

/**
 * Reads a quantity literal as written (`2s`, `3GiB`, `20%`, `2/s`, `30`, `2.2.1`) into its
 * dimension's base unit, using the unit tables of signals/units.ts so the language and the
 * adapters can never disagree on what `1m` means.
 */
export type QuantityValue = { value: number; dimension: Dimension }
/** Why a literal is not a quantity, with a fix when one is likely. */
export type QuantityError = { message: string; hint?: string; suggestion?: string }

const VERSION = /^\d+\.\d+\.\d+(?:\.\d+)?$/
const NUMBER_UNIT = /^(-?\d+(?:\.\d+)?)(.*)$/

/** Plain numbers have this dimension: counts, and anything whose unit is "none". */
export const PLAIN_DIMENSION: Dimension = 'count'

/** Parses a literal, or explains why it is not one. */
export function readQuantity(text: string): QuantityValue | QuantityError {
  if (VERSION.test(text)) {
    const v = encodeVersion(text)
    if (v !== undefined) return { value: v, dimension: 'version' }
  }
  const m = NUMBER_UNIT.exec(text)
  if (!m) {
    return { message: `'${text}' is not a number, a version or a quantity with a unit`, hint: 'versions have three or four parts (2.2.1); decimals have one dot (1.5s)' }
  }
  const n = Number(m[1])
  const unit = m[2]
  if (unit === '') return { value: n, dimension: PLAIN_DIMENSION }
  if (unit.startsWith('/')) {
    const per = RATE_PER[unit.slice(1)]
    if (per === undefined) {
      const near = closest(unit.slice(1), Object.keys(RATE_PER))
      return {
        message: `unknown rate unit '${unit}' in '${text}'`,
        hint: `rates are per ${Object.keys(RATE_PER).map((u) => `/${u}`).join(', ')}`,
        suggestion: near ? `${m[1]}/${near}` : undefined,
      }
    }
    return { value: n * per, dimension: 'rate' }
  }
  const suffix = UNIT_SUFFIXES[unit]
  if (!suffix) {
    const near = Object.keys(UNIT_SUFFIXES).find((u) => u.toLowerCase() === unit.toLowerCase()) ?? closest(unit, Object.keys(UNIT_SUFFIXES))
    return {
      message: `unknown unit '${unit}' in '${text}'`,
      hint: near ? `did you mean '${m[1]}${near}'? units: ${Object.keys(UNIT_SUFFIXES).join(' ')}` : `units: ${Object.keys(UNIT_SUFFIXES).join(' ')}`,
      suggestion: near ? `${m[1]}${near}` : undefined,
    }
  }
  return { value: n * suffix.factor, dimension: suffix.dimension }
}

/** Units people may write for a dimension, for hints. */
export function unitsOf(dimension: Dimension): string {
  if (dimension === 'rate') return Object.keys(RATE_PER).map((u) => `/${u}`).join(' ') + ' (e.g. 2/s)'
  if (dimension === 'version') return 'a version such as 2.2.1'
  if (dimension === 'count' || dimension === 'none') return 'a plain number'
  return Object.entries(UNIT_SUFFIXES)
    .filter(([, s]) => s.dimension === dimension)
    .map(([u]) => u)
    .join(' ')
}
