import type { Cond, Rule, StreamCond } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import { atomFilter, compareValue } from './filter.js'
import { signalDimension, signalKind } from './signal-kind.js'

/** The least a duration fact a rule compares with is taken to be (session and lag timeouts are seconds). */
const MIN_DURATION_FACT_MS = 1_000

/**
 * Which arriving signals are worth evaluating for at once, rather than at the next tick. A broker's
 * evidence usually lands between two ticks, and waiting for the next one costs half a tick on
 * average, more than the rest of the path from log line to Slack together. News is a signal that
 * could complete a rule's match: an event (or a fact) that passes one of a rule's own atoms outside a
 * `not`, value comparison included. The steady flow (gauge samples, a safepoint line every second
 * that no threshold reaches) is not news and waits for the tick as before, so ticking early on news
 * stays rare and costs what the news itself costs.
 */
export type NewsFilter = (s: Signal) => boolean

/** The news test for a rule set, built once. */
export function newsFilter(rules: readonly Rule[]): NewsFilter {
  const byName = new Map<string, ((s: Signal) => boolean)[]>()
  const add = (name: string, test: (s: Signal) => boolean) => byName.set(name, [...(byName.get(name) ?? []), test])
  const stream = (c: StreamCond) => {
    const labels = atomFilter(c.atom)
    const cmp = c.compare
    // `< X` and `<= X` hold for the ordinary values (a short safepoint). A share of a fact (33% of
    // the session timeout) cannot be read here: a duration fact is taken to be at least a second,
    // so a 5 ms safepoint is not news and a 2 s one is.
    if (!cmp) add(c.atom.signal, labels)
    else if (cmp.op === '<' || cmp.op === '<=') return
    else if (cmp.of) {
      const floor = signalDimension(cmp.of.signal) === 'duration' ? cmp.value.value * MIN_DURATION_FACT_MS : -Infinity
      add(c.atom.signal, (s) => labels(s) && s.value !== undefined && s.value >= floor)
    } else add(c.atom.signal, (s) => labels(s) && compareValue(s.value, cmp))
  }
  const visit = (c: Cond): void => {
    switch (c.kind) {
      case 'not':
        return
      case 'group':
        return visit(c.inner)
      case 'and':
      case 'or':
        return c.operands.forEach(visit)
      case 'stream':
        return stream(c)
      case 'temporal':
        stream(c.left)
        stream(c.right)
        return
      case 'aggregate':
        // Counts, sums and maxima over a window grow with each event; the others are samples' business.
        if ((c.fn === 'count' || c.fn === 'sum' || c.fn === 'max' || c.fn === 'increase') && (c.compare.op === '>' || c.compare.op === '>=')) add(c.atom.signal, atomFilter(c.atom))
        return
    }
  }
  for (const r of rules) visit(r.when)
  return (s) => {
    const tests = byName.get(s.name)
    return tests !== undefined && signalKind(s.name) !== 'gauge' && tests.some((t) => t(s))
  }
}
