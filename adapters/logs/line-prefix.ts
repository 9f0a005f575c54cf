/**
 * A prefix that a collector or harness writes before every line, learned from a file's own lines:
 * literal text where the lines agree, and runs of digits and of spaces free to change length. It is
 * matched by a hand-written walk, not a RegExp: a pattern built from text ("\d+ *\d+ *…") backtracks
 * exponentially on a line that almost fits (a 604-byte log took 35 s). Each run is taken whole
 * (possessive), so a match costs one pass over the prefix, whatever the line holds.
 */

type Token = { kind: 'text'; text: string } | { kind: 'digits' } | { kind: 'spaces' }

/** A learned prefix; `key` is its shape as text, equal for prefixes that differ only in digits and padding. */
export type LinePrefix = { readonly tokens: readonly Token[]; readonly key: string }

const isDigit = (c: number) => c >= 48 && c <= 57

/** The shape of one line's prefix: its digit and space runs become free runs, the rest stays literal. */
export function prefixShape(prefix: string): LinePrefix {
  const tokens: Token[] = []
  let key = ''
  let i = 0
  while (i < prefix.length) {
    const c = prefix.charCodeAt(i)
    let j = i + 1
    if (isDigit(c)) {
      while (isDigit(prefix.charCodeAt(j))) j++
      tokens.push({ kind: 'digits' })
      key += '\u0001'
    } else if (c === 32) {
      while (prefix.charCodeAt(j) === 32) j++
      tokens.push({ kind: 'spaces' })
      key += '\u0002'
    } else {
      while (j < prefix.length && !isDigit(prefix.charCodeAt(j)) && prefix.charCodeAt(j) !== 32) j++
      const text = prefix.slice(i, j)
      tokens.push({ kind: 'text', text })
      key += text
    }
    i = j
  }
  return { tokens, key }
}

/**
 * Length of the prefix at the start of `line`, or -1 when the line does not carry it. Linear in the
 * prefix's length: every run is consumed whole and never given back.
 */
export function matchLinePrefix(p: LinePrefix, line: string): number {
  let i = 0
  for (const t of p.tokens) {
    if (t.kind === 'text') {
      if (!line.startsWith(t.text, i)) return -1
      i += t.text.length
    } else if (t.kind === 'digits') {
      if (!isDigit(line.charCodeAt(i))) return -1
      while (isDigit(line.charCodeAt(i))) i++
    } else {
      while (line.charCodeAt(i) === 32) i++
    }
  }
  return i
}
