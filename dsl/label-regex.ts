import { RE2JS } from 're2js'

/**
 * Label regexes (`=~`, `!~`) are compiled by RE2 (the re2js port), as PromQL compiles them: matching
 * takes time linear in the label's length whatever the pattern, so a rule like `=~ "(a+)+b"` cannot
 * stall evaluation the way a backtracking engine does (6 s per signal on a 28-character label). RE2
 * has no look-around and no back-references; a pattern using them is refused by lint with DSL030,
 * any other pattern RE2 cannot read with DSL006. The lint check and the evaluator compile through
 * this one function, so what lints clean is exactly what runs.
 */

/** A compiled pattern that matches the whole label value (anchored, as in PromQL). */
export type LabelRegex = { matches(value: string): boolean }

/** Why a pattern cannot be used: `unsupported` when it is valid JavaScript that RE2 refuses. */
export type LabelRegexProblem = { kind: 'invalid' | 'unsupported'; message: string }

const cache = new Map<string, LabelRegex | LabelRegexProblem>()
const CACHE_LIMIT = 10_000

/** Compiles `source` once (cached), or says why it cannot be compiled. */
export function compileLabelRegex(source: string): LabelRegex | LabelRegexProblem {
  const hit = cache.get(source)
  if (hit) return hit
  let out: LabelRegex | LabelRegexProblem
  try {
    const re = RE2JS.compile(source)
    out = { matches: (value: string) => re.matches(value) }
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '')
    out = { kind: javascriptAccepts(source) ? 'unsupported' : 'invalid', message }
  }
  if (cache.size < CACHE_LIMIT) cache.set(source, out)
  return out
}

/** True when the compiled result is a problem rather than a pattern. */
export function isLabelRegexProblem(x: LabelRegex | LabelRegexProblem): x is LabelRegexProblem {
  return 'kind' in x
}

function javascriptAccepts(source: string): boolean {
  try {
    new RegExp(source)
    return true
  } catch {
    return false
  }
}
