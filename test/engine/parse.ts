import { hasErrors, parseRules } from '../../dsl/index.js'
import type { Rule } from '../../dsl/ast.js'

/** Parses rule text for a test; fails loudly on errors so a typo never passes as "no match". */
export function rules(text: string, file = 'test.rules'): Rule[] {
  const parsed = parseRules(text, file)
  if (hasErrors(parsed.diagnostics)) throw new Error(parsed.diagnostics.map((d) => `${d.code} ${d.message}`).join('\n'))
  return parsed.rules
}

/** The condition of `when <text>`, as the parser builds it. */
export function cond(text: string) {
  return rules(`rule t when ${text} then cause "t"`)[0].when
}
