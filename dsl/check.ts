import { lookupSignal, SIGNAL_NAMES, type CatalogueEntry } from '../signals/catalogue.js'
import { formatValue, type Dimension } from '../signals/units.js'
import type { Atom, Comparison, Cond, Rule, Span, Text } from './ast.js'
import type { Diagnostic } from './diagnostics.js'
import { PLAIN_DIMENSION, readQuantity, unitsOf } from './quantity.js'
import { formatComparison, formatCond } from './format-cond.js'
import { closest } from './suggest.js'
import { diagnostic } from './to-ast.js'
import { compileLabelRegex, isLabelRegexProblem } from './label-regex.js'

/**
 * Semantic checks against the signal catalogue: everything that parses but cannot mean what its
 * author thinks. Each problem has its own code so CI and editors can act on it.
 */
export type CheckOptions = { retentionMs?: number }

/** Placeholders every rule may use: the broker and cluster the diagnosis is about. */
export const CONTEXT_PLACEHOLDERS: readonly string[] = ['broker', 'cluster']

const VALUE_FNS = new Set(['max', 'min', 'avg', 'sum', 'increase', 'trend', 'floor_trend'])

/** Checks one rule; diagnostics are appended to `out`. */
export function checkRule(rule: Rule, out: Diagnostic[], options: CheckOptions = {}): void {
  const placeholderNames = new Set<string>(CONTEXT_PLACEHOLDERS)

  const signal = (atom: Atom): CatalogueEntry | undefined => {
    const entry = lookupSignal(atom.signal)
    const nameSpan: Span = { ...atom.span, endLine: atom.span.startLine, endCol: atom.span.startCol + atom.signal.length, endOffset: atom.span.startOffset + atom.signal.length }
    if (!entry) {
      const near = closest(atom.signal, SIGNAL_NAMES)
      out.push(diagnostic('DSL012', `unknown signal '${atom.signal}'`, nameSpan, { hint: near ? `did you mean '${near}'?` : 'signals are listed in signals/catalogue.ts', suggestion: near }))
    }
    placeholderNames.add(atom.signal)
    for (const l of entry?.labels ?? []) placeholderNames.add(l)
    for (const m of atom.labels) {
      placeholderNames.add(m.name)
      if (entry && !entry.labels.includes(m.name)) unknownLabel(m.name, atom.signal, entry, m.span)
      if (m.op === '=~' || m.op === '!~') {
        const re = compileLabelRegex(m.value)
        if (isLabelRegexProblem(re) && re.kind === 'unsupported') {
          out.push(diagnostic('DSL030', `regular expression '${m.value}' uses a feature RE2 does not have: ${re.message}`, m.span, { hint: 'label regexes run in linear time (RE2, as in PromQL): no look-around or back-references; match the whole value with alternatives and classes instead' }))
        } else if (isLabelRegexProblem(re)) {
          out.push(diagnostic('DSL006', `invalid regular expression '${m.value}': ${re.message}`, m.span, { hint: 'label regexes use RE2 syntax (as PromQL) and must match the whole value' }))
        }
      }
    }
    return entry
  }

  const unknownLabel = (name: string, sig: string, entry: CatalogueEntry, span: Span) => {
    const near = closest(name, entry.labels)
    const known = entry.labels.length ? `labels of ${sig}: ${entry.labels.join(', ')}` : `${sig} has no labels`
    out.push(diagnostic('DSL013', `unknown label '${name}' on ${sig}`, { ...span, endLine: span.startLine, endCol: span.startCol + name.length, endOffset: span.startOffset + name.length }, { hint: near ? `did you mean '${near}'? ${known}` : known, suggestion: near }))
  }

  const duration = (text: string, span: Span, what: string) => {
    const q = readQuantity(text)
    if ('message' in q) return
    if (q.dimension !== 'duration') {
      out.push(diagnostic('DSL014', `${what} '${text}' is not a duration`, span, { hint: `durations use ${unitsOf('duration')}` }))
    } else if (q.value <= 0) {
      out.push(diagnostic('DSL014', `${what} '${text}' must be longer than zero`, span))
    } else if (options.retentionMs !== undefined && q.value > options.retentionMs) {
      out.push(diagnostic('DSL021', `${what} '${text}' is longer than the ${formatValue(options.retentionMs, 'duration')} of data the store keeps`, span, { hint: 'shorten the window or raise the retention' }))
    }
  }

  const compare = (cmp: Comparison, expected: Dimension, subject: string, nonNegative = true) => {
    const q = cmp.value
    if (Number.isNaN(q.value)) return
    const ok = q.dimension === expected || (q.dimension === PLAIN_DIMENSION && (expected === 'none' || q.value === 0))
    if (!ok) {
      out.push(
        diagnostic('DSL014', `${subject} is ${describe(expected)} but '${q.text}' is ${describe(q.dimension)}`, q.span, {
          hint: `compare ${subject} with ${unitsOf(expected)}`,
        }),
      )
    } else if (expected === 'ratio' && ((cmp.op === '>' && q.value >= 1) || (cmp.op === '>=' && q.value > 1))) {
      out.push(diagnostic('DSL022', `${subject} is a share between 0% and 100%, so '${cmp.op} ${q.text}' never holds`, q.span))
    } else if (nonNegative && ((cmp.op === '<' && q.value <= 0) || (cmp.op === '<=' && q.value < 0))) {
      out.push(diagnostic('DSL022', `${subject} is never negative, so '${cmp.op} ${q.text}' never holds`, q.span))
    }
  }

  // `gc.pause > 33% of zk.session_timeout_limit`: the named fact (or gauge) must exist, not be an
  // event, and share the left side's unit; the share must be a percentage.
  const factComparison = (cmp: Comparison, left: CatalogueEntry | undefined, subject: string) => {
    const ref = cmp.of!
    const entry = lookupSignal(ref.signal)
    placeholderNames.add(ref.signal)
    if (!entry) {
      const facts = SIGNAL_NAMES.filter((n) => lookupSignal(n)?.kind === 'fact')
      const near = closest(ref.signal, facts) ?? closest(ref.signal, SIGNAL_NAMES)
      out.push(diagnostic('DSL012', `unknown signal '${ref.signal}'`, ref.span, { hint: near ? `did you mean '${near}'?` : 'facts are listed in signals/catalogue.ts', suggestion: near }))
      return
    }
    // A gauge is read at each compared sample's time with its labels (the share of a request's total).
    if (entry.kind === 'event') {
      out.push(
        diagnostic('DSL029', `${subject} is compared with ${ref.signal}, ${entry.kind === 'event' ? 'an' : 'a'} ${entry.kind}; only a fact has one value to compare with`, ref.span, {
          hint: entry.kind === 'event' ? `relate two events in time instead: ${subject} within 5s of ${ref.signal}` : 'compare with a fact (config.*, broker.version, a *_limit) or a literal such as 2s',
        }),
      )
      return
    }
    if (cmp.value.text !== '' && !Number.isNaN(cmp.value.value) && cmp.value.dimension !== 'ratio') {
      out.push(diagnostic('DSL014', `the share of ${ref.signal} must be a percentage, but '${cmp.value.text}' is ${describe(cmp.value.dimension)}`, cmp.value.span, { hint: `write e.g. '${subject} > 33% of ${ref.signal}'` }))
    }
    if (left && left.unit !== entry.unit) {
      out.push(
        diagnostic('DSL028', `${subject} is ${describe(left.unit)} but ${ref.signal} is ${describe(entry.unit)}`, ref.span, {
          hint: `compare ${subject} with a fact in the same unit (${unitsOf(left.unit)})`,
        }),
      )
    }
  }

  const temporalOperand = (kind: 'stream', cond: Cond) => {
    if (cond.kind !== kind) return
    const entry = lookupSignal(cond.atom.signal)
    if (entry && entry.kind !== 'event') {
      out.push(diagnostic('DSL024', `${cond.atom.signal} is a ${entry.kind}, so every sample counts as an occurrence here`, cond.atom.span, { hint: 'temporal operators relate events; compare a gauge with a threshold (e.g. heap.used > 3GiB) to turn it into one' }))
    }
  }

  const walk = (cond: Cond): void => {
    switch (cond.kind) {
      case 'stream': {
        const entry = signal(cond.atom)
        if (cond.compare && entry) {
          if (entry.unit === 'none') {
            out.push(diagnostic('DSL015', `${cond.atom.signal} is an event without a value; it cannot be compared with '${formatComparison(cond.compare)}'`, cond.compare.of?.span ?? cond.compare.value.span, { hint: `drop the comparison, or count it: count(${cond.atom.signal}) over 10m > 3` }))
          } else if (cond.compare.of) factComparison(cond.compare, entry, cond.atom.signal)
          else compare(cond.compare, entry.unit, cond.atom.signal)
        } else if (cond.compare?.of) factComparison(cond.compare, undefined, cond.atom.signal)
        if (cond.forText !== undefined) {
          const forSpan = cond.forSpan ?? cond.span
          duration(cond.forText, forSpan, "'for'")
          if (entry && entry.kind !== 'gauge') {
            out.push(diagnostic('DSL023', `'for' needs a gauge, but ${cond.atom.signal} is ${entry.kind === 'event' ? 'an' : 'a'} ${entry.kind}`, forSpan, { hint: entry.kind === 'event' ? `count the events instead: count(${cond.atom.signal}) over ${cond.forText} > 0` : 'a fact has one latest value; drop the for' }))
          }
        }
        return
      }
      case 'temporal': {
        walk(cond.left)
        walk(cond.right)
        temporalOperand('stream', cond.left)
        temporalOperand('stream', cond.right)
        duration(cond.windowText, cond.windowSpan ?? cond.span, 'window')
        return
      }
      case 'aggregate': {
        const entry = signal(cond.atom)
        for (const b of cond.by) placeholderNames.add(b)
        if (entry) {
          for (const [i, b] of cond.by.entries()) if (!entry.labels.includes(b)) unknownLabel(b, cond.atom.signal, entry, cond.bySpans?.[i] ?? cond.span)
          if (entry.kind === 'fact') {
            out.push(diagnostic('DSL016', `${cond.fn}() over ${cond.atom.signal}, a fact: it has one latest value, not a series`, cond.span, { hint: `compare it directly: ${cond.atom.signal} ${cond.compare.op} ${cond.compare.value.text}` }))
          } else if (VALUE_FNS.has(cond.fn) && entry.unit === 'none') {
            out.push(diagnostic('DSL015', `${cond.fn}() needs values, but ${cond.atom.signal} is an event without a value`, cond.span, { hint: `use count(${cond.atom.signal}) or rate(${cond.atom.signal})` }))
          } else {
            const slope = cond.fn === 'trend' || cond.fn === 'floor_trend'
            const expected: Dimension = cond.fn === 'count' ? 'count' : cond.fn === 'rate' ? 'rate' : slope ? PLAIN_DIMENSION : entry.unit
            compare(cond.compare, expected, `${cond.fn}(${cond.atom.signal})`, !slope && cond.fn !== 'increase')
          }
        }
        duration(cond.overText, cond.overSpan ?? cond.span, "'over' window")
        return
      }
      case 'not':
        return walk(cond.operand)
      case 'group':
        return walk(cond.inner)
      case 'and':
        contradiction(cond.operands)
        for (const o of cond.operands) walk(o)
        return
      case 'or':
        for (const o of cond.operands) walk(o)
    }
  }

  // `A and not A` never holds, whatever the data.
  const contradiction = (operands: Cond[]) => {
    const plain = new Set(operands.filter((o) => o.kind !== 'not').map((o) => formatCond(unwrap(o))))
    for (const o of operands) {
      if (o.kind === 'not' && plain.has(formatCond(unwrap(o.operand)))) {
        out.push(diagnostic('DSL022', `'${formatCond(o)}' contradicts another part of the same 'and'`, o.span, { hint: 'A and not A never holds' }))
      }
    }
  }
  walk(rule.when)

  for (const e of rule.explains) {
    if (!lookupSignal(e.signal)) {
      const near = closest(e.signal, SIGNAL_NAMES)
      out.push(diagnostic('DSL020', `explains names an unknown signal '${e.signal}'`, e.span, { hint: near ? `did you mean '${near}'?` : 'signals are listed in signals/catalogue.ts', suggestion: near }))
    }
  }

  const texts: Text[] = [rule.cause, ...(rule.advise ? [rule.advise] : []), ...(rule.runbook ? [rule.runbook] : []), ...rule.run]
  for (const t of texts) {
    for (const p of t.parts) {
      if (p.kind !== 'ref' || placeholderNames.has(p.name)) continue
      const near = closest(p.name, [...placeholderNames])
      out.push(
        diagnostic('DSL019', `placeholder {${p.name}} names nothing in the condition`, p.span, {
          hint: `${near ? `did you mean {${near}}? ` : ''}placeholders name a signal of the condition, one of its labels, a 'by' label, {broker} or {cluster}`,
          suggestion: near ? `{${near}}` : undefined,
        }),
      )
    }
  }

  if (rule.name === undefined) {
    out.push(diagnostic('DSL018', `unnamed rule gets the id '${rule.id}', which changes when lines move`, { ...rule.span, endLine: rule.span.startLine, endCol: rule.span.startCol + 4, endOffset: rule.span.startOffset + 4 }, { hint: "add 'rule NAME' before 'when' so alerts and silences stay attached to it" }))
  }
}

function unwrap(c: Cond): Cond {
  return c.kind === 'group' ? unwrap(c.inner) : c
}

/**
 * Reports rules that share a name; `out` gets one diagnostic per repeat. With `acrossFiles`, only
 * the first use of a name in each file is compared with earlier files (repeats inside one file
 * were already reported when that file was parsed).
 */
export function checkDuplicateNames(rules: readonly Rule[], out: Diagnostic[], options: { acrossFiles?: boolean } = {}): void {
  const first = new Map<string, Rule>()
  const seenIn = new Set<string>()
  for (const r of rules) {
    if (r.name === undefined) continue
    const prior = first.get(r.name)
    if (!prior) {
      first.set(r.name, r)
      seenIn.add(`${r.file}\u0000${r.name}`)
      continue
    }
    const key = `${r.file}\u0000${r.name}`
    const repeatInFile = seenIn.has(key)
    seenIn.add(key)
    if (options.acrossFiles && (repeatInFile || prior.file === r.file)) continue
    const span = { ...r.span, endLine: r.span.startLine, endCol: r.span.startCol + 5 + r.name.length, endOffset: r.span.startOffset + 5 + r.name.length }
    out.push(diagnostic('DSL017', `duplicate rule name '${r.name}'`, span, { hint: `first defined at ${prior.file}:${prior.span.startLine}:${prior.span.startCol}` }))
  }
}

function describe(d: Dimension): string {
  switch (d) {
    case 'duration':
      return 'a duration'
    case 'bytes':
      return 'a size'
    case 'ratio':
      return 'a percentage'
    case 'rate':
      return 'a rate'
    case 'version':
      return 'a version'
    case 'count':
      return 'a plain number'
    default:
      return 'unitless'
  }
}
