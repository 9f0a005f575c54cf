import type { Diagnostic } from './diagnostics.js'

/**
 * Diagnostics for people (the STYLE.md layout: location, severity, code, message, the source line,
 * a caret under the span, a hint) and for machines (JSON with the same fields, 1-based positions).
 */

const MAX_SHOWN = 120

/** Renders diagnostics in source order; `sources` maps a file name to its text for the excerpt. */
export function renderDiagnostics(diagnostics: Diagnostic[], sources: Record<string, string>): string {
  const lineCache = new Map<string, string[]>()
  const linesOf = (file: string): string[] | undefined => {
    const src = sources[file]
    if (typeof src !== 'string') return undefined
    let lines = lineCache.get(file)
    if (!lines) {
      lines = src.split(/\r\n|\r|\n/)
      lineCache.set(file, lines)
    }
    return lines
  }
  const blocks: string[] = []
  for (const d of diagnostics) {
    const { span } = d
    const out = [`${span.file}:${span.startLine}:${span.startCol} ${d.severity} ${d.code} ${d.message}`]
    const line = linesOf(span.file)?.[span.startLine - 1]
    if (line !== undefined && !(d.code === 'DSL008' || d.code === 'DSL009')) {
      const gutter = String(span.startLine)
      const pad = ' '.repeat(gutter.length)
      const visible = line.replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '?')
      const width = span.endLine === span.startLine ? Math.max(1, span.endCol - span.startCol) : Math.max(1, visible.length - span.startCol + 1)
      let from = 0
      if (span.startCol > MAX_SHOWN - 20) from = span.startCol - 40
      const shown = visible.slice(from, from + MAX_SHOWN)
      const caretAt = span.startCol - 1 - from
      const caretWidth = Math.max(1, Math.min(width, shown.length - caretAt, MAX_SHOWN))
      out.push(`  ${gutter} | ${from > 0 ? '…' : ''}${shown}${from + MAX_SHOWN < visible.length ? '…' : ''}`)
      out.push(`  ${pad} | ${from > 0 ? ' ' : ''}${' '.repeat(Math.max(0, caretAt))}${'^'.repeat(caretWidth)}`)
    }
    if (d.hint) out.push(`  hint: ${d.hint}`)
    blocks.push(out.join('\n'))
  }
  return blocks.join('\n')
}

/** The JSON form of one diagnostic, as `lint --format json` prints it. */
export type DiagnosticJson = {
  file: string
  line: number
  col: number
  endLine: number
  endCol: number
  severity: Diagnostic['severity']
  code: Diagnostic['code']
  message: string
  hint?: string
  suggestion?: string
}

/** JSON text for tools and CI annotations: an array of DiagnosticJson. */
export function diagnosticsToJson(diagnostics: Diagnostic[]): string {
  const rows: DiagnosticJson[] = diagnostics.map((d) => {
    const row: DiagnosticJson = {
      file: d.span.file,
      line: d.span.startLine,
      col: d.span.startCol,
      endLine: d.span.endLine,
      endCol: d.span.endCol,
      severity: d.severity,
      code: d.code,
      message: d.message,
    }
    if (d.hint !== undefined) row.hint = d.hint
    if (d.suggestion !== undefined) row.suggestion = d.suggestion
    return row
  })
  return JSON.stringify(rows, null, 2)
}
