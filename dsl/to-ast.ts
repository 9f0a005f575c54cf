import type { CstNode, IToken } from 'chevrotain'
import type { AggregateCond, Atom, CompareOp, Cond, LabelMatcher, LabelOp, Quantity, Rule, Severity, Span, StreamCond, Text } from './ast.js'
import type { Diagnostic, DiagnosticCode } from './diagnostics.js'
import { DIAGNOSTIC_CODES } from './diagnostics.js'
import { readQuantity } from './quantity.js'
import { closest } from './suggest.js'
import { readText } from './text.js'
import * as T from './tokens.js'

/**
 * CST to AST for one rule. The parser's error recovery can leave holes (inserted tokens, missing
 * children); a hole in the condition means the rule cannot be evaluated, so it is dropped, while a
 * hole in an output clause only loses that clause.
 */

/** Thrown inside this module when a required part is missing; never escapes it. */
class Incomplete extends Error {}

const SEVERITIES: readonly Severity[] = ['info', 'warning', 'critical']

/** Builds a diagnostic with the catalogue's default severity. */
export function diagnostic(code: DiagnosticCode, message: string, span: Span, extra: { hint?: string; suggestion?: string } = {}): Diagnostic {
  const d: Diagnostic = { code, severity: DIAGNOSTIC_CODES[code].severity, message, span }
  if (extra.hint !== undefined) d.hint = extra.hint
  if (extra.suggestion !== undefined) d.suggestion = extra.suggestion
  return d
}

/** The span of one token (Chevrotain's ends are inclusive; ours are exclusive). */
export function tokenSpan(tok: IToken, file: string): Span {
  return {
    file,
    startLine: tok.startLine ?? 1,
    startCol: tok.startColumn ?? 1,
    endLine: tok.endLine ?? tok.startLine ?? 1,
    endCol: (tok.endColumn ?? tok.startColumn ?? 0) + 1,
    startOffset: tok.startOffset,
    endOffset: (tok.endOffset ?? tok.startOffset) + 1,
  }
}

/** The span from the start of `a` to the end of `b`. */
export function joinSpans(a: Span, b: Span): Span {
  return { file: a.file, startLine: a.startLine, startCol: a.startCol, startOffset: a.startOffset, endLine: b.endLine, endCol: b.endCol, endOffset: b.endOffset }
}

type Children = Record<string, (CstNode | IToken)[] | undefined>

function real(tok: IToken | undefined): IToken {
  if (!tok || tok.isInsertedInRecovery || Number.isNaN(tok.startOffset)) throw new Incomplete()
  return tok
}

function tok(c: Children, key: string): IToken {
  return real(c[key]?.[0] as IToken | undefined)
}

function node(c: Children, key: string, i = 0): CstNode {
  const n = c[key]?.[i] as CstNode | undefined
  if (!n) throw new Incomplete()
  return n
}

/** Converts one parsed rule; diagnostics found on the way are pushed to `out`. */
export function ruleToAst(cst: CstNode, file: string, out: Diagnostic[], hadParseErrors: boolean): Rule | undefined {
  return new RuleBuilder(file, out).rule(cst, hadParseErrors)
}

/** Methods rather than closures: one rule file may hold thousands of rules. */
class RuleBuilder {
  constructor(
    private readonly file: string,
    private readonly out: Diagnostic[],
  ) {}

  span(t: IToken): Span {
    return tokenSpan(t, this.file)
  }

  quantity(t: IToken): Quantity {
    const s = this.span(t)
    const q = readQuantity(t.image)
    if ('message' in q) {
      this.out.push(diagnostic('DSL005', q.message, s, { hint: q.hint, suggestion: q.suggestion }))
      return { value: Number.NaN, dimension: 'none', text: t.image, span: s }
    }
    return { value: q.value, dimension: q.dimension, text: t.image, span: s }
  }

  text(t: IToken): Text {
    const { text: result, problems } = readText(t.image, this.span(t))
    for (const p of problems) this.out.push(diagnostic('DSL025', p.message, p.span, { hint: p.hint }))
    return result
  }

  atom(n: CstNode): Atom {
    const ac = n.children as Children
    const signal = tok(ac, 'signal')
    const labels: LabelMatcher[] = []
    for (const lm of (ac.labels ?? []) as CstNode[]) {
      const lc = lm.children as Children
      const name = tok(lc, 'name')
      const op = tok(lc, 'op')
      const value = tok(lc, 'value')
      labels.push({ name: name.image, op: op.image as LabelOp, value: readText(value.image, this.span(value)).text.raw, span: joinSpans(this.span(name), this.span(value)) })
    }
    const end = ac.close ? tok(ac, 'close') : signal
    return { signal: signal.image, labels, span: joinSpans(this.span(signal), this.span(end)) }
  }

  stream(n: CstNode): StreamCond {
    const sc = n.children as Children
    const a = this.atom(node(sc, 'atom'))
    const result: StreamCond = { kind: 'stream', atom: a, span: a.span }
    if (sc.op) {
      const op = tok(sc, 'op')
      const fact = sc.fact ? tok(sc, 'fact') : undefined
      // `> zk.session_timeout_limit` is the whole fact: a share of 100% that the formatter leaves unwritten.
      const value: Quantity = sc.value || !fact ? this.quantity(tok(sc, 'value')) : { value: 1, dimension: 'ratio', text: '', span: this.span(fact) }
      result.compare = { op: op.image as CompareOp, value }
      if (fact) result.compare.of = { signal: fact.image, span: this.span(fact) }
      result.span = joinSpans(a.span, fact ? this.span(fact) : value.span)
      if (sc.for) {
        const f = this.quantity(tok(sc, 'for'))
        result.forMs = f.value
        result.forText = f.text
        result.forSpan = f.span
        result.span = joinSpans(a.span, f.span)
      }
    }
    return result
  }

  aggregate(n: CstNode): AggregateCond {
    const ac = n.children as Children
    const fn = tok(ac, 'fn')
    const over = this.quantity(tok(ac, 'over'))
    const value = this.quantity(tok(ac, 'value'))
    const by = ((ac.by ?? []) as IToken[]).map(real)
    return {
      kind: 'aggregate',
      fn: fn.image as AggregateCond['fn'],
      atom: this.atom(node(ac, 'atom')),
      by: by.map((t) => t.image),
      bySpans: by.map((t) => this.span(t)),
      overMs: over.value,
      overText: over.text,
      overSpan: over.span,
      compare: { op: tok(ac, 'op').image as CompareOp, value },
      span: joinSpans(this.span(fn), value.span),
    }
  }

  primary(n: CstNode): Cond {
    const pc = n.children as Children
    if (pc.LParen) {
      const inner = this.or(node(pc, 'inner'))
      return { kind: 'group', inner, span: joinSpans(this.span(tok(pc, 'LParen')), this.span(tok(pc, 'RParen'))) }
    }
    if (pc.aggregate) return this.aggregate(node(pc, 'aggregate'))
    return this.stream(node(pc, 'streamCond'))
  }

  temporal(n: CstNode): Cond {
    const tc = n.children as Children
    const left = this.primary(node(tc, 'left'))
    if (!tc.op) return left
    const op = tok(tc, 'op')
    const right = this.primary(node(tc, 'right'))
    const window = this.quantity(tok(tc, 'window'))
    for (const operand of [left, right]) {
      if (operand.kind !== 'stream') {
        this.out.push(
          diagnostic('DSL003', `the operands of '${op.image}' must be signal conditions, not ${operand.kind === 'group' ? 'a parenthesised condition' : 'an aggregate'}`, operand.span, {
            hint: "write each side as a signal with an optional comparison, e.g. 'zk.session_timeout within 5s of safepoint.sync > 2s'",
          }),
        )
        throw new Incomplete()
      }
    }
    const end = op.image === 'within' ? right.span : window.span
    return {
      kind: 'temporal',
      op: op.image as 'within' | 'before' | 'after',
      left: left as StreamCond,
      right: right as StreamCond,
      windowMs: window.value,
      windowText: window.text,
      windowSpan: window.span,
      span: joinSpans(left.span, end),
    }
  }

  not(n: CstNode): Cond {
    const nc = n.children as Children
    if (nc.Not) {
      const operand = this.not(node(nc, 'operand'))
      return { kind: 'not', operand, span: joinSpans(this.span(tok(nc, 'Not')), operand.span) }
    }
    return this.temporal(node(nc, 'temporal'))
  }

  and(n: CstNode): Cond {
    const operands = ((n.children as Children).operands ?? []).map((o) => this.not(o as CstNode))
    if (operands.length === 0) throw new Incomplete()
    if (operands.length === 1) return operands[0]
    return { kind: 'and', operands, span: joinSpans(operands[0].span, operands[operands.length - 1].span) }
  }

  or(n: CstNode): Cond {
    const operands = ((n.children as Children).operands ?? []).map((o) => this.and(o as CstNode))
    if (operands.length === 0) throw new Incomplete()
    if (operands.length === 1) return operands[0]
    return { kind: 'or', operands, span: joinSpans(operands[0].span, operands[operands.length - 1].span) }
  }

  severity(n: CstNode, rule: Rule, state: { seen?: IToken }): void {
    const sc = n.children as Children
    try {
      const kw = tok(sc, 'Severity')
      const value = tok(sc, 'value')
      if (state.seen) this.out.push(diagnostic('DSL010', "'severity' given twice", joinSpans(this.span(kw), this.span(value)), { hint: `the first was on line ${state.seen.startLine}` }))
      state.seen = kw
      rule.severitySpan = joinSpans(this.span(kw), this.span(value))
      if ((SEVERITIES as readonly string[]).includes(value.image)) rule.severity = value.image as Severity
      else {
        const near = closest(value.image, SEVERITIES)
        this.out.push(diagnostic('DSL011', `'${value.image}' is not a severity`, this.span(value), { hint: `severity is one of ${SEVERITIES.join(', ')}${near ? `; did you mean '${near}'?` : ''}`, suggestion: near }))
      }
    } catch (err) {
      if (!(err instanceof Incomplete)) throw err
    }
  }

  rule(cst: CstNode, hadParseErrors: boolean): Rule | undefined {
    const c = cst.children as Children
    let when: Cond
    let whenTok: IToken
    try {
      whenTok = tok(c, 'When')
      when = this.or(node(c, 'when'))
    } catch (err) {
      if (err instanceof Incomplete) return undefined
      throw err
    }

    const nameTok = c.name?.[0] as IToken | undefined
    const name = nameTok && !nameTok.isInsertedInRecovery && !Number.isNaN(nameTok.startOffset) ? nameTok.image : undefined
    const firstTok = (c.Rule?.[0] as IToken | undefined) ?? firstTokenOf(c.preSeverity?.[0] as CstNode | undefined) ?? whenTok
    const rule: Rule = {
      id: name ?? `${this.file}#L${firstTok.startLine ?? 1}`,
      file: this.file,
      severity: 'warning',
      when,
      cause: undefined as unknown as Text,
      explains: [],
      run: [],
      doc: [],
      span: joinSpans(this.span(firstTok), when.span),
    }
    if (name !== undefined) rule.name = name

    const severityState: { seen?: IToken } = {}
    for (const s of (c.preSeverity ?? []) as CstNode[]) this.severity(s, rule, severityState)

    const seen: Record<string, IToken> = {}
    let lastEnd = when.span
    for (const clause of (c.outputClause ?? []) as CstNode[]) {
      const oc = clause.children as Children
      try {
        if (oc.severityClause) {
          const sc = node(oc, 'severityClause')
          this.severity(sc, rule, severityState)
          lastEnd = this.span(tok(sc.children as Children, 'value'))
          continue
        }
        const kw = tok(oc, 'kw')
        if (kw.tokenType === T.Explains) {
          for (const s of (oc.signal ?? []) as IToken[]) {
            const t = real(s)
            rule.explains.push({ signal: t.image, span: this.span(t) })
            lastEnd = this.span(t)
          }
          continue
        }
        const value = this.text(tok(oc, 'text'))
        lastEnd = value.span
        if (kw.tokenType === T.Run) {
          rule.run.push(value)
          continue
        }
        const key = kw.image as 'cause' | 'advise' | 'runbook'
        if (seen[key]) {
          this.out.push(diagnostic('DSL010', `'${key}' given twice`, joinSpans(this.span(kw), value.span), { hint: `a rule has one ${key}; the first is on line ${seen[key].startLine}` }))
          continue
        }
        seen[key] = kw
        rule[key] = value
      } catch (err) {
        if (!(err instanceof Incomplete)) throw err
      }
    }
    rule.span = joinSpans(rule.span, lastEnd)
    if (!rule.cause) {
      if (!hadParseErrors) {
        this.out.push(diagnostic('DSL004', `rule '${rule.id}' has no cause`, this.span(nameTok && name ? nameTok : whenTok), { hint: 'every rule needs then cause "…": the sentence the bot posts when it fires' }))
      }
      return undefined
    }
    return rule
  }
}

function firstTokenOf(n: CstNode | undefined): IToken | undefined {
  if (!n) return undefined
  let best: IToken | undefined
  for (const list of Object.values(n.children)) {
    for (const item of list ?? []) {
      const t = 'image' in item ? (item as IToken) : firstTokenOf(item as CstNode)
      if (t && !Number.isNaN(t.startOffset) && (!best || t.startOffset < best.startOffset)) best = t
    }
  }
  return best
}
