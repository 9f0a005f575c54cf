import type { Text } from '../dsl/ast.js'
import { formatValue } from '../signals/units.js'
import type { Match } from './match.js'
import { signalDimension } from './signal-kind.js'

/**
 * Where a placeholder's value may come from. `related` are other matches of the same alert (the same
 * rule, broker and group labels, earlier in the window): a label the latest match's evidence lacks
 * (a `disk.quota_exceeded` line names no dir, the `disk.full` line before it did) is taken from them
 * rather than left out.
 */
export type InterpolationContext = { cluster: string; broker: string; match: Match; related?: readonly Match[] }

/**
 * How a text was filled. `omitted` names the placeholders whose part of the sentence was left out
 * because nothing in the match gave them a value; `headGap` is true when one of them sat in the
 * sentence's head, where only the placeholder itself could be dropped (a rule text should keep such a
 * name in parentheses or in a later clause, where the whole part can go).
 */
export type Filled = { text: string; omitted: string[]; headGap: boolean }

/** Distinct label values shown before "(+N more)". */
const MAX_LISTED = 3

/**
 * Fills `{…}` placeholders of rule text: `{broker}`, `{cluster}`, a signal of the condition (its
 * matched or aggregate value, with units: "3.3s"), a `by` label, or a label of the evidence
 * (`{topic}` lists the distinct topics involved), else the same label or signal in the related matches,
 * newest first. A placeholder nothing gives a value is never printed as `{name}`: the part of the
 * sentence that needs it is left out (see `fillText`), so the text says only what the match showed.
 */
export function interpolate(text: Text | undefined, ctx: InterpolationContext): string {
  return fillText(text, (name) => resolve(name, ctx)).text
}

/**
 * A text where every placeholder must have a value, or there is no text: a command to run or a
 * runbook address with a gap in it would point at the wrong thing.
 */
export function interpolateWhole(text: Text | undefined, ctx: InterpolationContext): string | undefined {
  const filled = fillText(text, (name) => resolve(name, ctx))
  return filled.omitted.length ? undefined : filled.text
}

// Private-use characters stand for placeholders while the sentence structure is read, so a value's
// own parentheses ("a, b, c (+2 more)") are never taken for the text's.
const RESOLVED = 0xe000
const UNRESOLVED = 0xf000
const isMark = (c: number) => c >= RESOLVED && c < 0xf900
const hasUnresolved = (s: string) => [...s].some((ch) => ch.codePointAt(0)! >= UNRESOLVED && ch.codePointAt(0)! < 0xf900)

/**
 * Fills a text through `lookup`, leaving out the smallest part that needs a missing value: a
 * `;`-separated part of a parenthesis, else the parenthesis, else the clause after a `:`, `;` or
 * sentence end, else (in the head, the text before the first of those) the placeholder alone.
 */
export function fillText(text: Text | undefined, lookup: (name: string) => string | undefined): Filled {
  if (!text) return { text: '', omitted: [], headGap: false }
  const values: string[] = []
  const missing: string[] = []
  let marked = ''
  for (const p of text.parts) {
    if (p.kind === 'literal') {
      marked += p.text.replace(/[\ue000-\uf8ff]/g, '\ufffd')
      continue
    }
    const v = lookup(p.name)
    if (v !== undefined) marked += String.fromCharCode(RESOLVED + values.push(v) - 1)
    else marked += String.fromCharCode(UNRESOLVED + missing.push(p.name) - 1)
  }
  if (missing.length === 0) return { text: unmark(marked, values), omitted: [], headGap: false }
  const omitted = [...new Set(missing)]
  let s = dropParenthesesParts(marked)
  const clauses = splitClauses(s)
  const head = clauses.shift()!
  const headGap = hasUnresolved(head.text)
  s = head.text.replace(/[\uf000-\uf8ff]/g, '') + clauses.filter((c) => !hasUnresolved(c.text)).map((c) => c.sep + c.text).join('')
  s = s.replace(/ {2,}/g, ' ').replace(/ ([,.;:])/g, '$1').trim()
  return { text: unmark(s, values), omitted, headGap }
}

function unmark(s: string, values: readonly string[]): string {
  return [...s].map((ch) => (isMark(ch.codePointAt(0)!) ? values[ch.codePointAt(0)! - RESOLVED] : ch)).join('')
}

/** Inside each innermost parenthesis holding a gap: drop its `;` parts with a gap, or all of it. */
function dropParenthesesParts(s: string): string {
  for (;;) {
    const inner = /\(([^()]*)\)/g
    let changed = false
    s = s.replace(inner, (whole, body: string) => {
      if (!hasUnresolved(body)) return whole.replace('(', '\u0001').replace(')', '\u0002')
      changed = true
      const kept = body.split('; ').filter((part) => !hasUnresolved(part))
      return kept.length ? `\u0001${kept.join('; ')}\u0002` : ''
    })
    if (!changed) return s.replace(/\u0001/g, '(').replace(/\u0002/g, ')')
  }
}

/** The text's clauses: split after a sentence's end, a `;` or a `:` followed by a space. */
function splitClauses(s: string): { sep: string; text: string }[] {
  const out: { sep: string; text: string }[] = []
  const re = /([.;:!?]) /g
  let from = 0
  let sep = ''
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m[1] === '.' && !/^[A-Z\uE000-\uF8FF]/.test(s.slice(m.index + 2))) continue
    out.push({ sep, text: s.slice(from, m.index) })
    sep = m[0]
    from = m.index + 2
  }
  out.push({ sep, text: s.slice(from) })
  return out
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
