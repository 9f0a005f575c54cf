import { describe, expect, it } from 'vitest'
import { parseRules, renderDiagnostics } from '../../dsl/index.js'

const RULE = 'rule ok when jvm.oom then cause "heap exhausted"\n'

function timed<T>(f: () => T): { result: T; ms: number } {
  const started = performance.now()
  const result = f()
  return { result, ms: performance.now() - started }
}

describe('dsl/bad-input', () => {
  it.each([
    ['binary file', () => Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919) % 256)).toString('utf8'), 'DSL008', 0],
    ['10 MB file', () => RULE.repeat(Math.ceil((10 * 1024 * 1024) / RULE.length)), 'DSL009', 0],
    ['1,000 nested parentheses', () => `rule deep when ${'('.repeat(1000)}jvm.oom${')'.repeat(1000)} then cause "x"\n${RULE}`, 'DSL007', 1],
    ['1,000 nested nots', () => `rule deep when ${'not '.repeat(1000)}jvm.oom then cause "x"\n${RULE}`, 'DSL007', 1],
    ['unterminated string', () => `rule a when jvm.oom then cause "heap exhausted\n${RULE}`, 'DSL002', 2],
    ['tab/CRLF mix', () => `rule a\r\n\twhen jvm.oom\n\t\tand safepoint.sync > 3GB\r\n then\tcause "x"\r\n${RULE.replace(/\n/, '\r\n')}`, 'DSL014', 2],
    ['lone carriage returns', () => `rule a\rwhen jvm.oom\rthen cause "x" @\r${RULE}`, 'DSL001', 2],
    ['3 MB of characters no token can hold', () => 'x@'.repeat(1_500_000), 'DSL027', 0],
    ['thousands of broken rules', () => 'rule a when then\n'.repeat(20_000), 'DSL027', 0],
    ['one rule of 100,000 tokens', () => `rule a when ${Array.from({ length: 50_000 }, () => 'jvm.oom').join(' and ')} then cause "x"\n${RULE}`, 'DSL009', 1],
    ['unbalanced parentheses', () => `rule a when (jvm.oom and (disk.full) then cause "x"\n${RULE}`, 'DSL003', 1],
  ])('%s: diagnosed in bounded time, the good rules kept', (_name, make, code, kept) => {
    const src = make()
    const { result, ms } = timed(() => parseRules(src, 'bad.rules'))
    expect(result.diagnostics.map((d) => d.code)).toContain(code)
    expect(result.rules.length).toBe(kept)
    expect(ms).toBeLessThan(2000)
    const rendered = renderDiagnostics(result.diagnostics, { 'bad.rules': src })
    expect(rendered).toContain(code)
    expect(rendered.split('\n').every((line) => line.length < 400)).toBe(true)
  })

  it('reports the right line and column after tabs and mixed line ends', () => {
    const src = 'rule a\r\n\twhen jvm.oom\n\t\tand safepoint.sync > 3GB\r\n then cause "x"\r\n'
    const d = parseRules(src, 'mix.rules').diagnostics.find((x) => x.code === 'DSL014')
    expect(d?.span).toMatchObject({ startLine: 3, startCol: 24 })
    expect(src.slice(d!.span.startOffset, d!.span.endOffset)).toBe('3GB')
  })

  it('keeps line numbers and offsets exact across a large file with every kind of line end', () => {
    const ends = ['\n', '\r\n', '\r']
    const lines: string[] = []
    for (let i = 0; i < 9000; i++) lines.push(i % 3 === 0 ? `rule r${i / 3}` : i % 3 === 1 ? '  when jvm.oom # note' : '  then cause "x"')
    lines.push('rule last', '  when safepoint.synch > 2s', '  then cause "x"')
    const src = lines.map((l, i) => l + ends[i % 3]).join('')
    expect(src.length).toBeGreaterThan(2 * 64 * 1024)
    const { rules, diagnostics } = parseRules(src, 'big.rules')
    expect(rules).toHaveLength(3001)
    expect(diagnostics).toHaveLength(1)
    expect(diagnostics[0].span).toMatchObject({ startLine: 9002, startCol: 8 })
    expect(src.slice(diagnostics[0].span.startOffset, diagnostics[0].span.endOffset)).toBe('safepoint.synch')
    expect(rules[3000].span.startLine).toBe(9001)
  })

  it('keeps parsing the rules after an unterminated string', () => {
    const { rules, diagnostics } = parseRules('rule a when jvm.oom then cause "oops\nrule b when disk.full then cause "full"\n', 'u.rules')
    expect(rules.map((r) => r.id)).toEqual(['a', 'b'])
    expect(diagnostics.filter((d) => d.code === 'DSL002').map((d) => d.span.startLine)).toEqual([1])
  })

  it('parses a file just under the size limit in bounded time', () => {
    const src = RULE.replace('rule ok', 'rule r{n}')
    const big = Array.from({ length: 20_000 }, (_, n) => src.replace('{n}', String(n))).join('')
    const { result, ms } = timed(() => parseRules(big, 'big.rules'))
    expect(result.rules.length).toBe(20_000)
    expect(result.diagnostics).toEqual([])
    expect(ms).toBeLessThan(20_000)
  })
})
