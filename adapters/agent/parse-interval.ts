import { UNIT_SUFFIXES } from '../../signals/units.js'

/**
 * Reads an interval as operators write it in flags and config ("15s", "500ms", "2m", or a plain
 * number of ms), with the rule language's duration suffixes; undefined for anything else.
 */
export function parseInterval(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text > 0 ? text : undefined
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/.exec(text)
  if (!m) return undefined
  const n = Number(m[1])
  if (!m[2]) return n > 0 ? n : undefined
  const unit = UNIT_SUFFIXES[m[2]]
  if (!unit || unit.dimension !== 'duration') return undefined
  const ms = n * unit.factor
  return ms > 0 ? ms : undefined
}
