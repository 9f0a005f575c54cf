// Golden files for rule-language diagnostics: test/dsl/golden/<case>.rules is the input and
// <case>.out the rendered diagnostics. A case named dslNNN-… must report code DSLNNN.
// Regenerate after an intended change with: UPDATE_GOLDEN=1 npx vitest run test/dsl/golden.test.ts
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseRules, renderDiagnostics } from '../../dsl/index.js'

const dir = join(import.meta.dirname, 'golden')
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.rules'))
  .map((f) => f.slice(0, -'.rules'.length))
  .sort()
const RETENTION_MS = 7 * 86_400_000

describe('dsl/golden', () => {
  it('has at least 15 distinct error codes covered', () => {
    const codes = new Set(cases.map((c) => /^dsl\d{3}/.exec(c)?.[0]).filter(Boolean))
    expect(codes.size).toBeGreaterThanOrEqual(15)
  })

  it.each(cases)('%s', (name) => {
    const file = `golden/${name}.rules`
    const text = readFileSync(join(dir, `${name}.rules`), 'utf8')
    const { diagnostics } = parseRules(text, file, { retentionMs: RETENTION_MS })
    const rendered = `${renderDiagnostics(diagnostics, { [file]: text })}\n`
    const code = /^dsl(\d{3})/.exec(name)
    if (code) expect(diagnostics.map((d) => d.code)).toContain(`DSL${code[1]}`)
    else expect(diagnostics.length).toBeGreaterThan(0)
    const outPath = join(dir, `${name}.out`)
    if (process.env.UPDATE_GOLDEN || !existsSync(outPath)) writeFileSync(outPath, rendered)
    expect(rendered).toBe(readFileSync(outPath, 'utf8'))
  })
})
