import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import kafkajs from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LiveConfigError, parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, type Health, type LiveService } from '../../adapters/live/live-service.js'
import { parseExposition } from '../../adapters/prometheus/exposition.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { startCluster, type LabCluster } from '../../lab/cluster.js'
import { killAllManaged } from '../../lab/managed-process.js'
import { freePort } from '../adapters/prometheus/jmx-jvm.js'
import { SlackStandIn } from '../bot/support/slack-stand-in.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-serve-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function getJson(url: string): Promise<{ status: number; body: Health }> {
  const res = await fetch(url)
  return { status: res.status, body: (await res.json()) as Health }
}

async function until<T>(what: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await what()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error('condition not reached in time')
    await sleep(250)
  }
}

const sample = (text: string, name: string, labels: Record<string, string> = {}) =>
  parseExposition(text)
    .samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0)

describe('serve/live-config', () => {
  it('reads a full live section and leaves the rest to the bot', () => {
    const c = parseLiveConfig(`
clusters:
  prod: { brokers: ["kafka-1:9092"], channel: C0123ABCD }
rules: [rules, extra.rules]
live:
  listen: 0.0.0.0:9500
  engine: { tick: 5s, lag: 10s, settle: 3s, long_window_every: 10m }
  clusters:
    prod:
      admin: { interval: 1m, sasl: { mechanism: scram-sha-512, username: u, password: p }, ssl: true }
      scrape:
        interval: 30s
        targets: [{ broker: 1, url: "http://kafka-1:7071/metrics" }]
      logs: [{ broker: "1", path: /var/log/kafka/server.log }]
`)
    expect(c.listen).toEqual({ host: '0.0.0.0', port: 9500 })
    expect(c.engine).toEqual({ tickMs: 5000, lagMs: 10_000, settleMs: 3000, longWindowEveryMs: 600_000, keepFiringMs: 300_000, enabled: true })
    expect(c.rules).toEqual(['rules', 'extra.rules'])
    expect(c.clusters[0].admin).toMatchObject({ brokers: ['kafka-1:9092'], intervalMs: 60_000, ssl: true, sasl: { mechanism: 'scram-sha-512' } })
    expect(c.clusters[0].scrape).toEqual([{ broker: '1', url: 'http://kafka-1:7071/metrics', intervalMs: 30_000, timeoutMs: 10_000 }])
    expect(c.clusters[0].logs).toEqual([{ broker: '1', path: '/var/log/kafka/server.log', fromEnd: true, offsetFile: undefined }])
    expect(JSON.parse(c.botYaml!)).toEqual({ clusters: { prod: { brokers: ['kafka-1:9092'], channel: 'C0123ABCD' } }, rules: ['rules', 'extra.rules'] })
  })

  it('names every bad key path at once', () => {
    const bad = `
live:
  listen: nowhere
  engine: { tick: soon }
  clusters:
    prod:
      admin: { brokers: [kafka-1] }
      scrape: { targets: [{ url: "ftp://x" }], interval: 3GiB }
      tail: []
`
    let err: LiveConfigError | undefined
    try {
      parseLiveConfig(bad, 'k.yaml')
    } catch (e) {
      err = e as LiveConfigError
    }
    expect(err).toBeInstanceOf(LiveConfigError)
    expect(err!.problems).toEqual([
      "k.yaml:3:11: live.listen: 'nowhere' is not [host:]port",
      "k.yaml:4:19: live.engine.tick: 'soon' is not a duration (e.g. 15s, 500ms, 1m)",
      "k.yaml:7:26: live.clusters.prod.admin.brokers[0]: 'kafka-1' is not host:port",
      'k.yaml:8:34: live.clusters.prod.scrape.targets[0].url: expected http://host:port/metrics',
      "k.yaml:8:58: live.clusters.prod.scrape.interval: '3GiB' is not a duration (e.g. 15s, 500ms, 1m)",
      'k.yaml:9:7: live.clusters.prod.tail: unknown key (known: admin, scrape, logs, processes)',
    ])
  })
})

describe('serve/live-service', () => {
  let cluster: LabCluster
  let service: LiveService
  const store = new MemoryStore()

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, mode: 'zk', heapMb: 256 })
    const b = cluster.brokers[0]
    const rules = path.join(dir, 'live.rules')
    writeFileSync(rules, 'rule source_down\n  severity warning\n  when source.stale\n  then cause "a signal source of broker {broker} stopped answering"\n')
    const down = await freePort()
    const k = new kafkajs.Kafka({ brokers: [cluster.bootstrap], logLevel: kafkajs.logLevel.NOTHING })
    const admin = k.admin()
    await admin.connect()
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'kafka-why-signals', numPartitions: 2, replicationFactor: 1 }] })
    await admin.disconnect()
    const config = parseLiveConfig(`
rules: [${JSON.stringify(rules)}]
live:
  listen: 127.0.0.1:0
  engine: { tick: 300ms, lag: 0s }
  clusters:
    lab:
      admin: { brokers: [${JSON.stringify(cluster.bootstrap)}], interval: 1s }
      scrape:
        interval: 1s
        timeout: 2s
        targets:
          - { broker: "${b.id}", url: "http://127.0.0.1:${b.exporterPort}/metrics" }
          - { broker: "9", url: "http://127.0.0.1:${down}/metrics" }
      logs:
        - { broker: "${b.id}", path: ${JSON.stringify(b.serverLog)}, from_end: false }
  signals_topic: { brokers: [${JSON.stringify(cluster.bootstrap)}], topic: kafka-why-signals }
`)
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    service = await startLiveService({ config, store, log: quiet, env: {} })
  }, 180_000)

  afterAll(async () => {
    await service?.stop()
    await cluster?.stop()
    killAllManaged()
    await store.close()
  })

  it('answers /healthz with each part: a live broker up, a dead target degraded', { timeout: 60_000 }, async () => {
    const h = await until(async () => {
      const { status, body } = await getJson(`${service.url}/healthz`)
      const ready = body.scrape.every((s) => s.lastAt !== undefined) && body.admin[0].up && body.engine.lastTickAt !== undefined && body.logs[0].signals > 0
      return ready ? { status, body } : undefined
    }, 30_000)
    expect(h.status).toBe(200)
    expect(h.body.status).toBe('degraded')
    const [live, dead] = h.body.scrape
    expect(live).toMatchObject({ broker: '1', up: true, failures: 0 })
    expect(dead).toMatchObject({ broker: '9', up: false })
    expect(dead.lastError).toMatch(/ECONNREFUSED/)
    expect(h.body.admin[0]).toMatchObject({ cluster: 'lab', up: true })
    expect(h.body.engine).toMatchObject({ enabled: true, rules: 1, ruleErrors: 0 })
    expect(h.body.bot).toEqual({ running: false, reason: 'no bot settings (clusters) in the config' })
    // a few signals may be on their way to the store at any moment
    expect(h.body.store).toMatchObject({ ok: true, buffered: expect.any(Number) })
  })

  it('stores what the real broker reports through each adapter', { timeout: 30_000 }, async () => {
    // counter rates need a second scrape
    const signals = await until(async () => {
      const all = await store.query({ cluster: 'lab', broker: '1', from: 0, to: Date.now() + 60_000 })
      return all.some((s) => s.name === 'gc.count') ? all : undefined
    }, 15_000)
    const bySource = (prefix: string) => new Set(signals.filter((s) => s.source.startsWith(prefix)).map((s) => s.name))
    expect([...bySource('prom:')]).toEqual(expect.arrayContaining(['partitions.under_replicated', 'fd.open', 'fd.max', 'heap.used', 'request_handler.idle', 'network_processor.idle', 'gc.count', 'gc.time']))
    expect([...bySource('admin:')]).toEqual(expect.arrayContaining(['partitions.under_replicated', 'partitions.under_min_isr']))
    expect([...bySource('log:')]).toEqual(expect.arrayContaining(['broker.start']))
    const facts = await store.facts('lab', '1')
    expect(facts.find((f) => f.name === 'config.zookeeper_session_timeout_ms')?.value).toBe(18_000)
    expect(facts.find((f) => f.name === 'process.start')?.value).toBeGreaterThan(Date.now() - 600_000)
  })

  it('serves its own /metrics: signals by source, parse failures, rule evaluation time, alerts', { timeout: 30_000 }, async () => {
    const text = await until(async () => {
      const t = await (await fetch(`${service.url}/metrics`)).text()
      return sample(t, 'kafka_why_alerts_total', { type: 'firing' }) >= 1 ? t : undefined
    }, 20_000)
    const parsed = parseExposition(text)
    expect(parsed.stats.badLines).toBe(0)
    for (const source of ['prometheus', 'admin', 'logs']) expect(sample(text, 'kafka_why_signals_total', { source }), source).toBeGreaterThan(0)
    expect(sample(text, 'kafka_why_scrapes_total', { result: 'failed' })).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'kafka_why_source_up', { kind: 'admin', target: 'lab' })).toBe(1)
    expect(sample(text, 'kafka_why_rule_evaluation_seconds_count')).toBeGreaterThan(0)
    expect(sample(text, 'kafka_why_rule_evaluation_seconds_bucket', { le: '+Inf' })).toBe(sample(text, 'kafka_why_rule_evaluation_seconds_count'))
    expect(parsed.types.get('kafka_why_parse_failures_total')).toBe('counter')
    expect(parsed.types.get('kafka_why_log_parse_failures_total')).toBe('counter')
    // the dead target's source.stale reached the engine and fired the rule for broker 9
    const alerts = await store.listAlerts()
    expect(alerts.find((a) => a.ruleId === 'source_down')).toMatchObject({ broker: '9', state: 'firing' })
  })

  it('takes an agent\'s readings from the signals topic', { timeout: 60_000 }, async () => {
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile(
        'node',
        ['cli/kafka-why.mjs', 'agent', '--broker', '7', '--cluster', 'lab', '--pid', String(process.pid), '--once', '--topic', 'kafka-why-signals', '--bootstrap', cluster.bootstrap],
        { timeout: 30_000 },
        (err, out) => (err ? reject(err) : resolve({ stdout: out })),
      ),
    )
    const printed = stdout.trim().split('\n').map((l) => JSON.parse(l) as { name: string; value: number; at: number })
    const stored = await until(async () => {
      const got = await store.query({ cluster: 'lab', broker: '7', from: 0, to: Date.now() + 60_000 })
      return got.length === printed.length ? got : undefined
    }, 30_000)
    expect(stored.map((s) => [s.name, s.value]).sort()).toEqual(printed.map((s) => [s.name, s.value]).sort())
    const h = (await getJson(`${service.url}/healthz`)).body
    expect(h.topic).toMatchObject({ up: true, failures: 0 })
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    expect(sample(metrics, 'kafka_why_signals_total', { source: 'topic' })).toBe(printed.length)
  })

  it('answers 404 elsewhere and 405 for writes', async () => {
    expect((await fetch(`${service.url}/nope`)).status).toBe(404)
    expect((await fetch(`${service.url}/metrics`, { method: 'POST' })).status).toBe(405)
  })
})

describe('serve/live-service with the bot', () => {
  it('starts the Slack bot from the same file and posts the engine\'s alerts to the cluster channel', { timeout: 60_000 }, async () => {
    const slack = await new SlackStandIn().start()
    const rules = path.join(dir, 'bot-live.rules')
    writeFileSync(rules, 'rule source_down\n  severity warning\n  when source.stale\n  then cause "a signal source of broker {broker} stopped answering"\n')
    const down = await freePort()
    const config = parseLiveConfig(`
clusters:
  lab: { brokers: ["127.0.0.1:${down}"], channel: C0LAB }
digest: { enabled: false }
rules: [${JSON.stringify(rules)}]
live:
  listen: 127.0.0.1:0
  engine: { tick: 300ms, lag: 0s }
  clusters:
    lab:
      scrape: { interval: 1s, targets: [{ broker: 4, url: "http://127.0.0.1:${down}/metrics" }] }
`)
    const store = new MemoryStore()
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    const env = { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'serve-secret', PORT: '0', HOST: '127.0.0.1', SLACK_API_URL: slack.apiUrl }
    const service = await startLiveService({ config, store, log: quiet, env })
    try {
      expect(service.health().bot).toMatchObject({ running: true })
      await slack.waitFor(() => slack.ok('chat.postMessage').length > 0, 20_000)
      const post = slack.ok('chat.postMessage')[0].args
      expect(post.channel).toBe('C0LAB')
      expect(post.text).toMatch(/^Firing: a signal source of broker 4 stopped answering/)
    } finally {
      await service.stop()
      await store.close()
      await slack.stop()
    }
  })

  it('refuses a bad bot setting at load, against the file and line the operator wrote', () => {
    const yaml = `
clusters:
  lab: { brokers: ["127.0.0.1:9092"], channel: C0LAB }
digest: { enabled: false, schedule: "every day" }
live:
  listen: 127.0.0.1:0
`
    expect(() => parseLiveConfig(yaml, '/etc/kafka-why/prod.yaml')).toThrow(/\/etc\/kafka-why\/prod\.yaml:4:37: digest\.schedule: 'every day' is not a cron expression/)
  })

  it('keeps the engine running when the bot cannot start, and says why', { timeout: 30_000 }, async () => {
    const config = parseLiveConfig(
      `
clusters:
  lab: { brokers: ["127.0.0.1:9092"], channel: C0LAB }
digest: { enabled: false }
live:
  listen: 127.0.0.1:0
`,
      '/etc/kafka-why/prod.yaml',
    )
    const store = new MemoryStore()
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    const service = await startLiveService({ config, store, log: quiet, env: { PORT: '0', HOST: '127.0.0.1' } })
    try {
      const health = service.health()
      expect(health.bot).toEqual({ running: false, reason: 'SLACK_BOT_TOKEN not set' })
      // The engine and its store run without the bot; the service reports ok, not failed.
      expect(health.status).toBe('ok')
      expect(health.engine).toEqual(expect.objectContaining({ enabled: true, ruleErrors: 0 }))
      expect(health.engine.rules).toBeGreaterThan(0)
      expect(health.store.ok).toBe(true)
    } finally {
      await service.stop()
      await store.close()
    }
  })
})

describe('serve/live-service store settings', () => {
  it('refuses to start when REDIS_URL and REDIS_CLUSTER_NODES are both set', async () => {
    const config = parseLiveConfig('live:\n  listen: 127.0.0.1:0\n', 'kafka-why.yaml')
    const store = new MemoryStore()
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    try {
      await expect(startLiveService({ config, store, log: quiet, env: { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' } })).rejects.toThrow(
        /^REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a Redis Cluster, not both$/,
      )
    } finally {
      await store.close()
    }
  })
})

describe('serve/live-service through a Redis outage', () => {
  it('answers 503 while Redis is down, buffers, and stores what arrived meanwhile once it is back', { timeout: 90_000 }, async () => {
    const redisPort = await freePort()
    const startRedis = () => {
      const p = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
      return until(async () => {
        const ok = await new Promise<boolean>((r) => execFile('redis-cli', ['-p', String(redisPort), 'ping'], (e, out) => r(!e && out.trim() === 'PONG')))
        return ok ? p : undefined
      }, 10_000)
    }
    let redis = await startRedis()
    const exporter = http.createServer((_, res) => res.writeHead(200).end('process_open_fds 12\n'))
    await new Promise<void>((r) => exporter.listen(0, '127.0.0.1', r))
    const config = parseLiveConfig(`
live:
  listen: 127.0.0.1:0
  engine: { enabled: false }
  clusters:
    c1:
      scrape: { interval: 200ms, targets: [{ broker: 1, url: "http://127.0.0.1:${(exporter.address() as AddressInfo).port}/metrics" }] }
`)
    const store = new RedisStore({ url: `redis://127.0.0.1:${redisPort}`, prefix: 'serve-outage:', connectTimeoutMs: 300, commandTimeoutMs: 500 })
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    const service = await startLiveService({ config, store, log: quiet, env: {} })
    const stored = async () => (await store.query({ cluster: 'c1', broker: '1', names: ['fd.open'], from: 0, to: Date.now() + 1000 })).length
    try {
      await until(async () => ((await stored()) >= 2 ? true : undefined), 15_000)
      redis.kill('SIGKILL')
      const down = await until(async () => {
        const r = await getJson(`${service.url}/healthz`)
        return r.status === 503 && r.body.store.buffered! >= 3 ? r : undefined
      }, 20_000)
      expect(down.body).toMatchObject({ status: 'failing', store: { ok: false } })
      const outageStart = Date.now()
      await sleep(1000)
      redis = await startRedis()
      const back = await until(async () => {
        const r = await getJson(`${service.url}/healthz`)
        return r.status === 200 && r.body.store.buffered === 0 ? r : undefined
      }, 30_000)
      expect(back.body.store.ok).toBe(true)
      // the fresh Redis holds the readings scraped while it was away
      const during = (await store.query({ cluster: 'c1', broker: '1', names: ['fd.open'], from: outageStart - 5000, to: outageStart + 1000 })).length
      expect(during).toBeGreaterThanOrEqual(3)
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      expect(sample(metrics, 'kafka_why_signals_dropped_total')).toBe(0)
    } finally {
      await service.stop()
      await store.close()
      redis.kill('SIGKILL')
      exporter.close()
    }
  })
})

describe('serve/cli', () => {
  it('starts from a config file, answers over HTTP, and stops on SIGTERM', { timeout: 60_000 }, async () => {
    const port = await freePort()
    const down = await freePort()
    const file = path.join(dir, 'kafka-why.yaml')
    writeFileSync(file, `live:\n  listen: 127.0.0.1:${port}\n  engine: { enabled: false }\n  clusters:\n    c1:\n      scrape:\n        interval: 200ms\n        targets: [{ broker: 1, url: "http://127.0.0.1:${down}/metrics" }]\n`)
    const child = spawn('node', ['cli/kafka-why.mjs', 'serve', '--config', file], { env: { ...process.env, REDIS_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
    try {
      const h = await until(async () => {
        try {
          const r = await getJson(`http://127.0.0.1:${port}/healthz`)
          return r.body.scrape[0]?.failures > 0 ? r : undefined
        } catch {
          return undefined
        }
      }, 30_000)
      expect(h.body).toMatchObject({ status: 'degraded', engine: { enabled: false }, scrape: [{ broker: '1', up: false }] })
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      // every failed attempt is a scrape.unanswered signal (the target's silence, attempt by attempt)
      expect(sample(metrics, 'kafka_why_signals_total', { source: 'prometheus' })).toBeGreaterThanOrEqual(1)
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
    // Off a terminal serve logs JSON lines; its last word is that it stops.
    expect(out.trim().split('\n').map((l) => JSON.parse(l) as { level: string; msg: string })).toContainEqual(expect.objectContaining({ level: 'info', msg: 'stopping' }))
  })

  it.each([
    [['--config', '/nonexistent/kafka-why.yaml'], /cannot read config '\/nonexistent\/kafka-why.yaml': ENOENT/],
    [['--bogus'], /unknown option '--bogus'/],
  ])('exits 2 on %j', async (args, message) => {
    const err = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile('node', ['cli/kafka-why.mjs', 'serve', ...args], (e, _o, stderr) => resolve({ code: (e as { code?: number })?.code ?? 0, stderr })),
    )
    expect(err.code).toBe(2)
    expect(err.stderr).toMatch(message)
  })
})
