import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, type Health } from '../../adapters/live/live-service.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { createLogger } from '../../logging/logger.js'
import { freePort } from '../adapters/prometheus/jmx-jvm.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-serve-log-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Secrets the way a deployment hands them over: in the environment, referenced from kafka-why.yaml.
const SECRETS = {
  SLACK_BOT_TOKEN: 'xoxb-2222222222-3333333333333-ServeLogTokenValue0123',
  SLACK_SIGNING_SECRET: 'serve-log-signing-secret-0123456789',
  KW_SASL_PASSWORD: 'sasl-Pa55word-in-env',
  KW_SCRAPE_PASSWORD: 'scrape-Pa55word-in-env',
  REDIS_PASSWORD: 'redis-Pa55word-in-url',
}

type Run = { lines: string[]; code: number | null; health: Health }

/**
 * Starts `kafka-why serve` as a user does, with every source down (Slack, the scrape target, the
 * admin brokers, Redis), so the failures are logged with the secrets close at hand; stops it with
 * SIGTERM once /healthz shows the failures, and hands back every line it wrote.
 */
async function runServe(extraEnv: Record<string, string>, args: string[] = []): Promise<Run> {
  const [port, dead] = [await freePort(), await freePort()]
  const file = path.join(dir, `kafka-why-${port}.yaml`)
  writeFileSync(
    file,
    [
      'clusters:',
      `  lab: { brokers: ["127.0.0.1:${dead}"], channel: C0LAB }`,
      'digest: { enabled: false }',
      'live:',
      `  listen: 127.0.0.1:${port}`,
      '  engine: { enabled: false }',
      '  clusters:',
      '    lab:',
      `      admin: { brokers: ["127.0.0.1:${dead}"], interval: 200ms, sasl: { mechanism: plain, username: kafka-why, password: "\${KW_SASL_PASSWORD}" } }`,
      `      scrape: { interval: 200ms, targets: [{ broker: 1, url: "http://metrics:\${KW_SCRAPE_PASSWORD}@127.0.0.1:${dead}/metrics" }] }`,
      '',
    ].join('\n'),
  )
  const env = {
    ...process.env,
    ...SECRETS,
    REDIS_URL: `redis://kafka-why:${SECRETS.REDIS_PASSWORD}@127.0.0.1:${dead}/0`,
    SLACK_API_URL: `http://127.0.0.1:${dead}/api/`,
    KAFKA_WHY_LOG_LEVEL: '',
    KAFKA_WHY_LOG_FORMAT: '',
    ...extraEnv,
  }
  const child = spawn('node', ['cli/kafka-why.mjs', 'serve', '--config', file, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  const end = Date.now() + 40_000
  let health: Health | undefined
  try {
    while (!health && Date.now() < end) {
      try {
        const h = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as Health
        if (h.bot.slack === 'down' && h.scrape[0]?.failures > 0 && h.admin[0]?.failures > 0 && !h.store.ok) health = h
      } catch {
        // not listening yet
      }
      if (!health) await new Promise((r) => setTimeout(r, 200))
    }
  } finally {
    child.kill('SIGTERM')
  }
  const code = await exited
  if (!health) throw new Error(`serve never showed every source down:\n${out}`)
  return { lines: out.split('\n').filter(Boolean), code, health }
}

describe('serve/log', () => {
  it('writes JSON lines with a level, a time and the command, and no secret the config held', { timeout: 60_000 }, async () => {
    const run = await runServe({})
    expect(run.code).toBe(0)
    const records = run.lines.map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>
      } catch {
        throw new Error(`not a JSON line: ${l}`)
      }
    })
    for (const r of records) {
      expect(r).toMatchObject({ level: expect.stringMatching(/^(info|warn|error|fatal)$/), time: expect.any(Number), cmd: 'serve', msg: expect.any(String) })
    }
    const msgs = records.map((r) => `${r.level} ${r.msg}`)
    expect(msgs).toContainEqual(expect.stringMatching(/^info health and metrics on http:\/\/127\.0\.0\.1:\d+/))
    expect(msgs).toContainEqual(expect.stringMatching(/^warn slack: (unavailable|down)/))
    expect(msgs).toContainEqual(expect.stringMatching(/^error store: append failed/))
    // The scrape URL carries its password from the environment; the log shows where, never the password.
    const scrape = records.find((r) => typeof r.msg === 'string' && r.msg.startsWith('scrape: '))
    expect(scrape).toMatchObject({ level: 'warn', cluster: 'lab', broker: '1', target: expect.stringMatching(/^http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/metrics$/) })
    expect(scrape!.msg).toMatch(/^scrape: http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/metrics not answering: /)
    expect(msgs).toContainEqual(expect.stringMatching(/^warn admin: lab not answering: /))
    expect(msgs).toContain('info stopping')
    const text = run.lines.join('\n')
    for (const [name, value] of Object.entries(SECRETS)) expect(text, name).not.toContain(value)
    // Slack's token kind stays readable where the token itself is cut.
    expect(run.health.bot.lastError ?? '').not.toContain(SECRETS.SLACK_BOT_TOKEN)
  })

  it('writes one readable line per record when KAFKA_WHY_LOG_FORMAT=pretty, at the level --log-level names', { timeout: 60_000 }, async () => {
    const run = await runServe({ KAFKA_WHY_LOG_FORMAT: 'pretty', KAFKA_WHY_LOG_LEVEL: 'debug' }, ['--log-level', 'warn'])
    expect(run.code).toBe(0)
    expect(run.lines.length).toBeGreaterThan(0)
    for (const l of run.lines) expect(l).toMatch(/^(\d\d:\d\d:\d\d\.\d{3} (WARN |ERROR|FATAL) \S| {4})/)
    expect(run.lines.join('\n')).toMatch(/WARN  slack: (unavailable|down)/)
    // --log-level warn beats KAFKA_WHY_LOG_LEVEL=debug: the info lines are gone.
    expect(run.lines.join('\n')).not.toContain('health and metrics on')
    for (const [name, value] of Object.entries(SECRETS)) expect(run.lines.join('\n'), name).not.toContain(value)
  })

  it('logs an alert the engine raises under its alertId (the stored fingerprint), rule, cluster and broker', { timeout: 60_000 }, async () => {
    const rules = path.join(dir, 'stale.rules')
    writeFileSync(rules, 'rule source_down\n  severity warning\n  when source.stale\n  then cause "a signal source of broker {broker} stopped answering"\n')
    const down = await freePort()
    const config = parseLiveConfig(
      `rules: [${JSON.stringify(rules)}]\nlive:\n  listen: 127.0.0.1:0\n  engine: { tick: 300ms, lag: 0s }\n  clusters:\n    lab:\n      scrape: { interval: 300ms, targets: [{ broker: 4, url: "http://127.0.0.1:${down}/metrics" }] }\n`,
    )
    const out = new PassThrough()
    let text = ''
    out.on('data', (d) => (text += d))
    const store = new MemoryStore()
    const service = await startLiveService({ config, store, env: {}, log: createLogger({ format: 'json', destination: out, env: {} }) })
    try {
      const end = Date.now() + 30_000
      while (!text.includes('alert firing') && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
      const [alert] = await store.listAlerts()
      const line = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => String(r.msg).startsWith('alert firing'))
      expect(line).toMatchObject({ level: 'info', alertId: alert.fingerprint, rule: 'source_down', cluster: 'lab', broker: '4' })
    } finally {
      await service.stop()
      await store.close()
    }
  })

  it('refuses a bad --log-level as a usage error', async () => {
    const child = spawn('node', ['cli/kafka-why.mjs', 'serve', '--log-level', 'loud'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)))
    expect(code).toBe(2)
    expect(err.trim()).toBe("kafka-why serve: --log-level: 'loud' is not a level (trace, debug, info, warn, error, fatal, silent)")
  })
})
