import type { Cond, Rule } from './ast.js'
import { lookupSignal } from '../signals/catalogue.js'

const labelsOf = (signal: string): readonly string[] => lookupSignal(signal)?.labels ?? []

/**
 * The placeholder names every match of a rule can fill: `{broker}`, `{cluster}`, and what each
 * alternative of an `or` reads outside any `not` — its signals, the facts it compares with, its `by`
 * labels and the catalogue's labels of its signals — kept only when every alternative has them. A
 * name outside this set may have no value when the rule fires (`partitions {topic}` in a rule that
 * also fires on the topic-less under-min-ISR gauge), so its text must read well without it.
 */
export function guaranteedNames(rule: Rule): Set<string> {
  const out = namesOf(rule.when)
  out.add('broker')
  out.add('cluster')
  return out
}

function namesOf(cond: Cond): Set<string> {
  switch (cond.kind) {
    case 'stream':
      return new Set([cond.atom.signal, ...labelsOf(cond.atom.signal), ...(cond.compare?.of ? [cond.compare.of.signal] : [])])
    case 'aggregate':
      return new Set([cond.atom.signal, ...labelsOf(cond.atom.signal), ...cond.by, ...(cond.compare.of ? [cond.compare.of.signal] : [])])
    case 'temporal':
      return new Set([...namesOf(cond.left), ...namesOf(cond.right)])
    case 'not':
      return new Set()
    case 'group':
      return namesOf(cond.inner)
    case 'and':
      return new Set(cond.operands.flatMap((o) => [...namesOf(o)]))
    case 'or': {
      const [first, ...rest] = cond.operands.map(namesOf)
      return new Set([...first].filter((n) => rest.every((r) => r.has(n))))
    }
  }
}
