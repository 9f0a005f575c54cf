import type { Text } from '../dsl/ast.js'
import { formatValue } from '../signals/units.js'
import type { Match } from './match.js'
import { signalDimension } from './signal-kind.js'

/** Where a placeholder's value may come from. */
export type InterpolationContext = { cluster: string; broker: string; match: Match }

/** Distinct label values shown before "(+N more)". */
const MAX_LISTED = 3

/**
 * Fills `{…}` placeholders of rule text: `{broker}`, `{cluster}`, a signal of the condition (its
 * matched or aggregate value, with units: "3.3s"), a `by` label, or a label of the evidence
 * (`{topic}` lists the distinct topics involved). Anything unresolved stays visible as `{name}` so a
 * gap shows rather than hiding.
 */
export function interpolate(text: Text | undefined, ctx: InterpolationContext): string {
  if (!text) return ''
  return text.parts.map((p) => (p.kind === 'literal' ? p.text : (resolve(p.name, ctx) ?? `{${p.name}}`))).join('')
}

function resolve(name: string, { cluster, broker, match }: InterpolationContext): string | undefined {
  if (name === 'broker') return broker
  if (name === 'cluster') return cluster
  const v = match.values[name]
  if (v) return formatValue(v.value, v.dimension) + (v.suffix ?? '')
  if (name in match.labels) return match.labels[name]
  const own = match.evidence.find((e) => e.name === name && e.value !== undefined)
  if (own) return formatValue(own.value!, signalDimension(name))
  const distinct: string[] = []
  for (const e of match.evidence) {
    const l = e.labels?.[name]
    if (l !== undefined && !distinct.includes(l)) distinct.push(l)
  }
  if (distinct.length === 0) return undefined
  const shown = distinct.slice(0, MAX_LISTED).join(', ')
  return distinct.length > MAX_LISTED ? `${shown} (+${distinct.length - MAX_LISTED} more)` : shown
}
