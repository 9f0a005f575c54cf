import type { Span, Text, TextPart } from './ast.js'

/**
 * Output strings: `\"` and `\\` escapes, `{name}` placeholders, `{{` for a literal brace. Each
 * placeholder keeps its own span so an unresolved one is underlined exactly.
 */
export type TextProblem = { message: string; span: Span; hint?: string }

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/

/** Decodes a string token (quotes included, closing quote possibly missing) that starts at `span`. */
export function readText(image: string, span: Span): { text: Text; problems: TextProblem[] } {
  const terminated = image.length >= 2 && image.endsWith('"') && !isEscapedQuote(image)
  const body = image.slice(1, terminated ? -1 : undefined)
  const hasEscape = body.includes('\\')
  if (!hasEscape && !body.includes('{')) {
    return { text: { raw: body, parts: body ? [{ kind: 'literal', text: body }] : [], span }, problems: [] }
  }
  let raw = body
  // Without escapes, raw character k sits at image offset k + 1; with them, `at` maps it.
  let at: number[] | undefined
  if (hasEscape) {
    const chars: string[] = []
    at = []
    for (let i = 0; i < body.length; i++) {
      at.push(i + 1)
      if (body[i] === '\\' && (body[i + 1] === '"' || body[i + 1] === '\\')) i++
      chars.push(body[i])
    }
    raw = chars.join('')
  }
  const parts: TextPart[] = []
  const problems: TextProblem[] = []
  let literal = ''
  let i = 0
  while (i < raw.length) {
    const open = raw.indexOf('{', i)
    if (open < 0) {
      literal += raw.slice(i)
      break
    }
    literal += raw.slice(i, open)
    if (raw[open + 1] === '{') {
      literal += '{'
      i = open + 2
      continue
    }
    const close = raw.indexOf('}', open + 1)
    const name = close < 0 ? '' : raw.slice(open + 1, close)
    if (close < 0 || !PLACEHOLDER_NAME.test(name)) {
      problems.push({
        message: close < 0 ? "placeholder '{' is never closed" : `'{${name}}' is not a placeholder name`,
        span: subSpan(span, at, raw.length, open, close < 0 ? open + 1 : close + 1),
        hint: "write '{{' for a literal brace; placeholders look like {broker} or {safepoint.sync}",
      })
      literal += '{'
      i = open + 1
      continue
    }
    if (literal) parts.push({ kind: 'literal', text: literal })
    literal = ''
    parts.push({ kind: 'ref', name, span: subSpan(span, at, raw.length, open, close + 1) })
    i = close + 1
  }
  if (literal) parts.push({ kind: 'literal', text: literal })
  return { text: { raw, parts, span }, problems }
}

/** The span of raw characters [from, to) of a string token that starts at `span`. */
function subSpan(span: Span, at: number[] | undefined, rawLength: number, from: number, to: number): Span {
  const offset = (k: number) => (at ? at[k] : k + 1)
  const s = offset(from)
  const e = to < rawLength ? offset(to) : offset(to - 1) + 1
  return { ...span, endLine: span.startLine, startCol: span.startCol + s, endCol: span.startCol + e, startOffset: span.startOffset + s, endOffset: span.startOffset + e }
}

function isEscapedQuote(image: string): boolean {
  let backslashes = 0
  for (let i = image.length - 2; i >= 1 && image[i] === '\\'; i--) backslashes++
  return image.length >= 2 && backslashes % 2 === 1
}

/** Writes `raw` back as a string literal; readText(quoteText(raw)).raw === raw. */
export function quoteText(raw: string): string {
  return `"${raw.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}
