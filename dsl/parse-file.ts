import type { ILexingError, IRecognitionException, IToken } from 'chevrotain'
import type { Rule, Span } from './ast.js'
import { checkDuplicateNames, checkRule, type CheckOptions } from './check.js'
import type { Diagnostic, DiagnosticCode } from './diagnostics.js'
import { describeToken, ruleParser } from './parser.js'
import { closest } from './suggest.js'
import { diagnostic, joinSpans, tokenSpan } from './to-ast.js'
import { ruleToAst } from './to-ast.js'
import * as T from './tokens.js'

/**
 * The whole pipeline for one file: guard against input that is not rule text, lex, cut the token
 * stream into rules, parse each with recovery, build ASTs, check them. Each rule is parsed on its
 * own so a mistake in one never hides the next, and nothing here throws.
 */

/** Files larger than this are refused (DSL009): rule files are written by people. */
export const MAX_FILE_CHARS = 4 * 1024 * 1024
/** A file stops being checked after this many problems (DSL027): the first ones are what matter. */
export const MAX_DIAGNOSTICS = 200
/** A single rule longer than this many tokens is refused (DSL009). */
export const MAX_RULE_TOKENS = 20_000
/** Parentheses plus `not`s deeper than this are refused (DSL007) before the recursive parser sees them. */
export const MAX_NESTING = 64

/** Codes meaning the text did not lex or parse: the formatter leaves such a file alone. */
export const SYNTAX_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>(['DSL001', 'DSL002', 'DSL003', 'DSL004', 'DSL005', 'DSL007', 'DSL008', 'DSL009', 'DSL025', 'DSL026'])

/** One `#` comment: its text after `#` (one leading space dropped) and where it is. */
export type CommentLine = { text: string; line: number; offset: number; standalone: boolean }

/** A parsed rule with the source range the formatter replaces. */
export type ParsedRule = { rule: Rule; startOffset: number; endOffset: number; startLine: number; endLine: number }

/** Everything the formatter needs besides the rules. */
export type ParsedFile = {
  rules: ParsedRule[]
  diagnostics: Diagnostic[]
  comments: CommentLine[]
  /** True when lexing or parsing failed somewhere (the formatter then leaves the file alone). */
  syntaxErrors: boolean
}

const CONTROL = /[\u0001-\u0008\u000e-\u001f\u007f\ufffd]/g

function fileSpan(file: string): Span {
  return { file, startLine: 1, startCol: 1, endLine: 1, endCol: 2, startOffset: 0, endOffset: 1 }
}

function offsetSpan(text: string, file: string, offset: number, length: number, line: number, col: number): Span {
  return { file, startLine: line, startCol: col, endLine: line, endCol: col + Math.max(1, length), startOffset: offset, endOffset: offset + Math.max(1, length) }
}

function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Parses and checks one file; `parseRules` in index.ts is the public face of this. */
export function parseFile(text: string, file: string, options: CheckOptions = {}): ParsedFile {
  const diagnostics: Diagnostic[] = []
  const result: ParsedFile = { rules: [], diagnostics, comments: [], syntaxErrors: true }
  if (typeof text !== 'string') {
    diagnostics.push(diagnostic('DSL008', 'input is not text', fileSpan(file)))
    return result
  }
  if (text.length > MAX_FILE_CHARS) {
    diagnostics.push(
      diagnostic('DSL009', `rule file is ${(text.length / 1024 / 1024).toFixed(1)} MiB; the limit is ${MAX_FILE_CHARS / 1024 / 1024} MiB`, fileSpan(file), {
        hint: 'split the rules over several files in a directory',
      }),
    )
    return result
  }
  const nul = text.indexOf('\u0000')
  const controls = text.match(CONTROL)?.length ?? 0
  if (nul >= 0 || controls > Math.max(8, text.length / 100)) {
    diagnostics.push(diagnostic('DSL008', nul >= 0 ? 'input contains NUL bytes: this is not a rule file' : `input has ${controls} control or undecodable characters: this is not a rule file`, fileSpan(file), { hint: 'rule files are UTF-8 text' }))
    return result
  }

  const lexed = lex(text)
  for (const e of lexed.errors) {
    const bad = text.slice(e.offset, e.offset + Math.min(e.length, 20))
    diagnostics.push(diagnostic('DSL001', `unexpected character${e.length > 1 ? 's' : ''} '${printable(bad)}${e.length > 20 ? '…' : ''}'`, offsetSpan(text, file, e.offset, e.length, e.line ?? 1, e.column ?? 1)))
  }
  for (const t of lexed.tokens) {
    if (t.tokenType === T.UnterminatedString) {
      diagnostics.push(diagnostic('DSL002', 'unterminated string', tokenSpan(t, file), { hint: 'close it with " on the same line; write \\" for a quote inside it' }))
    }
  }
  if (lexed.stoppedAt !== undefined) {
    const line = text.slice(0, lexed.stoppedAt).split('\n').length
    diagnostics.push(diagnostic('DSL027', `stopped after ${lexed.errors.length} unexpected characters; the rest of the file was not read`, offsetSpan(text, file, lexed.stoppedAt, 1, line, 1), { hint: 'is this a rule file?' }))
  }
  result.comments = lexed.comments.map((c) => {
    const lineStart = text.lastIndexOf('\n', c.startOffset - 1) + 1
    const body = c.image.slice(1)
    return { text: body.startsWith(' ') ? body.slice(1) : body, line: c.startLine ?? 1, offset: c.startOffset, standalone: text.slice(lineStart, c.startOffset).trim() === '' }
  })

  const commentsByLine = new Map(result.comments.map((c) => [c.line, c]))
  let parseErrors = false
  const parser = ruleParser()
  for (const segment of segments(lexed.tokens)) {
    if (diagnostics.length >= MAX_DIAGNOSTICS) {
      diagnostics.push(diagnostic('DSL027', `stopped after ${diagnostics.length} problems; the rest of the file was not checked`, tokenSpan(segment[0], file), { hint: 'fix the first errors and run again' }))
      parseErrors = true
      break
    }
    if (segment.length > MAX_RULE_TOKENS) {
      parseErrors = true
      diagnostics.push(diagnostic('DSL009', `rule has ${segment.length} tokens; the limit is ${MAX_RULE_TOKENS}`, tokenSpan(segment[0], file), { hint: 'split it into several rules' }))
      continue
    }
    const deep = tooDeep(segment)
    if (deep) {
      parseErrors = true
      diagnostics.push(diagnostic('DSL007', `condition nests deeper than ${MAX_NESTING} levels of parentheses and 'not'`, tokenSpan(deep, file), { hint: 'flatten it: a and b and c needs no parentheses' }))
      continue
    }
    parser.input = segment
    const cst = parser.ruleDef()
    const errors = dedupe(parser.errors)
    for (const e of errors) diagnostics.push(parseDiagnostic(e, segment, file))
    if (errors.length) parseErrors = true
    const ruleDiagnostics: Diagnostic[] = []
    const rule = ruleToAst(cst, file, ruleDiagnostics, errors.length > 0)
    for (const d of ruleDiagnostics) diagnostics.push(d)
    if (!rule) continue
    const whenTok = segment.find((t) => t.tokenType === T.When)
    if (whenTok && errors.some((e) => conditionError(e, whenTok, rule.when.span.endOffset, segment))) continue
    rule.doc = docAbove(commentsByLine, segment[0].startLine ?? 1)
    const last = segment[segment.length - 1]
    result.rules.push({ rule, startOffset: segment[0].startOffset, endOffset: last.endOffset! + 1, startLine: segment[0].startLine ?? 1, endLine: last.endLine ?? 1 })
  }
  for (const { rule } of result.rules) checkRule(rule, diagnostics, options)
  checkDuplicateNames(
    result.rules.map((r) => r.rule),
    diagnostics,
  )
  result.syntaxErrors = parseErrors || diagnostics.some((d) => SYNTAX_CODES.has(d.code))
  diagnostics.sort((a, b) => a.span.startOffset - b.span.startOffset)
  return result
}

/** How much text the lexer takes at a time (cut at a line end): it stops early on garbage. */
const LEX_CHUNK = 64 * 1024

/**
 * Lexes in chunks cut at line ends (no token spans lines, so this equals lexing the whole text) and
 * stops once a chunk pushes the error count past MAX_DIAGNOSTICS, so a large garbage file costs
 * little.
 */
function lex(whole: string): { tokens: IToken[]; comments: IToken[]; errors: ILexingError[]; stoppedAt?: number } {
  const cutoff = garbageCutoff(whole)
  const text = cutoff === undefined ? whole : whole.slice(0, cutoff)
  const tokens: IToken[] = []
  const comments: IToken[] = []
  const errors: ILexingError[] = []
  let base = 0
  let baseLine = 0
  while (base < text.length) {
    let end = base + LEX_CHUNK >= text.length ? text.length : text.indexOf('\n', base + LEX_CHUNK)
    end = end < 0 ? text.length : end + 1
    const chunk = base === 0 && end === text.length ? text : text.slice(base, end)
    const r = T.ruleLexer.tokenize(chunk)
    const shift = (t: IToken) => {
      if (base === 0) return t
      t.startOffset += base
      t.endOffset = (t.endOffset ?? t.startOffset) + base
      t.startLine = (t.startLine ?? 1) + baseLine
      t.endLine = (t.endLine ?? 1) + baseLine
      return t
    }
    for (const t of r.tokens) tokens.push(shift(t))
    for (const t of (r.groups.comments ?? []) as IToken[]) comments.push(shift(t))
    for (const e of r.errors) {
      if (errors.length >= MAX_DIAGNOSTICS) return { tokens, comments, errors, stoppedAt: base + e.offset }
      errors.push({ ...e, offset: e.offset + base, line: (e.line ?? 1) + baseLine })
    }
    baseLine += chunk.match(LINE_END)?.length ?? 0
    base = end
  }
  return cutoff === undefined ? { tokens, comments, errors } : { tokens, comments, errors, stoppedAt: cutoff }
}

/** Chevrotain counts these as line ends; chunk line numbers must agree. */
const LINE_END = /\r\n?|\n/g
/** Characters that can start or continue a token outside strings and comments (ASCII only). */
const LEXABLE = new Uint8Array(128)
for (const c of ' \t\n\r\f\v_."#{}(),=!~<>%/\\-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') LEXABLE[c.charCodeAt(0)] = 1

/**
 * Where a file stops looking like rules: the offset of the first character past MAX_DIAGNOSTICS
 * characters that no token can contain. A cheap scan, so a large garbage file is never fully lexed.
 */
function garbageCutoff(text: string): number | undefined {
  let bad = 0
  let inString = false
  let inComment = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || c === 13) {
      inString = false
      inComment = false
    } else if (inComment) continue
    else if (inString) {
      if (c === 92) {
        const next = text.charCodeAt(i + 1)
        if (next !== 10 && next !== 13) i++
      } else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 35) inComment = true
    else if ((c >= 128 || LEXABLE[c] === 0) && ++bad > MAX_DIAGNOSTICS) return i
  }
  return undefined
}

/** Cuts the token stream into rules: a rule starts at `rule`, or at a `when` once the current rule has its `then`. */
function segments(tokens: IToken[]): IToken[][] {
  const out: IToken[][] = []
  let cur: IToken[] = []
  let hasThen = false
  for (const t of tokens) {
    if (t.tokenType === T.Rule || (t.tokenType === T.When && hasThen)) {
      if (cur.length) out.push(cur)
      cur = []
      hasThen = false
    }
    if (t.tokenType === T.Then) hasThen = true
    cur.push(t)
  }
  if (cur.length) out.push(cur)
  return out
}

function tooDeep(segment: IToken[]): IToken | undefined {
  let depth = 0
  let nots = 0
  for (const t of segment) {
    if (t.tokenType === T.LParen) depth++
    else if (t.tokenType === T.RParen) depth = Math.max(0, depth - 1)
    if (t.tokenType === T.Not) nots++
    else if (t.tokenType !== T.LParen) nots = 0
    if (depth + nots > MAX_NESTING) return t
  }
  return undefined
}

function dedupe(errors: IRecognitionException[]): IRecognitionException[] {
  const seen = new Set<string>()
  return errors.filter((e) => {
    const key = `${e.token.startOffset}:${e.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function isReal(t: IToken | undefined): t is IToken {
  return !!t && !Number.isNaN(t.startOffset) && t.tokenType !== undefined && !t.isInsertedInRecovery && t.image !== ''
}

/** A parse error, anchored at the offending token, or at the previous one when the rule simply ended. */
function parseDiagnostic(e: IRecognitionException, segment: IToken[], file: string): Diagnostic {
  const previous = (e as IRecognitionException & { previousToken?: IToken }).previousToken
  const anchor = isReal(e.token) ? e.token : isReal(previous) ? previous : segment[segment.length - 1]
  let span = tokenSpan(anchor, file)
  const afterPrevious = !isReal(e.token) || (isReal(previous) && (previous.endLine ?? 0) < (e.token.startLine ?? 0))
  if (afterPrevious && isReal(previous)) span = tokenSpan(previous, file)
  if (afterPrevious) span = { ...span, startLine: span.endLine, startCol: span.endCol, startOffset: span.endOffset, endCol: span.endCol + 1, endOffset: span.endOffset + 1 }
  const word = isReal(e.token) && e.token.tokenType === T.Identifier && !e.token.image.includes('.') ? e.token.image : undefined
  const keyword = word && word.length > 1 ? closest(word, [...T.KEYWORD_WORDS]) : undefined
  if (keyword) return diagnostic('DSL003', e.message, tokenSpan(e.token, file), { hint: `did you mean '${keyword}'?`, suggestion: keyword })
  const hint = e.message.startsWith("expected 'then'")
    ? 'a rule reads: when <condition> then cause "…"'
    : e.message.startsWith('expected a comparison') || e.message.startsWith('expected a number')
      ? 'comparisons read signal OP quantity or signal OP fact, e.g. safepoint.sync > 2s, gc.pause > 33% of zk.session_timeout_limit'
      : undefined
  return diagnostic('DSL003', e.message, span, hint ? { hint } : {})
}

const OUTPUT_KEYWORDS = new Set([T.Cause, T.Advise, T.Runbook, T.Explains, T.Run, T.Severity])

/**
 * An error between `when` and `then` means the condition did not parse. Only a missing `then`
 * right after a complete condition, followed by an output clause, leaves the condition intact.
 */
function conditionError(e: IRecognitionException, whenTok: IToken, conditionEnd: number, segment: IToken[]): boolean {
  const thenTok = segment.find((t) => t.tokenType === T.Then && t.startOffset > whenTok.startOffset)
  if (!isReal(e.token)) return !thenTok
  const at = e.token.startOffset
  if (thenTok) return at >= whenTok.startOffset && at <= thenTok.startOffset
  if (at < whenTok.startOffset) return false
  const next = segment.find((t) => t.startOffset >= conditionEnd)
  return !(next === e.token && OUTPUT_KEYWORDS.has(e.token.tokenType))
}

/** The standalone comment lines that end on the line just above `line`. */
function docAbove(commentsByLine: Map<number, CommentLine>, line: number): string[] {
  const doc: string[] = []
  for (let want = line - 1; ; want--) {
    const c = commentsByLine.get(want)
    if (!c || !c.standalone) break
    doc.unshift(c.text)
  }
  return doc
}

export { describeToken, joinSpans }
