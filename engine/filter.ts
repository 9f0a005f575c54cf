import type { Atom, Comparison, LabelMatcher } from '../dsl/ast.js'
import { compileLabelRegex, isLabelRegexProblem } from '../dsl/label-regex.js'
import type { Signal } from '../signals/signal.js'

/**
 * Label filters and value comparisons, compiled once per atom so a stream of 100k signals costs one
 * predicate call each. Regexes are anchored (whole value) and run by RE2 in linear time, as in
 * PromQL (dsl/label-regex.ts), so `=~"Full.*"` means what it says and no pattern can stall a tick;
 * a missing label reads as "" so `!=` keeps signals without it.
 */
export type SignalPredicate = (s: Signal) => boolean

const compiled = new WeakMap<Atom, SignalPredicate>()

/** The label filter of an atom (cached per AST node). */
export function atomFilter(atom: Atom): SignalPredicate {
  let fn = compiled.get(atom)
  if (!fn) {
    fn = compileMatchers(atom.labels)
    compiled.set(atom, fn)
  }
  return fn
}

function compileMatchers(matchers: readonly LabelMatcher[]): SignalPredicate {
  if (matchers.length === 0) return () => true
  const tests = matchers.map((m): SignalPredicate => {
    const read = (s: Signal) => s.labels?.[m.name] ?? ''
    switch (m.op) {
      case '=':
        return (s) => read(s) === m.value
      case '!=':
        return (s) => read(s) !== m.value
      case '=~':
      case '!~': {
        // Lint refuses a pattern RE2 cannot compile; one that slipped through matches nothing.
        const re = compileLabelRegex(m.value)
        const want = m.op === '=~'
        return isLabelRegexProblem(re) ? () => !want : (s) => re.matches(read(s)) === want
      }
    }
  })
  return (s) => tests.every((t) => t(s))
}

/** Compares a base-unit value; equality tolerates float noise from unit conversion. */
export function compareValue(value: number | undefined, cmp: Comparison): boolean {
  if (value === undefined || !Number.isFinite(value)) return false
  const target = cmp.value.value
  const eq = Math.abs(value - target) <= 1e-9 * Math.max(1, Math.abs(target))
  switch (cmp.op) {
    case '>':
      return value > target && !eq
    case '>=':
      return value > target || eq
    case '<':
      return value < target && !eq
    case '<=':
      return value < target || eq
    case '==':
      return eq
    case '!=':
      return !eq
  }
}

/** For `>`-like comparisons the largest value is the telling one; for `<`-like the smallest. */
export function moreTelling(cmp: Comparison | undefined, a: number, b: number): boolean {
  if (!cmp) return a > b
  return cmp.op === '<' || cmp.op === '<=' ? a < b : a > b
}
