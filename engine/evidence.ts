import type { Signal } from '../signals/signal.js'
import { formatValue } from '../signals/units.js'
import type { Evidence } from './diagnosis.js'
import { signalDimension } from './signal-kind.js'

/** A stored signal as a point of an evidence timeline, its value formatted with units for people. */
export function toEvidence(s: Signal, consequence = false): Evidence {
  const e: Evidence = { at: s.at, signal: s.name, source: s.source }
  if (s.broker !== undefined) e.broker = s.broker
  if (s.value !== undefined) {
    e.value = s.value
    e.valueText = formatValue(s.value, signalDimension(s.name))
  }
  if (s.labels && Object.keys(s.labels).length) e.labels = { ...s.labels }
  if (s.text !== undefined) e.text = s.text
  if (consequence) e.consequence = true
  return e
}

/** "01:28:02" (UTC), the time of day people read in a timeline; the date is shown once by the renderer. */
export function timeOfDay(at: number): string {
  return new Date(at).toISOString().slice(11, 19)
}
