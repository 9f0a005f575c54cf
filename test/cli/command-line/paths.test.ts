import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../../cli/main.js'

// Every command that reads rules, rule tests or recordings treats a path the same way: a path that
// does not exist, or a directory with nothing of its kind in it, is one line naming the path as it
// was given and exit code 2, so a typo in CI fails instead of passing over "0 files, 0 rules".

const SEED_000 = 'test/incidents/seed-000-stw-session-expiry'
const scratch = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-paths-'))
const EMPTY = path.join(scratch, 'empty')
const BINARY = path.join(scratch, 'binary.yaml')
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Runs the command line in this process and returns its exit code and everything it printed. */
async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const printed: string[] = []
  const keep = { log: console.log, error: console.error, write: process.stderr.write, outWrite: process.stdout.write }
  console.log = (...a: unknown[]) => void printed.push(a.join(' '))
  console.error = (...a: unknown[]) => void printed.push(a.join(' '))
  process.stderr.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stderr.write
  process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write
  try {
    const code = await main(argv)
    return { code, out: printed.join('\n') }
  } finally {
    Object.assign(console, { log: keep.log, error: keep.error })
    process.stderr.write = keep.write
    process.stdout.write = keep.outWrite
  }
}

describe('paths on the command line', () => {
  it.each([
    [['lint', 'no/such/rules'], 'kafka-why lint: no such file or directory: no/such/rules'],
    [['fmt', '--check', 'no/such/rules'], 'kafka-why fmt: no such file or directory: no/such/rules'],
    [['test', 'no/such/tests'], 'kafka-why test: no such file or directory: no/such/tests'],
    [['test', '--rules', 'no/such/rules'], 'kafka-why test: --rules: no such file or directory: no/such/rules'],
    [['why', '1', '--rules', 'no/such/rules', '--replay', SEED_000], 'kafka-why why: --rules: no such file or directory: no/such/rules'],
    [['replay', 'no/such/logs'], 'kafka-why replay: no such file or directory: no/such/logs'],
    [['why', '1', '--replay', 'no/such/logs'], 'kafka-why why: no such file or directory: no/such/logs'],
    [['console', '--rules', 'no/such/rules', '-c', 'help'], 'kafka-why console: --rules: no such file or directory: no/such/rules'],
    [['corpus', '--rules', 'no/such/rules'], 'kafka-why corpus: --rules: no such file or directory: no/such/rules'],
    [['ci', '--base', 'HEAD', '--replay', 'no/such/logs'], 'kafka-why ci: no such file or directory: no/such/logs'],
  ])('%j: a missing path is one line and exit code 2', { timeout: 60_000 }, async (argv, says) => {
    const r = await cli(argv)
    expect(r.code).toBe(2)
    expect(r.out).toContain(says)
    expect(r.out).not.toMatch(/\n\s+at /)
  })

  it.each([
    [['lint'], 'kafka-why lint: no *.rules files in'],
    [['fmt', '--check'], 'kafka-why fmt: no *.rules files in'],
    [['test'], 'kafka-why test: no rule-test files'],
    [['why', '1', '--replay', SEED_000, '--rules'], 'kafka-why why: --rules: no *.rules files in'],
  ])('%j on an empty directory is an error, not "0 files, 0 rules"', { timeout: 60_000 }, async (argv, says) => {
    mkdirSync(EMPTY, { recursive: true })
    const r = await cli([...argv, EMPTY])
    expect(r.code).toBe(2)
    expect(r.out).toContain(says)
    expect(r.out).toContain(`in ${EMPTY}\n`)
  })

  it('answers a non-text rule-test file in one line, with the path as given', { timeout: 60_000 }, async () => {
    writeFileSync(BINARY, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x3a, 0x20, 0x0a, 0x00]))
    const r = await cli(['test', BINARY])
    expect(r.code).toBe(1)
    const errors = r.out.split('\n').filter((l) => l.includes('✗'))
    expect(errors).toEqual([`  ✗ ${BINARY}:1: not a text file (a rule-test file is YAML with a top-level \`tests:\`)`])
    expect(r.out).not.toContain('coverage:')
    expect(r.out.length).toBeLessThan(500)
  })

  it('answers a non-text rule file in one diagnostic', { timeout: 60_000 }, async () => {
    const file = path.join(scratch, 'binary.rules')
    writeFileSync(file, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x00]))
    const r = await cli(['lint', file])
    expect(r.code).toBe(1)
    expect(r.out).toContain(`${file}:1:1 error DSL008 input contains NUL bytes`)
  })
})
