import { readFileSync } from 'node:fs'
import { codeTitle, type Finding } from './finding.js'

/**
 * SARIF 2.1.0, what GitHub code scanning (`github/codeql-action/upload-sarif`) and other security
 * dashboards ingest: one run of the kafka-why tool, a reporting descriptor per code used, a result
 * per finding with its region. Checked against the OASIS 2.1.0 schema in test/cli/ci.test.ts.
 */

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
const LEVEL: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', note: 'note' }

/** The findings as a SARIF log (JSON text); `toolName` names the subcommand in the driver. */
export function toSarif(findings: readonly Finding[], toolName = 'kafka-why'): string {
  const codes = [...new Set(findings.map((f) => f.code))].sort()
  const index = new Map(codes.map((c, i) => [c, i]))
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: toolName,
            version: PACKAGE.version,
            rules: codes.map((code) => ({ id: code, name: code.replace(/[^A-Za-z0-9]+/g, '_'), shortDescription: { text: codeTitle(code) } })),
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'the directory kafka-why ran in (the repository root in CI)' } } },
        results: findings.map((f) => ({
          ruleId: f.code,
          ruleIndex: index.get(f.code)!,
          level: LEVEL[f.severity],
          message: { text: f.hint ? `${f.message}\nhint: ${f.hint}` : f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeURI(f.file), uriBaseId: '%SRCROOT%' },
                region: {
                  startLine: f.line,
                  startColumn: f.col,
                  ...(f.endLine !== undefined ? { endLine: f.endLine } : {}),
                  ...(f.endCol !== undefined ? { endColumn: f.endCol } : {}),
                },
              },
            },
          ],
        })),
      },
    ],
  }
  return JSON.stringify(log, null, 2)
}
