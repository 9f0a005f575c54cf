import type { Text } from '../dsl/ast.js'
import { formatValue } from '../signals/units.js'
import type { Match } from './match.js'
import { signalDimension } from './signal-kind.js'

/**
 * Where a placeholder's value may come from. `related` are other matches of the same alert (the same
 * rule, broker and group labels, earlier in the window): a label the latest match's evidence lacks
 * (a `disk.quota_exceeded` line names no dir, the `disk.full` line before it did) is taken from them
 * rather than shown as `{dir}`.
 */
export type InterpolationContext = { cluster: string; broker: string; match: Match; related?: readonly Match[] }

/** Distinct label values shown before "(+N more)". */
const MAX_LISTED = 3

/**
 * Fills `{…}` placeholders of rule text: `{broker}`, `{cluster}`, a signal of the condition (its
 * matched or aggregate value, with units: "3.3s"), a `by` label, or a label of the evidence
 * (`{topic}` lists the distinct topics involved), else the same label or signal in the related matches,
 * newest first. Anything still unresolved stays visible as `{name}` so a gap shows rather than hiding.
 */
export function interpolate(text: Text | undefined, ctx: InterpolationContext): string {
  if (!text) return ''
  return text.parts.map((p) => (p.kind === 'literal' ? p.text : (resolve(p.name, ctx) ?? `{${p.name}}`))).join('')
}

function resolve(name: string, ctx: InterpolationContext): string | undefined {
  if (ctx.match.values[name] === undefined && !(name in ctx.match.labels) && ctx.related?.length) {
    const own = resolveIn(name, ctx.cluster, ctx.broker, ctx.match)
    if (own !== undefined) return own
    const newestFirst = [...ctx.related].sort((a, b) => b.at - a.at)
    for (const m of newestFirst) {
      const r = resolveIn(name, ctx.cluster, ctx.broker, m)
      if (r !== undefined) return r
    }
    return undefined
  }
  return resolveIn(name, ctx.cluster, ctx.broker, ctx.match)
}

function resolveIn(name: string, cluster: string, broker: string, match: Match): string | undefined {
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
