import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, type Health } from '../../adapters/live/live-service.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { freePort } from '../adapters/prometheus/jmx-jvm.js'
import { signedHeaders } from '../bot/support/sign.js'
import { SlackStandIn } from '../bot/support/slack-stand-in.js'

// serve through the failures of what it depends on: Slack unreachable or refusing the token, Redis
// restarted. Each test has its own Slack stand-in and, for Redis, its own redis-server on a free
// port (the shared 6379 is never touched).

const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-outage-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TOKEN = 'xoxb-4242-4242-outage-token-value'
const SECRET = 'outage-signing-secret-value'

async function until<T>(what: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await what()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error('condition not reached in time')
    await sleep(200)
  }
}

/** A bot config whose one rule fires while a scrape target is down, so an alert exists to post. */
function outageConfig(slackChannel: string, exporterPort: number, downPort: number): string {
  const rules = path.join(dir, `stale-${downPort}.rules`)
  writeFileSync(rules, 'rule source_down\n  severity warning\n  when source.stale\n  then cause "a signal source of broker {broker} stopped answering"\n')
  return `
clusters:
  lab: { brokers: ["127.0.0.1:${downPort}"], channel: ${slackChannel} }
digest: { enabled: false }
rules: [${JSON.stringify(rules)}]
live:
  listen: 127.0.0.1:0
  engine: { tick: 300ms, lag: 0s }
  clusters:
    lab:
      scrape:
        interval: 300ms
        targets:
          - { broker: 1, url: "http://127.0.0.1:${exporterPort}/metrics" }
          - { broker: 4, url: "http://127.0.0.1:${downPort}/metrics" }
`
}

async function exporter(): Promise<http.Server> {
  const s = http.createServer((_, res) => res.writeHead(200).end('process_open_fds 12\n'))
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  return s
}

describe('serve/live-service through a Slack outage', () => {
  it.each([
    ['unreachable', (s: SlackStandIn) => s.stop()],
    ['refusing the token (invalid_auth)', async (s: SlackStandIn) => void (s.authFailures = 1_000_000)],
  ])('keeps serving while Slack is %s, reports slack down, and posts the held alert once Slack is back', { timeout: 90_000 }, async (_, breakSlack) => {
    const slack = await new SlackStandIn().start()
    const slackPort = slack.port
    await breakSlack(slack)
    const exp = await exporter()
    const down = await freePort()
    const config = parseLiveConfig(outageConfig('C0LAB', (exp.address() as AddressInfo).port, down))
    const store = new MemoryStore()
    const lines: string[] = []
    const log = { info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) }
    const env = { SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1', SLACK_API_URL: slack.apiUrl }
    const service = await startLiveService({ config, store, log, env })
    try {
      const h = await until(async () => {
        const body = (await (await fetch(`${service.url}/healthz`)).json()) as Health
        return body.bot.slack === 'down' && (body.bot.held ?? 0) > 0 ? body : undefined
      }, 30_000)
      expect(h.bot).toMatchObject({ running: true, slack: 'down' })
      expect(h.status).toBe('degraded')
      // Scrapes and the alert loop carry on without Slack.
      expect(h.scrape.find((s) => s.broker === '1')?.up).toBe(true)
      expect((await store.query({ cluster: 'lab', broker: '1', names: ['fd.open'], from: 0, to: Date.now() + 1000 })).length).toBeGreaterThan(0)
      expect((await store.listAlerts()).some((a) => a.state === 'firing')).toBe(true)

      // Slack comes back on the same address.
      if (slack.authFailures) slack.authFailures = 0
      else await slack.start(slackPort)
      await slack.waitFor(() => slack.ok('chat.postMessage').some((c) => /^Firing: a signal source of broker 4 stopped answering/.test(String(c.args.text))), 40_000)
      const back = await until(async () => {
        const body = (await (await fetch(`${service.url}/healthz`)).json()) as Health
        return body.bot.slack === 'up' && body.bot.held === 0 ? body : undefined
      }, 20_000)
      expect(back.bot.slack).toBe('up')
      expect(slack.ok('chat.postMessage').filter((c) => /^Firing: a signal source of broker 4/.test(String(c.args.text)))).toHaveLength(1)
      expect(slack.allProblems()).toEqual([])
      const all = lines.join('\n')
      expect(all).toMatch(/slack: (unavailable|down)/)
      expect(all).not.toContain('outage-token-value')
      expect(all).not.toContain(SECRET)
    } finally {
      await service.stop()
      await store.close()
      await slack.stop()
      exp.close()
    }
  })
})

describe('serve/cli with Slack unreachable', () => {
  it('stays up, answers /healthz with slack down, and never prints the token', { timeout: 60_000 }, async () => {
    const port = await freePort()
    const deadSlack = await freePort()
    const file = path.join(dir, 'cli-slack-down.yaml')
    writeFileSync(file, `clusters:\n  lab: { brokers: ["127.0.0.1:9092"], channel: C0LAB }\ndigest: { enabled: false }\nlive:\n  listen: 127.0.0.1:${port}\n  engine: { enabled: false }\n`)
    const child = spawn('node', ['cli/kafka-why.mjs', 'serve', '--config', file], {
      env: { ...process.env, REDIS_URL: '', SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, PORT: '0', SLACK_API_URL: `http://127.0.0.1:${deadSlack}/api/` },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
    let stillRunning = false
    try {
      const h = await until(async () => {
        try {
          const body = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as Health
          return body.bot.slack === 'down' ? body : undefined
        } catch {
          return undefined
        }
      }, 30_000)
      expect(h.bot.lastError).toMatch(/slack_webapi_request_error|ECONNREFUSED/)
      await sleep(4000)
      stillRunning = child.exitCode === null
    } finally {
      child.kill('SIGTERM')
    }
    expect(stillRunning).toBe(true)
    expect(await exited).toBe(0)
    expect(out).toMatch(/slack: unavailable/)
    expect(out).not.toContain('outage-token-value')
    expect(out).not.toMatch(/unexpected rejection|Unhandled/i)
  })
})

describe('serve/live-service through a Redis restart with the bot', () => {
  it('keeps answering Slack, refuses requests it cannot check for replays while Redis is away, and loses nothing', { timeout: 120_000 }, async () => {
    const redisPort = await freePort()
    let redis: ChildProcess
    const startRedis = async () => {
      redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
      await until(async () => {
        const ok = await new Promise<boolean>((r) => execFile('redis-cli', ['-p', String(redisPort), 'ping'], (e, o) => r(!e && o.trim() === 'PONG')))
        return ok ? true : undefined
      }, 10_000)
    }
    await startRedis()
    const slack = await new SlackStandIn().start()
    const exp = await exporter()
    const down = await freePort()
    const config = parseLiveConfig(outageConfig('C0LAB', (exp.address() as AddressInfo).port, down))
    const store = new RedisStore({ url: `redis://127.0.0.1:${redisPort}`, prefix: 'outage:', connectTimeoutMs: 300, commandTimeoutMs: 500 })
    const lines: string[] = []
    const log = { info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) }
    const botPort = await freePort()
    const env = { SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, PORT: String(botPort), HOST: '127.0.0.1', SLACK_API_URL: slack.apiUrl }
    const service = await startLiveService({ config, store, log, env })
    const command = async (text: string) => {
      const body = new URLSearchParams({ token: 'x', team_id: 'T', channel_id: 'C0LAB', user_id: 'U0CAROL', command: '/kafka', text, response_url: slack.responseUrl(), trigger_id: '1' }).toString()
      return (await fetch(`http://127.0.0.1:${botPort}/slack/events`, { method: 'POST', body, headers: signedHeaders(SECRET, body) })).status
    }
    try {
      await slack.waitFor(() => slack.ok('chat.postMessage').length > 0, 30_000)
      expect(await command('help')).toBe(200)
      redis!.kill('SIGKILL')
      await until(async () => ((await (await fetch(`${service.url}/healthz`)).json()) as Health).store.ok === false || undefined, 20_000)
      // Without the replay cache a signed request cannot be checked: refused, not accepted twice later.
      expect(await command('help')).toBe(503)
      const outageStart = Date.now()
      await sleep(1500)
      await startRedis()
      await until(async () => {
        const h = (await (await fetch(`${service.url}/healthz`)).json()) as Health
        return h.store.ok && h.store.buffered === 0 ? h : undefined
      }, 30_000)
      expect(await command('help')).toBe(200)
      // The fresh Redis holds what was scraped while it was away, and the alert loop ticks cleanly again.
      expect((await store.query({ cluster: 'lab', broker: '1', names: ['fd.open'], from: outageStart - 2000, to: outageStart + 1500 })).length).toBeGreaterThanOrEqual(2)
      const recovered = Date.now()
      const h = await until(() => {
        const x = service.health()
        return (x.engine.lastTickAt ?? 0) > recovered && !x.engine.lastError ? x : undefined
      }, 20_000)
      expect(h.bot).toMatchObject({ running: true, slack: 'up', held: 0 })
      expect(lines.some((l) => /engine: tick failed/.test(l))).toBe(true)
      expect(lines.join('\n')).not.toContain('outage-token-value')
    } finally {
      await service.stop()
      await store.close()
      redis!.kill('SIGKILL')
      await slack.stop()
      exp.close()
    }
  })
})
