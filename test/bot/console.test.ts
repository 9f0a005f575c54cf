import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'
import { ROOT } from './support/bot-context.js'
import { readPngHeader } from './support/png.js'

type Run = { code: number | null; out: string; err: string }

/** Runs the real CLI as a user would, with optional stdin, bounded in time. */
function cli(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'cli/kafka-why.mjs'), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', REDIS_URL: '' }, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out, err })
    })
    child.stdin.end(stdin ?? '')
  })
}

/**
 * The same command line in-process, for runs that read no stdin: what cli() gives without the 2.5 s of
 * CPU a process spends loading modules. The REPL and the usage error still go through a process.
 */
async function inProcess(args: string[]): Promise<Run> {
  const r = await kafkaWhyInProcess(args, { NO_COLOR: '1' }, ROOT)
  return { code: r.code, out: r.stdout, err: r.stderr }
}

describe('cli/commands/console and cli/commands/digest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-why-console-'))
  const png = join(dir, 'chart.png')
  const specFile = join(dir, 'chart.json')
  let why: Run, unknown: Run, injection: Run, repl: Run, digest: Run, badOption: Run

  beforeAll(async () => {
    ;[why, unknown, injection, repl, digest, badOption] = await Promise.all([
      inProcess(['console', '-c', 'why 1']),
      inProcess(['console', '-c', '/kafka why 9']),
      inProcess(['console', '-c', 'config topic orders set segment.ms=1; rm -rf /']),
      cli(['console'], 'why 1\nclick 2\nstatus\nclick 99\nquit\n'),
      inProcess(['digest', '--out', png, '--spec', specFile]),
      cli(['console', '--frobnicate']),
    ])
  }, 240_000)

  it('answers a one-shot why over the default recorded incident', () => {
    expect(why.code, why.err).toBe(0)
    expect(why.out).toMatch(/^Broker 1 \(perf-lab\): \d+ likely causes?/)
    expect(why.out).toContain('1. JVM stop-the-world pause on broker 1')
    expect(why.out).toContain('WARN Client session timed out, have not heard from server in 7768ms')
    expect(why.out).toMatch(/\[\d+: Silence 1h\] → silence stw_pause_session_expiry 1h/)
  })

  it.each([
    ['an unknown broker', () => unknown, /Broker 9 is unknown in cluster perf-lab: no signals are stored for it\. Known brokers: 1\./],
    ['an injection attempt', () => injection, /The character ";" is not accepted in commands.*Nothing was run\./],
  ])('exits 1 with a clear message for %s', (_, result, message) => {
    const r = result()
    expect(r.code).toBe(1)
    expect(r.out).toMatch(message)
  })

  it('takes commands and button clicks in the REPL, and the silence button works', () => {
    expect(repl.code, repl.err).toBe(0)
    expect(repl.out).toMatch(/Loaded \d+ signals from .*seed-000-stw-session-expiry/)
    expect(repl.out).toMatch(/Silenced `?stw_pause_session_expiry`? for 1h/)
    expect(repl.out).toMatch(/Status of perf-lab[\s\S]*Silences:[\s\S]*stw_pause_session_expiry/)
    // status after loading the incident shows what was firing at its last moment, not "Nothing firing"
    expect(repl.out).toMatch(/Status of perf-lab\n=+\n\d+ firing:\n• stw_pause_session_expiry broker 1 since 2018-08-14 02:16/)
    expect(repl.out).not.toContain('Nothing firing')
    expect(repl.out).toContain('No button 99')
  })

  it('prints the digest and writes its chart as a PNG', () => {
    expect(digest.code, digest.err).toBe(0)
    expect(digest.out).toMatch(/^Daily Kafka digest: perf-lab/)
    expect(digest.out).toMatch(/Longest safepoint: 3\.3s/)
    expect(digest.out).toMatch(/zookeeper\.session\.timeout\.ms=6000/)
    const bytes = readFileSync(png)
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect(digest.out).toContain(`chart: ${png} (${bytes.length} bytes)`)
    const header = readPngHeader(bytes)
    expect(header.width * header.height).toBeGreaterThan(400 * 300)
  })

  it('writes the chart as a Vega-Lite spec a team can restyle, with the incident\'s data in it', () => {
    expect(digest.out).toContain(`chart spec: ${specFile} (Vega-Lite 5)`)
    const spec = JSON.parse(readFileSync(specFile, 'utf8'))
    expect(spec.$schema).toBe('https://vega.github.io/schema/vega-lite/v5.json')
    const pauses = spec.vconcat.find((row: { title: { text: string } }) => row.title.text.startsWith('longest JVM pause'))
    // Pauses are events, drawn as stems (rule marks) from zero.
    const line = pauses.layer.find((l: { mark: { type: string } }) => l.mark.type === 'rule')
    // seed-000's one broker paused 3.3 s at a safepoint (the digest's longest safepoint above).
    const peak = Math.max(...line.data.values.map((v: { value: number }) => v.value))
    expect(pauses.title.text).toBe('longest JVM pause: GC and safepoint (ms)')
    expect(peak).toBeGreaterThan(3200)
    expect(peak).toBeLessThan(3400)
    expect(new Set(line.data.values.map((v: { broker: string }) => v.broker))).toEqual(new Set(['b1']))
  })

  it('refuses an unknown option with usage and exit code 2', () => {
    expect(badOption.code).toBe(2)
    expect(badOption.err).toBe("kafka-why console: unknown option '--frobnicate'\n(kafka-why console --help for usage)\n")
  })
})

describe('kafka-why console --as', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-why-console-as-'))
  const config = join(dir, 'bot.yaml')
  writeFileSync(config, ['clusters:', '  perf-lab:', "    brokers: ['127.0.0.1:9092']", '    channel: CKAFKA', 'time_zone: UTC', 'allowed:', '  users: [UALICE]', '  channels: [CKAFKA]', ''].join('\n'))
  const silence = 'silence stw_pause_session_expiry 2h'
  let alice: Run, mallory: Run, plain: Run, noConfig: Run

  beforeAll(async () => {
    ;[alice, mallory, plain, noConfig] = await Promise.all([
      inProcess(['console', '--config', config, '--as', 'UALICE', '-c', silence]),
      inProcess(['console', '--config', config, '--as', 'UMALLORY', '-c', silence]),
      inProcess(['console', '--config', config, '-c', silence]),
      inProcess(['console', '--as', 'UALICE', '-c', silence]),
    ])
  }, 240_000)

  it('acts as a user from allowed.users, in an allowed channel, so a changing command goes through', () => {
    expect(alice.code, alice.err).toBe(0)
    expect(alice.out).toMatch(/Silenced `?stw_pause_session_expiry`? for 2h/)
    // The same command as the console's own user is refused by the same check the bot makes.
    expect(plain.code).toBe(1)
    expect(plain.out).toContain('You may not silence alerts')
  })

  it.each([
    ['a user not in allowed.users', () => mallory, /^kafka-why console: --as UMALLORY: not in allowed\.users of .*bot\.yaml \(allowed: UALICE\)\n$/],
    ['no --config to check it against', () => noConfig, /^kafka-why console: --as UALICE needs --config with a file whose allowed\.users lists UALICE\n$/],
  ])('refuses --as for %s with one line and exit 2', (_, result, message) => {
    const r = result()
    expect(r.code).toBe(2)
    expect(r.err).toMatch(message)
    expect(r.out).toBe('')
  })
})
