import { Lexer, type TokenType } from 'chevrotain'
import { AggFn, ALL_TOKENS, CompareOp, LabelOp } from '../dsl/tokens.js'

/**
 * A TextMate grammar for `.rules` files (VS Code, Sublime, JetBrains, GitHub's highlighter), built
 * from the lexer's own token definitions in dsl/tokens.ts: the same regular expressions, in the same
 * order, so an editor colours what the parser reads. `npm run grammar` writes
 * editors/kafka-why-rules.tmLanguage.json; a test fails while it is stale.
 */

/** The grammar's scope, and the suffix of every scope it gives. */
export const RULES_SCOPE = 'source.kafka-why-rules'

/**
 * The TextMate scope of each token, by the token's own name or else by its category. Every token the
 * lexer produces must have one (the build fails otherwise), so a new keyword cannot go uncoloured.
 */
const SCOPE_BY_TOKEN: Record<string, string> = {
  Comment: 'comment.line.number-sign',
  StringLit: 'string.quoted.double',
  UnterminatedString: 'invalid.illegal.unterminated-string',
  Quantity: 'constant.numeric',
  Identifier: 'variable.other.signal',
  Rule: 'storage.type.rule',
  When: 'keyword.control.when',
  Then: 'keyword.control.then',
  Cause: 'keyword.other.output',
  Advise: 'keyword.other.output',
  Runbook: 'keyword.other.output',
  Explains: 'keyword.other.output',
  Run: 'keyword.other.output',
  Severity: 'keyword.other.output',
  Within: 'keyword.operator.temporal',
  Of: 'keyword.operator.temporal',
  Before: 'keyword.operator.temporal',
  After: 'keyword.operator.temporal',
  For: 'keyword.operator.temporal',
  By: 'keyword.operator.temporal',
  Over: 'keyword.operator.temporal',
  And: 'keyword.operator.logical',
  Or: 'keyword.operator.logical',
  Not: 'keyword.operator.logical',
  LParen: 'punctuation.parenthesis',
  RParen: 'punctuation.parenthesis',
  LBrace: 'punctuation.section.labels',
  RBrace: 'punctuation.section.labels',
  Comma: 'punctuation.separator.comma',
}
const SCOPE_BY_CATEGORY: [TokenType, string][] = [
  [AggFn, 'support.function.aggregate'],
  [CompareOp, 'keyword.operator.comparison'],
  [LabelOp, 'keyword.operator.label-match'],
]

/** The scope a token of this type gets (with the grammar's suffix); undefined for skipped tokens. */
export function scopeOfToken(type: TokenType): string | undefined {
  if (type.PATTERN === Lexer.NA || type.GROUP === Lexer.SKIPPED) return undefined
  const own = SCOPE_BY_TOKEN[type.name] ?? SCOPE_BY_CATEGORY.find(([cat]) => type.CATEGORIES?.includes(cat))?.[1]
  if (!own) throw new Error(`dsl/tokens.ts: token ${type.name} has no TextMate scope in editors/rules-grammar.ts`)
  return `${own}.kafka-why-rules`
}

/** Identifier characters: a keyword is one only where the lexer's longer_alt (Identifier) would not run on. */
const NOT_IDENTIFIER_AFTER = '(?![A-Za-z0-9_]|\\.[A-Za-z_])'

/** The grammar, as the JSON editors load. */
export function buildRulesGrammar(): Record<string, unknown> {
  const patterns: { name: string; match: string }[] = []
  for (const type of ALL_TOKENS) {
    const scope = scopeOfToken(type)
    if (!scope) continue
    const source = (type.PATTERN as RegExp).source
    const isKeyword = type.LONGER_ALT !== undefined
    patterns.push({ name: scope, match: isKeyword ? `\\b${source}${NOT_IDENTIFIER_AFTER}` : source })
  }
  return {
    name: 'kafka-why rules',
    scopeName: RULES_SCOPE,
    fileTypes: ['rules'],
    patterns,
  }
}

/** The file `npm run grammar` writes. */
export function renderRulesGrammar(): string {
  return `${JSON.stringify(buildRulesGrammar(), null, 2)}\n`
}
