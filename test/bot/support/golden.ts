import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

/**
 * Golden files under test/bot/golden/, named after their test. The first line names the command that
 * regenerates them; review the diff before committing a regenerated file.
 */
export function expectGolden(name: string, value: unknown, testFile: string): void {
  const path = fileURLToPath(new URL(`../golden/${name}.golden`, import.meta.url))
  const body = `${JSON.stringify(value, null, 2)}\n`
  const header = `// ${name}: regenerate with UPDATE_GOLDEN=1 npx vitest run ${testFile}\n`
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    writeFileSync(path, header + body)
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`golden file ${name} was missing and has been written; re-run`)
    return
  }
  const stored = readFileSync(path, 'utf8')
  expect(stored.slice(stored.indexOf('\n') + 1)).toBe(body)
}
