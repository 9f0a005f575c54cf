import type { Atom, Cond, Rule } from './ast.js'

/**
 * What data a rule reads, so the engine loads only those series from the store.
 */

/** One signal a condition reads: every atom naming it, and the labels it groups by. */
export type SignalUse = { signal: string; atoms: Atom[]; by: string[] }

/** Every atom of a condition, in source order. */
export function atomsOfCond(cond: Cond): Atom[] {
  switch (cond.kind) {
    case 'stream':
      return [cond.atom]
    case 'aggregate':
      return [cond.atom]
    case 'temporal':
      return [cond.left.atom, cond.right.atom]
    case 'not':
      return atomsOfCond(cond.operand)
    case 'group':
      return atomsOfCond(cond.inner)
    case 'and':
    case 'or':
      return cond.operands.flatMap(atomsOfCond)
  }
}

/** The distinct signal names a rule's condition reads, in first-use order. */
export function signalsOfRule(rule: Rule): string[] {
  return [...new Set(atomsOfCond(rule.when).map((a) => a.signal))]
}

/**
 * The signals a rule's match rests on: those it reads outside any `not`. A rule that holds "NotLeader
 * errors, and not next to a broker's shutdown" is about the errors; the shutdown it requires absent
 * is no occurrence another rule has to explain.
 */
export function observedSignalsOfRule(rule: Rule): string[] {
  const out = new Set<string>()
  const visit = (cond: Cond): void => {
    if (cond.kind === 'not') return
    if (cond.kind === 'group') return visit(cond.inner)
    if (cond.kind === 'and' || cond.kind === 'or') return cond.operands.forEach(visit)
    for (const a of atomsOfCond(cond)) out.add(a.signal)
  }
  visit(rule.when)
  return [...out]
}

/**
 * The facts a rule's comparisons read on their right side (`gc.pause > zk.session_timeout_limit`).
 * Kept apart from `signalsOfRule`: a fact is context the evaluation needs loaded, not an occurrence
 * another rule's `explains` must account for.
 */
export function factRefsOfRule(rule: Rule): string[] {
  const out = new Set<string>()
  const visit = (cond: Cond): void => {
    if (cond.kind === 'stream') {
      if (cond.compare?.of) out.add(cond.compare.of.signal)
    } else if (cond.kind === 'temporal') {
      visit(cond.left)
      visit(cond.right)
    } else if (cond.kind === 'not') visit(cond.operand)
    else if (cond.kind === 'group') visit(cond.inner)
    else if (cond.kind === 'and' || cond.kind === 'or') cond.operands.forEach(visit)
  }
  visit(rule.when)
  return [...out]
}

/** Per signal: the atoms (with their label filters) and `by` labels a rule's condition uses. */
export function signalUsesOfRule(rule: Rule): SignalUse[] {
  const uses = new Map<string, SignalUse>()
  const visit = (cond: Cond): void => {
    if (cond.kind === 'aggregate') {
      const u = use(cond.atom.signal)
      u.atoms.push(cond.atom)
      for (const b of cond.by) if (!u.by.includes(b)) u.by.push(b)
      return
    }
    if (cond.kind === 'stream' || cond.kind === 'temporal') {
      for (const a of atomsOfCond(cond)) use(a.signal).atoms.push(a)
      return
    }
    if (cond.kind === 'not') return visit(cond.operand)
    if (cond.kind === 'group') return visit(cond.inner)
    for (const o of cond.operands) visit(o)
  }
  const use = (signal: string): SignalUse => {
    let u = uses.get(signal)
    if (!u) {
      u = { signal, atoms: [], by: [] }
      uses.set(signal, u)
    }
    return u
  }
  visit(rule.when)
  return [...uses.values()]
}
