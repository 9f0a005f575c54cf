import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { COMMANDS } from '../../../cli/command-line/commands.js'
import type { CommandSpec } from '../../../cli/command-line/option-spec.js'
import { runCommandLine } from '../../../cli/command-line/program.js'
import { kafkaWhy } from '../../support/kafka-why-cli.js'

// The command line as users meet it: unknown words answered with a suggestion, every usage error one
// line and exit code 2, and a --help for every command that lists what it accepts.

const ROOT = new URL('../../../', import.meta.url).pathname

let stdout: string[]
let stderr: string[]
beforeEach(() => {
  stdout = []
  stderr = []
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (stdout.push(String(chunk)), true))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true))
  vi.spyOn(console, 'error').mockImplementation((...a) => void stderr.push(`${a.join(' ')}\n`))
})
afterEach(() => vi.restoreAllMocks())

describe('cli/command-line/program', () => {
  it('suggests the option meant, through the real entry point, in one line with exit 2', async () => {
    const r = await kafkaWhy(['why', '1', '--sinc', '1h'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe("kafka-why why: unknown option '--sinc' (Did you mean --since?)")
    expect(r.stderr).not.toMatch(/\n\s+at |TypeError|ERR_PARSE_ARGS/)
  })

  it.each([
    [['wyh', '1'], "kafka-why: unknown command 'wyh' (Did you mean why?)"],
    [['lint', '--formt', 'json'], "kafka-why lint: unknown option '--formt' (Did you mean --format?)"],
    [['lab', 'cluster', '--broker', '3'], "kafka-why lab cluster: unknown option '--broker' (Did you mean --brokers?)"],
  ])('%j → %s', async (argv, line) => {
    expect(await runCommandLine(argv)).toBe(2)
    expect(stderr.join('').split('\n')[0]).toBe(line)
  })

  it.each([
    { argv: ['why', '1', '--since'], says: "option '--since <duration>' argument missing" },
    { argv: ['why', '1', '2'], says: "too many arguments for 'why'" },
    { argv: ['lint', '--format', 'html'], says: "argument 'html' is invalid. Allowed choices are text, json, github, sarif, checkstyle" },
    { argv: ['fmt', '--check', '--stdout'], says: "option '--check' cannot be used with option '--stdout'" },
    { argv: ['agent', '--pid', '1'], says: "required option '--broker <id>' not specified" },
    { argv: ['completion', 'fish'], says: "argument 'shell'. Allowed choices are bash, zsh" },
    { argv: ['lab'], says: "missing required argument 'scenario'" },
    { argv: [], says: 'Usage: kafka-why <command> [options]' },
    { argv: ['why', '3', '--since', 'banana'], says: "kafka-why why: --since: expected a duration such as 15s, 10m or 1h, got 'banana'\n(kafka-why why --help for usage)" },
    { argv: ['replay'], says: 'kafka-why replay: replay needs at least one file or directory' },
  ])('exits 2 on $argv: $says', async ({ argv, says }) => {
    expect(await runCommandLine(argv)).toBe(2)
    expect(stderr.join('')).toContain(says)
    expect(stdout.join('')).toBe('')
  })

  it('answers help with exit 0 on stdout, also as `kafka-why help <command>`', async () => {
    expect(await runCommandLine(['--help'])).toBe(0)
    for (const c of COMMANDS) expect(stdout.join('')).toMatch(new RegExp(`^  ${c.name} .*${c.summary.slice(0, 20).replace(/[()]/g, '.')}`, 'm'))
    stdout.length = 0
    expect(await runCommandLine(['help', 'why'])).toBe(0)
    expect(stdout.join('')).toContain('Usage: kafka-why why [options] [broker]')
    stdout.length = 0
    expect(await runCommandLine(['--version'])).toBe(0)
    expect(stdout.join('')).toBe(`${JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version}\n`)
  })

  const all = (commands: readonly CommandSpec[], parent: string[] = []): [string, string[], CommandSpec][] =>
    commands.flatMap((c) => [[[...parent, c.name].join(' '), [...parent, c.name], c] as [string, string[], CommandSpec], ...all(c.subcommands ?? [], [...parent, c.name])])

  it.each(all(COMMANDS))('`%s --help` lists every option and argument it accepts', async (_name, path, spec) => {
    expect(await runCommandLine([...path, '--help'])).toBe(0)
    const help = stdout.join('')
    expect(help).toContain(`Usage: kafka-why ${path.join(' ')}`)
    for (const option of Object.values(spec.options)) {
      const long = /--[\w-]+/.exec(option.flags)![0]
      expect(help, option.flags).toContain(long)
      if (option.negatable !== undefined) expect(help).toContain(`--no-${long.slice(2)}`)
    }
    for (const argument of spec.arguments ?? []) expect(help).toContain(argument.name)
    for (const sub of spec.subcommands ?? []) expect(help).toContain(sub.name)
    expect(help).toContain('-h, --help')
  })

  it('has every command in the reference page, docs/cli.md', () => {
    const doc = readFileSync(`${ROOT}docs/cli.md`, 'utf8')
    for (const c of COMMANDS) expect(doc, c.name).toMatch(new RegExp(`^\\| \`${c.name}\\b`, 'm'))
  })

  it('runs lint without loading a Slack, Kafka or Redis client', async () => {
    // CommonJS packages imported from ESM land in require.cache; a command that opens the store
    // (replay) proves the probe sees a client when one is loaded.
    const probe = `
      import { createRequire } from 'node:module'
      const { main } = await import('./cli/main.ts')
      const code = await main(process.argv.slice(1))
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules\\/(kafkajs|@slack|ioredis)\\//.test(f))
      console.log(JSON.stringify({ code, clients: [...new Set(loaded.map((f) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(f)[1]))] }))`
    const probeRun = async (...argv: string[]) => {
      const r = await promisify(execFile)('node', ['--import', 'tsx', '--input-type=module', '-e', probe, ...argv], { cwd: ROOT, env: { ...process.env, REDIS_URL: '' } }).catch((e) => e)
      return JSON.parse(r.stdout.trim().split('\n').at(-1)) as { code: number; clients: string[] }
    }
    expect(await probeRun('lint', 'rules')).toEqual({ code: 0, clients: [] })
    expect((await probeRun('replay', 'no/such/dir')).clients).toContain('ioredis')
  }, 60_000)
})
