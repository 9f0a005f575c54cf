import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// The rule test README.md shows under "Write a rule" must pass as printed, against the shipped rules.
const ROOT = path.resolve(import.meta.dirname, '../..')

describe('README: the rule test it shows', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-readme-test-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('passes with kafka-why test', { timeout: 120_000 }, async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    const block = /```yaml\n(tests:\n[\s\S]*?)```/.exec(readme)
    expect(block, 'README.md has a ```yaml block starting with tests:').not.toBeNull()
    const file = path.join(dir, 'readme.yaml')
    writeFileSync(file, block![1])
    const r = await kafkaWhy(['test', file, '--rules', 'rules'], {}, ROOT)
    expect(r.stdout).toMatch(/^ok: 1 passed, 0 failed$/m)
    expect(r.code).toBe(0)
  })
})
