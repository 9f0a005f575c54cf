import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { AggregateCond, Atom, Cond, LabelMatcher, Quantity, Rule, Span, StreamCond, Text, TextPart } from '../../dsl/ast.js'
import { formatRule, formatRules, parseRules, renderDiagnostics } from '../../dsl/index.js'
import { SYNTAX_CODES } from '../../dsl/parse-file.js'
import { readQuantity } from '../../dsl/quantity.js'
import { KEYWORD_WORDS } from '../../dsl/tokens.js'

const SPAN: Span = { file: 'p.rules', startLine: 0, startCol: 0, endLine: 0, endCol: 0, startOffset: 0, endOffset: 0 }

/** Drops every position (and ids derived from positions) so ASTs compare by meaning. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (!/span$/i.test(k) && !/Spans$/.test(k)) out[k] = strip(v)
    return out
  }
  return value
}
function stripRule(r: Rule): unknown {
  const s = strip(r) as Record<string, unknown>
  if (r.name === undefined) delete s.id
  return s
}

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((w) => !KEYWORD_WORDS.has(w))
const signalName = fc.oneof(fc.constantFrom('zk.session_timeout', 'safepoint.sync', 'isr.shrink', 'heap.after_gc', 'config.segment_ms', 'broker.version'), fc.tuple(word, word).map(([a, b]) => `${a}.${b}`))
const labelName = fc.oneof(fc.constantFrom('topic', 'partition', 'kind', 'cause', 'group', 'for', 'by'), word)
const noNewline = fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ' '))

const quantityOf = (texts: string[]) =>
  fc.constantFrom(...texts).map((text): Quantity => {
    const q = readQuantity(text)
    if ('message' in q) throw new Error(text)
    return { value: q.value, dimension: q.dimension, text, span: SPAN }
  })
const anyQuantity = quantityOf(['2s', '500ms', '10ns', '5us', '1m', '2h', '1d', '3GiB', '512MiB', '100KB', '10B', '20%', '2/s', '100/m', '30', '0', '-1', '1.5s', '2.2.1', '0.10.2.1'])
const duration = quantityOf(['5s', '30s', '1m', '10m', '1h', '6h', '1d', '250ms'])
const compareOp = fc.constantFrom('>', '>=', '<', '<=', '==', '!=' as const)

const labelMatcher = fc.record({ name: labelName, op: fc.constantFrom('=', '!=', '=~', '!~' as const), value: noNewline }).map((l): LabelMatcher => ({ ...l, span: SPAN }))
const atom = fc.record({ signal: signalName, labels: fc.array(labelMatcher, { maxLength: 2 }) }).map((a): Atom => ({ ...a, span: SPAN }))

const stream = fc
  .record({ atom, compare: fc.option(fc.record({ op: compareOp, value: anyQuantity }), { nil: undefined }), sustain: fc.option(duration, { nil: undefined }) })
  .map(({ atom, compare, sustain }): StreamCond => {
    const s: StreamCond = { kind: 'stream', atom, span: SPAN }
    if (compare) {
      s.compare = compare
      if (sustain) {
        s.forMs = sustain.value
        s.forText = sustain.text
      }
    }
    return s
  })

const aggregate = fc
  .record({ fn: fc.constantFrom('count', 'rate', 'max', 'min', 'avg', 'sum', 'increase', 'trend' as const), atom, by: fc.array(labelName, { maxLength: 2 }), over: duration, op: compareOp, value: anyQuantity })
  .map((a): AggregateCond => ({ kind: 'aggregate', fn: a.fn, atom: a.atom, by: a.by, overMs: a.over.value, overText: a.over.text, compare: { op: a.op, value: a.value }, span: SPAN }))

const temporal = fc.record({ op: fc.constantFrom('within', 'before', 'after' as const), left: stream, right: stream, window: duration }).map(
  (t): Cond => ({ kind: 'temporal', op: t.op, left: t.left, right: t.right, windowMs: t.window.value, windowText: t.window.text, span: SPAN }),
)

const group = (c: Cond): Cond => ({ kind: 'group', inner: c, span: SPAN })

/** Conditions in the shape the parser produces: nested and/or only inside parentheses. */
const cond: fc.Arbitrary<Cond> = fc.letrec<{ cond: Cond }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stream,
    aggregate,
    temporal,
    tie('cond').map((c): Cond => ({ kind: 'not', operand: c.kind === 'and' || c.kind === 'or' ? group(c) : c, span: SPAN })),
    tie('cond').map(group),
    fc.array(tie('cond'), { minLength: 2, maxLength: 3 }).map((ops): Cond => ({ kind: 'and', operands: ops.map((c) => (c.kind === 'and' || c.kind === 'or' ? group(c) : c)), span: SPAN })),
    fc.array(tie('cond'), { minLength: 2, maxLength: 3 }).map((ops): Cond => ({ kind: 'or', operands: ops.map((c) => (c.kind === 'or' ? group(c) : c)), span: SPAN })),
  ),
})).cond

/** Output text built from literal and placeholder pieces; the expected parts are built independently of the parser. */
const text = fc.array(fc.oneof(noNewline.map((s) => ({ lit: s })), fc.oneof(labelName, signalName).map((n) => ({ ref: n }))), { maxLength: 4 }).map((pieces): Text => {
  let raw = ''
  const parts: TextPart[] = []
  for (const p of pieces) {
    if ('lit' in p) {
      raw += p.lit.replace(/\{/g, '{{')
      const last = parts[parts.length - 1]
      if (last?.kind === 'literal') last.text += p.lit
      else if (p.lit) parts.push({ kind: 'literal', text: p.lit })
    } else {
      raw += `{${p.ref}}`
      parts.push({ kind: 'ref', name: p.ref, span: SPAN })
    }
  }
  return { raw, parts, span: SPAN }
})

const rule = fc
  .record({
    name: fc.option(word, { nil: undefined }),
    severity: fc.constantFrom('info', 'warning', 'critical' as const),
    when: cond,
    cause: text,
    advise: fc.option(text, { nil: undefined }),
    runbook: fc.option(text, { nil: undefined }),
    explains: fc.array(signalName, { maxLength: 3 }),
    run: fc.array(text, { maxLength: 2 }),
    doc: fc.array(noNewline, { maxLength: 2 }),
  })
  .map((r): Rule => {
    const out: Rule = { id: r.name ?? 'unnamed', file: 'p.rules', severity: r.severity, when: r.when, cause: r.cause, explains: r.explains.map((signal) => ({ signal, span: SPAN })), run: r.run, doc: r.doc, span: SPAN }
    if (r.name !== undefined) out.name = r.name
    if (r.advise) out.advise = r.advise
    if (r.runbook) out.runbook = r.runbook
    return out
  })

const rulesFile = fc.array(rule, { minLength: 1, maxLength: 4 }).map((rules) => {
  const names = new Set<string>()
  return rules.filter((r) => r.name === undefined || (!names.has(r.name) && names.add(r.name)))
})


describe('dsl/properties', () => {
  it('formats random rule ASTs to text that parses back to the same ASTs', () => {
    fc.assert(
      fc.property(rulesFile, (rules) => {
        const src = `${rules.map(formatRule).join('\n\n')}\n`
        const parsed = parseRules(src, 'p.rules')
        expect(parsed.diagnostics.filter((d) => SYNTAX_CODES.has(d.code))).toEqual([])
        expect(parsed.rules.map(stripRule)).toEqual(rules.map(stripRule))
      }),
      { numRuns: 300 },
    )
  })

  it('leaves formatted text unchanged (fmt is idempotent) and normalises any layout to it', () => {
    const layout = fc.array(fc.constantFrom(' ', '\n', '\t', '\r\n', '\n\n  ', '  '), { minLength: 200, maxLength: 200 })
    fc.assert(
      fc.property(rulesFile, layout, (rules, seps) => {
        const canonical = `${rules.map(formatRule).join('\n\n')}\n`
        expect(formatRules(canonical, 'p.rules').text).toBe(canonical)
        let i = 0
        const lines = canonical.split('\n')
        let messy = ''
        for (const [k, line] of lines.entries()) {
          const next = lines[k + 1]
          const body = line.trimStart()
          messy += body
          if (k === lines.length - 1) break
          const joinable = !body.startsWith('#') && next !== undefined && next.trim() !== '' && !next.trimStart().startsWith('#')
          messy += joinable ? seps[i++ % seps.length] : '\n'
        }
        const once = formatRules(messy, 'p.rules').text
        expect(formatRules(once, 'p.rules').text).toBe(once)
        expect(parseRules(once, 'p.rules').rules.map(stripRule)).toEqual(parseRules(canonical, 'p.rules').rules.map(stripRule))
      }),
      { numRuns: 200 },
    )
  })

  it('never throws and finishes quickly on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        const src = Buffer.from(bytes).toString('utf8')
        const started = performance.now()
        const { diagnostics } = parseRules(src, 'b.rules')
        renderDiagnostics(diagnostics, { 'b.rules': src })
        formatRules(src, 'b.rules')
        expect(performance.now() - started).toBeLessThan(1000)
      }),
      { numRuns: 300 },
    )
  })

  it('never throws, finishes quickly and formats idempotently on token soups', () => {
    const tokens = fc.constantFrom('rule', 'when', 'then', 'cause', 'advise', 'runbook', 'explains', 'run', 'severity', 'critical', 'within', 'of', 'before', 'after', 'for', 'by', 'over', 'and', 'or', 'not', 'count', 'rate', 'trend', '(', ')', '{', '}', ',', '=', '!=', '=~', '!~', '>', '>=', '<', '==', '2s', '3GiB', '20%', '2/s', '2.2.1', '30', '1x', 'isr.shrink', 'safepoint.sync', 'topic', '"text {broker}"', '"unterminated', '"{', '# comment\n', '\n', '\t', '@', '\r\n')
    fc.assert(
      fc.property(fc.array(tokens, { maxLength: 120 }), fc.constantFrom(' ', '', '\n'), (soup, sep) => {
        const src = soup.join(sep)
        const started = performance.now()
        const { diagnostics } = parseRules(src, 's.rules')
        renderDiagnostics(diagnostics, { 's.rules': src })
        const once = formatRules(src, 's.rules').text
        expect(formatRules(once, 's.rules').text).toBe(once)
        expect(performance.now() - started).toBeLessThan(1000)
      }),
      { numRuns: 500 },
    )
  })
})
