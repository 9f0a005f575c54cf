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
  if (!body.includes('\\') && !body.includes('{')) {
    return { text: { raw: body, parts: body ? [{ kind: 'literal', text: body }] : [], span }, problems: [] }
  }
  const chars: string[] = []
  const at: number[] = []
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && (body[i + 1] === '"' || body[i + 1] === '\\')) {
      chars.push(body[i + 1])
      at.push(i + 1)
      i++
    } else {
      chars.push(body[i])
      at.push(i + 1)
    }
  }
  const raw = chars.join('')
  const sub = (from: number, to: number): Span => {
    const s = at[from] ?? image.length
    const e = to < at.length ? at[to] : (at[to - 1] ?? 0) + 1
    return { ...span, startLine: span.startLine, endLine: span.startLine, startCol: span.startCol + s, endCol: span.startCol + e, startOffset: span.startOffset + s, endOffset: span.startOffset + e }
  }
  const parts: TextPart[] = []
  const problems: TextProblem[] = []
  let literal = ''
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c !== '{') {
      literal += c
      continue
    }
    if (raw[i + 1] === '{') {
      literal += '{'
      i++
      continue
    }
    const close = raw.indexOf('}', i + 1)
    const name = close < 0 ? '' : raw.slice(i + 1, close)
    if (close < 0 || !PLACEHOLDER_NAME.test(name)) {
      problems.push({
        message: close < 0 ? "placeholder '{' is never closed" : `'{${name}}' is not a placeholder name`,
        span: sub(i, close < 0 ? i + 1 : close + 1),
        hint: "write '{{' for a literal brace; placeholders look like {broker} or {safepoint.sync}",
      })
      literal += c
      continue
    }
    if (literal) parts.push({ kind: 'literal', text: literal })
    literal = ''
    parts.push({ kind: 'ref', name, span: sub(i, close + 1) })
    i = close
  }
  if (literal) parts.push({ kind: 'literal', text: literal })
  return { text: { raw, parts, span }, problems }
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
