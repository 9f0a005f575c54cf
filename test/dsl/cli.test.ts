import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { run as fmt } from '../../cli/commands/fmt.js'
import { run as lint } from '../../cli/commands/lint.js'
import { loadRules } from '../../rule-files/load-rules.js'

let dir: string
let out: string[]

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-why-dsl-'))
  out = []
  vi.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')))
  vi.spyOn(console, 'error').mockImplementation((...a) => void out.push(a.join(' ')))
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true))
})
afterEach(async () => {
  vi.restoreAllMocks()
  await rm(dir, { recursive: true, force: true })
})

const GOOD = 'rule oom\n  when jvm.oom\n  then cause "heap exhausted on {broker}"\n'
const MESSY = 'rule oom when   jvm.oom\n then cause "heap exhausted on {broker}"'
const BAD = 'rule stw when zk.session_timeout within 5s of safepoint.synch > 2s then cause "x"\n'

async function put(name: string, text: string): Promise<string> {
  const p = join(dir, name)
  await mkdir(join(p, '..'), { recursive: true })
  await writeFile(p, text)
  return p
}

describe('cli/commands/lint', () => {
  it.each([
    ['clean file', GOOD, 0],
    ['only warnings', 'when jvm.oom then cause "x"\n', 0],
    ['errors', BAD, 1],
  ])('%s exits %s', async (_name, text, code) => {
    expect(await lint([await put('a.rules', text)])).toBe(code)
  })

  it('renders file:line:col, the source line, a caret and a hint', async () => {
    const file = await put('jvm.rules', BAD)
    await lint([file])
    const text = out.join('\n')
    expect(text).toContain(`${file}:1:47 error DSL012 unknown signal 'safepoint.synch'`)
    expect(text).toContain("hint: did you mean 'safepoint.sync'?")
    expect(text).toMatch(/\| {47}\^{15}/)
  })

  it('prints JSON with --format json', async () => {
    const file = await put('jvm.rules', BAD)
    expect(await lint(['--format', 'json', file])).toBe(1)
    expect(JSON.parse(out.join('\n'))).toEqual([expect.objectContaining({ file, line: 1, col: 47, code: 'DSL012', severity: 'error', suggestion: 'safepoint.sync' })])
  })

  it('applies --retention to windows', async () => {
    const file = await put('r.rules', 'rule leak when trend(heap.after_gc) over 6h > 0 then cause "x"\n')
    expect(await lint(['--retention', '1d', file])).toBe(0)
    expect(await lint(['--retention=1h', file])).toBe(1)
    expect(out.join('\n')).toContain('DSL021')
  })

  it.each([[['--format', 'yaml']], [['--retention', '3GB']], [['--bogus']]])('rejects bad usage %j with exit 2', async (argv) => {
    expect(await lint([...argv, dir])).toBe(2)
  })
})

describe('rule-files/load-rules', () => {
  it('reads *.rules recursively in name order and skips other files', async () => {
    await put('b.rules', 'rule b when jvm.oom then cause "b"\n')
    await put('sub/deeper/a.rules', 'rule a when disk.full then cause "a"\n')
    await put('notes.txt', 'rule c when nonsense')
    const { rules, diagnostics } = await loadRules([dir])
    expect(rules.map((r) => r.id)).toEqual(['b', 'a'])
    expect(diagnostics).toEqual([])
  })

  it('reports a rule name used in two files once, pointing at the first', async () => {
    const first = await put('a.rules', 'rule dup when jvm.oom then cause "a"\n')
    const second = await put('b.rules', 'rule dup when disk.full then cause "b"\nrule dup when fd.exhausted then cause "c"\n')
    const { diagnostics } = await loadRules([dir])
    const dups = diagnostics.filter((d) => d.code === 'DSL017')
    expect(dups.map((d) => [d.span.file, d.span.startLine])).toEqual([
      [second, 2],
      [second, 1],
    ])
    expect(dups[1].hint).toContain(`${first}:1:1`)
  })

  it('turns a missing path into a diagnostic', async () => {
    const { diagnostics } = await loadRules([join(dir, 'nope.rules')])
    expect(diagnostics.map((d) => d.code)).toEqual(['DSL026'])
  })
})

describe('cli/commands/fmt', () => {
  it('rewrites files in place, then --check passes', async () => {
    const file = await put('a.rules', MESSY)
    expect(await fmt(['--check', file])).toBe(1)
    expect(await readFile(file, 'utf8')).toBe(MESSY)
    expect(await fmt([file])).toBe(0)
    expect(await readFile(file, 'utf8')).toBe(GOOD)
    expect(await fmt(['--check', file])).toBe(0)
  })

  it('prints with --stdout and leaves the file alone', async () => {
    const file = await put('a.rules', MESSY)
    expect(await fmt(['--stdout', file])).toBe(0)
    expect(out.join('')).toContain(GOOD)
    expect(await readFile(file, 'utf8')).toBe(MESSY)
  })

  it('prints only JSON on stdout with --format json', async () => {
    const messy = await put('a.rules', MESSY)
    const broken = await put('b.rules', 'rule b when jvm.oom and then cause "x"\n')
    const stdout: string[] = []
    vi.mocked(console.log).mockImplementation((...a) => void stdout.push(a.join(' ')))
    expect(await fmt(['--check', '--format', 'json', messy, broken])).toBe(1)
    expect(JSON.parse(stdout.join('\n'))).toEqual([expect.objectContaining({ file: broken, code: 'DSL003' })])
    expect(out.join('\n')).toContain(`not formatted: ${messy}`)
  })

  it('never rewrites a file with syntax errors', async () => {
    const broken = 'rule a when jvm.oom and then cause "x"\n'
    const file = await put('a.rules', broken)
    expect(await fmt([file])).toBe(1)
    expect(await readFile(file, 'utf8')).toBe(broken)
    expect(out.join('\n')).toContain('DSL003')
  })
})
