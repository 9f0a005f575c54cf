import { describe, expect, it } from 'vitest'
import type { Span } from '../../dsl/ast.js'
import type { Diagnostic } from '../../dsl/diagnostics.js'
import { diagnosticsToJson, renderDiagnostics } from '../../dsl/index.js'

function at(file: string, line: number, col: number, endCol: number, endLine = line): Span {
  return { file, startLine: line, startCol: col, endLine, endCol, startOffset: 0, endOffset: 0 }
}
const diag = (span: Span, hint?: string): Diagnostic => ({ code: 'DSL012', severity: 'error', message: "unknown signal 'x'", span, ...(hint ? { hint } : {}) })

describe('dsl/render', () => {
  it.each([
    ['the STYLE.md layout', 'when a within 5s of safepoint.synch > 2s', at('r.rules', 1, 21, 36), 'did you mean?', ["r.rules:1:21 error DSL012 unknown signal 'x'", '  1 | when a within 5s of safepoint.synch > 2s', '    |                     ^^^^^^^^^^^^^^^', '  hint: did you mean?']],
    ['tabs shown as one space so the caret lines up', '\twhen\tbad', at('r.rules', 1, 7, 10), undefined, ["r.rules:1:7 error DSL012 unknown signal 'x'", '  1 |  when bad', '    |       ^^^']],
    ['a span over several lines underlines to the end of the first', 'when (a\nand b)', at('r.rules', 1, 6, 7, 2), undefined, ["r.rules:1:6 error DSL012 unknown signal 'x'", '  1 | when (a', '    |      ^^']],
    ['a zero-width span still gets a caret', 'when a', at('r.rules', 1, 7, 7), undefined, ["r.rules:1:7 error DSL012 unknown signal 'x'", '  1 | when a', '    |       ^']],
    ['no source: the location line and hint only', '', at('other.rules', 3, 1, 2), 'h', ["other.rules:3:1 error DSL012 unknown signal 'x'", '  hint: h']],
  ])('%s', (_name, src, span, hint, expected) => {
    const sources: Record<string, string> = span.file === 'r.rules' ? { 'r.rules': src } : {}
    expect(renderDiagnostics([diag(span, hint)], sources).split('\n')).toEqual(expected)
  })

  it('shows a window of a very long line with the caret under the span', () => {
    const src = `${'a and '.repeat(100)}safepoint.synch`
    const col = src.indexOf('safepoint.synch') + 1
    const lines = renderDiagnostics([diag(at('r.rules', 1, col, col + 15))], { 'r.rules': src }).split('\n')
    expect(lines[1].length).toBeLessThan(140)
    const caret = lines[2].indexOf('^')
    expect(lines[1].slice(caret, caret + 15)).toBe('safepoint.synch')
  })

  it('gives machines the same facts as JSON', () => {
    const d: Diagnostic = { ...diag(at('r.rules', 2, 3, 8), 'did you mean'), suggestion: 'safepoint.sync' }
    expect(JSON.parse(diagnosticsToJson([d]))).toEqual([{ file: 'r.rules', line: 2, col: 3, endLine: 2, endCol: 8, severity: 'error', code: 'DSL012', message: "unknown signal 'x'", hint: 'did you mean', suggestion: 'safepoint.sync' }])
  })
})
