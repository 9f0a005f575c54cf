import { CstParser, EOF, type AtLeastOneSepMethodOpts, type IOrAlt, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain'
import * as T from './tokens.js'

/**
 * The grammar of one rule, with Chevrotain's error recovery on so one run reports every error.
 * Precedence, loosest first: `or`, `and`, `not`, temporal (`within … of`, `before`, `after`),
 * comparison. Temporal operators take stream conditions, so they do not chain.
 *
 *   ruleDef      := ('rule' Name)? severity* 'when' orExpr 'then' output+
 *   output       := 'cause' S | 'advise' S | 'runbook' S | 'explains' Id (',' Id)* | 'run' S | severity
 *   orExpr       := andExpr ('or' andExpr)*
 *   andExpr      := notExpr ('and' notExpr)*
 *   notExpr      := 'not' notExpr | temporalExpr
 *   temporalExpr := primary ('within' Q 'of' primary | ('before' | 'after') primary 'within' Q)?
 *   primary      := '(' orExpr ')' | aggregate | streamCond
 *   aggregate    := AggFn '(' atom ')' ('by' Name (',' Name)*)? 'over' Q CompareOp Q
 *   streamCond   := atom (CompareOp (Q ('of' Id)? | Id) ('for' Q)?)?     -- Id: a fact of the broker
 *   atom         := Id ('{' (Name LabelOp S (',' Name LabelOp S)*)? '}')?
 */

const RULE_DESCRIPTIONS: Record<string, string> = {
  ruleDef: "a rule ('rule NAME' or 'when')",
  outputClause: 'an output clause (cause, advise, runbook, explains, run, severity)',
  primary: "a condition (a signal name, an aggregate such as count(…), or '(')",
  notExpr: "a condition (a signal name, an aggregate such as count(…), 'not' or '(')",
  temporalExpr: "'within', 'before', 'after', 'and', 'or' or 'then'",
  streamCond: 'a number with its unit (e.g. 5s, 3GiB, 20%, 2/s, 2.2.1) or a fact (e.g. zk.session_timeout_limit)',
}

/** Describes a found token for people: its text, or "the end of the rule" for the parser's EOF. */
export function describeToken(token: IToken | undefined): string {
  if (!token || token.tokenType === EOF || Number.isNaN(token.startOffset)) return 'the end of the rule'
  const image = token.image.length > 40 ? `${token.image.slice(0, 40)}…` : token.image
  return `'${image}'`
}

function describeType(type: TokenType): string {
  return type.LABEL ?? type.name
}

function describePaths(paths: TokenType[][]): string {
  const firsts = [...new Set(paths.map((p) => (p[0] ? describeType(p[0]) : 'end of the rule')))]
  if (firsts.length <= 1) return firsts[0] ?? 'more input'
  return `${firsts.slice(0, -1).join(', ')} or ${firsts[firsts.length - 1]}`
}

const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    return `expected ${describeType(expected)} but found ${describeToken(actual)}`
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return `unexpected ${describeToken(firstRedundant)} after the end of the rule`
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, ruleName }) {
    const what = RULE_DESCRIPTIONS[ruleName] ?? describePaths(expectedPathsPerAlt.flat())
    return `expected ${what} but found ${describeToken(actual[0])}`
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, ruleName }) {
    const what = ruleName === 'ruleDef' ? RULE_DESCRIPTIONS.outputClause : describePaths(expectedIterationPaths)
    return `expected ${what} but found ${describeToken(actual[0])}`
  },
}

/**
 * Builders for Chevrotain's option objects. Passing anonymous functions through them (rather than
 * writing `{ ALT: () => … }` inline) keeps the per-parse cost down under runtimes that wrap every
 * named function expression.
 */
function alt(f: () => unknown): IOrAlt<unknown> {
  return { ALT: f }
}
function commaSep(f: () => unknown): AtLeastOneSepMethodOpts<unknown> {
  return { SEP: T.Comma, DEF: f }
}

/** The Chevrotain parser; one instance is reused, its `input` reset per rule. */
export class RuleParser extends CstParser {
  constructor() {
    super(T.ALL_TOKENS, { recoveryEnabled: true, maxLookahead: 3, errorMessageProvider: messages })
    this.performSelfAnalysis()
  }

  ruleDef = this.RULE('ruleDef', () => {
    this.OPTION(() => {
      this.CONSUME(T.Rule)
      this.CONSUME(T.Identifier, { LABEL: 'name' })
    })
    this.MANY(() => this.SUBRULE(this.severityClause, { LABEL: 'preSeverity' }))
    this.CONSUME(T.When)
    this.SUBRULE(this.orExpr, { LABEL: 'when' })
    this.CONSUME(T.Then)
    this.AT_LEAST_ONE(() => this.SUBRULE(this.outputClause))
  })

  severityClause = this.RULE('severityClause', () => {
    this.CONSUME(T.Severity)
    this.CONSUME(T.Name, { LABEL: 'value' })
  })

  outputClause = this.RULE('outputClause', () => {
    this.OR([
      alt(() => {
        this.OR2([
          alt(() => this.CONSUME(T.Cause, { LABEL: 'kw' })),
          alt(() => this.CONSUME(T.Advise, { LABEL: 'kw' })),
          alt(() => this.CONSUME(T.Runbook, { LABEL: 'kw' })),
          alt(() => this.CONSUME(T.Run, { LABEL: 'kw' })),
        ])
        this.CONSUME(T.StringLit, { LABEL: 'text' })
      }),
      alt(() => {
        this.CONSUME(T.Explains, { LABEL: 'kw' })
        this.AT_LEAST_ONE_SEP(commaSep(() => this.CONSUME(T.Identifier, { LABEL: 'signal' })))
      }),
      alt(() => this.SUBRULE(this.severityClause)),
    ])
  })

  orExpr = this.RULE('orExpr', () => {
    this.SUBRULE(this.andExpr, { LABEL: 'operands' })
    this.MANY(() => {
      this.CONSUME(T.Or)
      this.SUBRULE2(this.andExpr, { LABEL: 'operands' })
    })
  })

  andExpr = this.RULE('andExpr', () => {
    this.SUBRULE(this.notExpr, { LABEL: 'operands' })
    this.MANY(() => {
      this.CONSUME(T.And)
      this.SUBRULE2(this.notExpr, { LABEL: 'operands' })
    })
  })

  notExpr = this.RULE('notExpr', () => {
    this.OR([
      alt(() => {
        this.CONSUME(T.Not)
        this.SUBRULE(this.notExpr, { LABEL: 'operand' })
      }),
      alt(() => this.SUBRULE(this.temporalExpr, { LABEL: 'temporal' })),
    ])
  })

  temporalExpr = this.RULE('temporalExpr', () => {
    this.SUBRULE(this.primary, { LABEL: 'left' })
    this.OPTION(() => {
      this.OR([
        alt(() => {
          this.CONSUME(T.Within, { LABEL: 'op' })
          this.CONSUME(T.Quantity, { LABEL: 'window' })
          this.CONSUME(T.Of)
          this.SUBRULE2(this.primary, { LABEL: 'right' })
        }),
        alt(() => {
          this.OR2([alt(() => this.CONSUME(T.Before, { LABEL: 'op' })), alt(() => this.CONSUME(T.After, { LABEL: 'op' }))])
          this.SUBRULE3(this.primary, { LABEL: 'right' })
          this.CONSUME2(T.Within)
          this.CONSUME2(T.Quantity, { LABEL: 'window' })
        }),
      ])
    })
  })

  primary = this.RULE('primary', () => {
    this.OR([
      alt(() => {
        this.CONSUME(T.LParen)
        this.SUBRULE(this.orExpr, { LABEL: 'inner' })
        this.CONSUME(T.RParen)
      }),
      alt(() => this.SUBRULE(this.aggregate)),
      alt(() => this.SUBRULE(this.streamCond)),
    ])
  })

  aggregate = this.RULE('aggregate', () => {
    this.CONSUME(T.AggFn, { LABEL: 'fn' })
    this.CONSUME(T.LParen)
    this.SUBRULE(this.atom)
    this.CONSUME(T.RParen)
    this.OPTION(() => {
      this.CONSUME(T.By)
      this.AT_LEAST_ONE_SEP(commaSep(() => this.CONSUME(T.Name, { LABEL: 'by' })))
    })
    this.CONSUME(T.Over)
    this.CONSUME(T.Quantity, { LABEL: 'over' })
    this.CONSUME(T.CompareOp, { LABEL: 'op' })
    this.CONSUME2(T.Quantity, { LABEL: 'value' })
  })

  streamCond = this.RULE('streamCond', () => {
    this.SUBRULE(this.atom)
    this.OPTION(() => {
      this.CONSUME(T.CompareOp, { LABEL: 'op' })
      this.OR([
        alt(() => {
          this.CONSUME(T.Quantity, { LABEL: 'value' })
          this.OPTION3(() => {
            this.CONSUME(T.Of)
            this.CONSUME(T.Identifier, { LABEL: 'fact' })
          })
        }),
        alt(() => this.CONSUME2(T.Identifier, { LABEL: 'fact' })),
      ])
      this.OPTION2(() => {
        this.CONSUME(T.For)
        this.CONSUME2(T.Quantity, { LABEL: 'for' })
      })
    })
  })

  atom = this.RULE('atom', () => {
    this.CONSUME(T.Identifier, { LABEL: 'signal' })
    this.OPTION(() => {
      this.CONSUME(T.LBrace)
      this.MANY_SEP(commaSep(() => this.SUBRULE(this.labelMatcher, { LABEL: 'labels' })))
      this.CONSUME(T.RBrace, { LABEL: 'close' })
    })
  })

  labelMatcher = this.RULE('labelMatcher', () => {
    this.CONSUME(T.Name, { LABEL: 'name' })
    this.CONSUME(T.LabelOp, { LABEL: 'op' })
    this.CONSUME(T.StringLit, { LABEL: 'value' })
  })
}

let instance: RuleParser | undefined

/** The shared parser, built on first use (self-analysis is the expensive part). */
export function ruleParser(): RuleParser {
  instance ??= new RuleParser()
  return instance
}
