import { createToken, Lexer, type TokenType } from 'chevrotain'

/**
 * Tokens of the rule language, exported so the parser, the formatter's tests and the error messages
 * name them. Order matters to Chevrotain's first-match lexer:
 * - whitespace and comments first (most frequent, never ambiguous);
 * - strings before the unterminated-string fallback, which keeps a rule parseable after a missing quote;
 * - quantities before identifiers (a quantity starts with a digit, so they never compete);
 * - keywords longest first, each with `longer_alt: Identifier`, so `over` is not `or` + `er`
 *   and `runbook` is not `run` + `book`, while `orders` stays an identifier;
 * - two-character operators before their one-character prefixes.
 */

/** Any word usable as a label name: identifiers and keywords alike (`gc.pause{cause="…"}`). */
export const Name = createToken({ name: 'Name', pattern: Lexer.NA })
/** The six comparison operators. */
export const CompareOp = createToken({ name: 'CompareOp', pattern: Lexer.NA, label: "a comparison operator (>, >=, <, <=, ==, !=)" })
/** The four label-matcher operators. */
export const LabelOp = createToken({ name: 'LabelOp', pattern: Lexer.NA, label: 'a label operator (=, !=, =~, !~)' })
/** The aggregate function names. */
export const AggFn = createToken({ name: 'AggFn', pattern: Lexer.NA, label: 'an aggregate (count, rate, max, min, avg, sum, increase, trend, floor_trend)' })

/** Skipped, but counted for line numbers. */
export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n\f\v]+/, group: Lexer.SKIPPED, line_breaks: true })
/** Kept in their own group: a block directly above a rule is its doc, the formatter keeps the rest. */
export const Comment = createToken({ name: 'Comment', pattern: /#[^\r\n]*/, group: 'comments' })

/** Output text and label values: one line, with backslash escapes for the quote and the backslash. */
export const StringLit = createToken({ name: 'StringLit', pattern: /"(?:[^"\\\r\n]|\\.)*"/, label: 'a string' })
/** A string whose closing quote is missing on its line; reported as DSL002 but parsed as a string. */
export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  pattern: /"(?:[^"\\\r\n]|\\.)*/,
  categories: [StringLit],
  label: 'a string',
})

/** `2s`, `3GiB`, `20%`, `2/s`, `30`, `2.2.1`; the unit is validated when the AST is built. */
export const Quantity = createToken({
  name: 'Quantity',
  pattern: /-?\d+(?:\.\d+)*(?:\/[A-Za-z]+|[A-Za-z%]+)?/,
  label: 'a number with its unit (e.g. 5s, 3GiB, 20%, 2/s, 2.2.1)',
})

/** Dotted names: `zk.session_timeout`, `broker.version`, rule names. */
export const Identifier = createToken({
  name: 'Identifier',
  pattern: /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/,
  categories: [Name],
  label: 'a name',
})

const keyword = (word: string, extra: TokenType[] = []): TokenType =>
  createToken({ name: word[0].toUpperCase() + word.slice(1), pattern: new RegExp(word), longer_alt: Identifier, categories: [Name, ...extra], label: `'${word}'` })

/** Keywords, one token each so the parser and error messages can name them. */
export const Rule = keyword('rule')
export const When = keyword('when')
export const Then = keyword('then')
export const Cause = keyword('cause')
export const Advise = keyword('advise')
export const Runbook = keyword('runbook')
export const Explains = keyword('explains')
export const Run = keyword('run')
export const Severity = keyword('severity')
export const Within = keyword('within')
export const Of = keyword('of')
export const Before = keyword('before')
export const After = keyword('after')
export const For = keyword('for')
export const By = keyword('by')
export const Over = keyword('over')
export const And = keyword('and')
export const Or = keyword('or')
export const Not = keyword('not')
export const Count = keyword('count', [AggFn])
export const Rate = keyword('rate', [AggFn])
export const Max = keyword('max', [AggFn])
export const Min = keyword('min', [AggFn])
export const Avg = keyword('avg', [AggFn])
export const Sum = keyword('sum', [AggFn])
export const Increase = keyword('increase', [AggFn])
export const Trend = keyword('trend', [AggFn])
/** The slope of a series' floor (minima per twelfth of the window): how a leak differs from a sawtooth. */
export const FloorTrend = keyword('floor_trend', [AggFn])

const KEYWORDS = [Rule, When, Then, Cause, Advise, Runbook, Explains, Run, Severity, Within, Of, Before, After, For, By, Over, And, Or, Not, Count, Rate, Max, Min, Avg, Sum, Increase, Trend, FloorTrend]

/** Words reserved by the language: they cannot name a rule or a signal. */
export const KEYWORD_WORDS: ReadonlySet<string> = new Set(KEYWORDS.map((t) => (t.PATTERN as RegExp).source))

const op = (name: string, pattern: string, categories: TokenType[]): TokenType =>
  createToken({ name, pattern: new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), categories, label: `'${pattern}'` })

/** Operators and punctuation. */
export const Ge = op('Ge', '>=', [CompareOp])
export const Le = op('Le', '<=', [CompareOp])
export const EqEq = op('EqEq', '==', [CompareOp])
export const NotEq = op('NotEq', '!=', [CompareOp, LabelOp])
export const RegexMatch = op('RegexMatch', '=~', [LabelOp])
export const RegexNotMatch = op('RegexNotMatch', '!~', [LabelOp])
export const Gt = op('Gt', '>', [CompareOp])
export const Lt = op('Lt', '<', [CompareOp])
export const Eq = op('Eq', '=', [LabelOp])
export const LParen = op('LParen', '(', [])
export const RParen = op('RParen', ')', [])
export const LBrace = op('LBrace', '{', [])
export const RBrace = op('RBrace', '}', [])
export const Comma = op('Comma', ',', [])

/** Every token type, in lexing order. */
export const ALL_TOKENS: TokenType[] = [
  Name,
  CompareOp,
  LabelOp,
  AggFn,
  WhiteSpace,
  Comment,
  StringLit,
  UnterminatedString,
  Quantity,
  ...[...KEYWORDS].sort((a, b) => (b.PATTERN as RegExp).source.length - (a.PATTERN as RegExp).source.length),
  Identifier,
  Ge,
  Le,
  EqEq,
  NotEq,
  RegexMatch,
  RegexNotMatch,
  Gt,
  Lt,
  Eq,
  LParen,
  RParen,
  LBrace,
  RBrace,
  Comma,
]

/** The lexer is built once: Chevrotain validates the token set at construction. */
export const ruleLexer = new Lexer(ALL_TOKENS, { positionTracking: 'full', ensureOptimizations: false })
