import { codeTitle, type Finding } from './finding.js'
import { escapeXml } from './xml.js'

/**
 * Checkstyle XML, the report format GitLab (through converters), Jenkins' warnings plugin, reviewdog
 * and most review bots read: a `<file>` per file, an `<error>` per finding with line, column,
 * severity, message and `source` (the code).
 */

const esc = (s: string) => escapeXml(s, { newlines: true })

const SEVERITY: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', note: 'info' }

/** The findings as one checkstyle document, files in first-seen order. */
export function toCheckstyle(findings: readonly Finding[]): string {
  const byFile = new Map<string, Finding[]>()
  for (const f of findings) {
    let list = byFile.get(f.file)
    if (!list) byFile.set(f.file, (list = []))
    list.push(f)
  }
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<checkstyle version="4.3">']
  for (const [file, list] of byFile) {
    out.push(`  <file name="${esc(file)}">`)
    for (const f of list) {
      const message = `${f.code} ${codeTitle(f.code)}: ${f.message}${f.hint ? ` (hint: ${f.hint})` : ''}`
      out.push(`    <error line="${f.line}" column="${f.col}" severity="${SEVERITY[f.severity]}" message="${esc(message)}" source="kafka-why.${esc(f.code)}"/>`)
    }
    out.push('  </file>')
  }
  out.push('</checkstyle>')
  return out.join('\n')
}
