import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LiveConfigError, parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, type Health } from '../../adapters/live/live-service.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { formatRedacted, redactText, registerSecret } from '../../secrets/redact.js'
import { signedHeaders } from '../bot/support/sign.js'

const dir = mkdtempSync(join(tmpdir(), 'kafka-why-secrets-'))

describe('secrets/redact', () => {
  it.each([
    ['a bot token in a form body', 'token=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx&channel=C1', 'AbCdEfGhIjKlMnOp'],
    ['an app token', 'connecting with xapp-1-A01234567-1234567890123-abcdef0123456789', 'abcdef0123456789'],
    ['a user token', 'xoxp-1111-2222-3333-deadbeefcafe', 'deadbeefcafe'],
    ['an Authorization header', "headers: { Authorization: 'Bearer opaque-token-0123456789' }", 'opaque-token-0123456789'],
    ['a password in a scrape URL', 'scrape of http://metrics:hunter2hunter2@kafka-1:7071/metrics failed', 'hunter2hunter2'],
    ['a user alone in a URL', 'https://svc-account@kafka-1:7071/metrics', 'svc-account'],
    ['a Slack signature', `x-slack-signature: v0=${'ab'.repeat(32)}`, 'ab'.repeat(32)],
    ['a JSON password field', '{"sasl":{"username":"u","password":"p4ssw0rd!"}}', 'p4ssw0rd!'],
  ])('redacts %s', (_, text, secret) => {
    const out = redactText(text)
    expect(out).not.toContain(secret)
    expect(out).toContain('[redacted]')
  })

  it('keeps the readable part: scheme, host and path of a URL, the kind of token', () => {
    expect(redactText('http://u:p@kafka-1:7071/metrics')).toBe('http://[redacted]@kafka-1:7071/metrics')
    expect(redactText('token xoxb-1234-5678-abcdefgh')).toBe('token xoxb-[redacted]')
  })

  it('redacts a registered secret wherever it appears, whatever its shape', () => {
    registerSecret('correct-horse-battery')
    expect(redactText('SASL authentication failed for user kafka-why with correct-horse-battery')).toBe('SASL authentication failed for user kafka-why with [redacted]')
  })

  it('finds the token inside a Slack client error, where it sits in the request config, not the message', () => {
    const err = Object.assign(new Error('An API error occurred: invalid_auth'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'invalid_auth' },
      config: { url: 'https://slack.com/api/auth.test', headers: { Authorization: 'Bearer xoxb-9999-8888-notreallyatoken' }, data: 'token=xoxb-9999-8888-notreallyatoken' },
    })
    const line = formatRedacted('slack failed', err)
    expect(line).toContain('invalid_auth')
    expect(line).not.toContain('notreallyatoken')
  })
})

describe('secrets/secret-ref through adapters/live/live-config', () => {
  const yaml = (sasl: string, url = 'http://127.0.0.1:7071/metrics') => `
live:
  clusters:
    prod:
      admin: { brokers: [kafka-1:9092], sasl: ${sasl} }
      scrape: { targets: [{ broker: 1, url: "${url}" }] }
`
  it('reads a SASL password from the environment, a file, or the config itself', () => {
    const file = join(dir, 'kafka-password')
    writeFileSync(file, 'from-a-file-secret\n')
    const env = { KAFKA_PASSWORD: 'from-the-env-secret', PROM_PASSWORD: 'prom-pass-secret' }
    const fromEnv = parseLiveConfig(yaml('{ mechanism: plain, username: u, password: "${KAFKA_PASSWORD}" }'), 'k.yaml', env)
    expect(fromEnv.clusters[0].admin?.sasl).toEqual({ mechanism: 'plain', username: 'u', password: 'from-the-env-secret' })
    const fromFile = parseLiveConfig(yaml(`{ mechanism: scram-sha-512, username: u, password_file: ${file} }`), 'k.yaml', env)
    expect(fromFile.clusters[0].admin?.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'u', password: 'from-a-file-secret' })
    const url = parseLiveConfig(yaml('{ mechanism: plain, username: u, password: inline }', 'http://prom:${PROM_PASSWORD}@127.0.0.1:7071/metrics'), 'k.yaml', env)
    expect(url.clusters[0].scrape[0].url).toBe('http://prom:prom-pass-secret@127.0.0.1:7071/metrics')
    // Every resolved value is now redacted wherever it shows up.
    expect(redactText('from-the-env-secret from-a-file-secret prom-pass-secret')).toBe('[redacted] [redacted] [redacted]')
  })

  it('keeps why a secret file could not be read (ENOENT) while redacting secret values', () => {
    expect(redactText("sasl.password_file: cannot read '/run/secrets/kafka-password': ENOENT")).toBe("sasl.password_file: cannot read '/run/secrets/kafka-password': ENOENT")
    expect(redactText("SLACK_SIGNING_SECRET: cannot read '/run/secrets/slack-signing-secret': EACCES")).toContain('EACCES')
    expect(redactText('password: ENOENTsecret99')).toBe('password: [redacted]')
    expect(redactText('"password": "hunter2-long"')).toBe('"password": "[redacted]"')
  })

  it.each([
    ['{ mechanism: plain, username: u, password: "${NOT_SET_ANYWHERE}" }', 'k.yaml: live.clusters.prod.admin.sasl.password: environment variable NOT_SET_ANYWHERE is not set'],
    ['{ mechanism: plain, username: u, password_file: /nonexistent/pw }', "k.yaml: live.clusters.prod.admin.sasl.password_file: cannot read '/nonexistent/pw': ENOENT"],
    ['{ mechanism: plain, username: u, password: x, password_file: /etc/hostname }', 'k.yaml: live.clusters.prod.admin.sasl.password_file: give password or password_file, not both'],
  ])('names the key path when a secret cannot be resolved: %s', (sasl, problem) => {
    let err: LiveConfigError | undefined
    try {
      parseLiveConfig(yaml(sasl), 'k.yaml', {})
    } catch (e) {
      err = e as LiveConfigError
    }
    // Each problem is located (file:line:col) where the bad field is written.
    expect(err?.problems.map((p) => p.replace(/^k\.yaml:\d+:\d+: /, 'k.yaml: '))).toContain(problem)
    expect(err?.problems.every((p) => /^k\.yaml:\d+:\d+: /.test(p))).toBe(true)
  })
})

describe('secrets in serve: /metrics, /healthz and stored sources', () => {
  const servers: http.Server[] = []
  afterAll(() => servers.forEach((s) => s.close()))

  it('scrapes with the URL credentials but shows and stores the URL redacted', { timeout: 30_000 }, async () => {
    const expected = `Basic ${Buffer.from('prom:s3cr3t-scrape-pass').toString('base64')}`
    const exporter = http.createServer((req, res) => (req.headers.authorization === expected ? res.writeHead(200).end('process_open_fds 12\n') : res.writeHead(401).end()))
    servers.push(exporter)
    await new Promise<void>((r) => exporter.listen(0, '127.0.0.1', r))
    const port = (exporter.address() as AddressInfo).port
    // A second target that never answers, so a source.stale signal (labels, source, text) is stored too.
    const dead = http.createServer()
    servers.push(dead)
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r))
    const deadPort = (dead.address() as AddressInfo).port
    dead.close()
    const targets = `[{ broker: 1, url: "http://prom:s3cr3t-scrape-pass@127.0.0.1:${port}/metrics" }, { broker: 2, url: "http://prom:s3cr3t-scrape-pass@127.0.0.1:${deadPort}/metrics" }]`
    const config = parseLiveConfig(`live:\n  listen: 127.0.0.1:0\n  engine: { enabled: false }\n  clusters:\n    c1:\n      scrape: { interval: 200ms, targets: ${targets} }\n`)
    const store = new MemoryStore()
    const lines: string[] = []
    const log = { info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) }
    const service = await startLiveService({ config, store, log, env: {} })
    try {
      const both = async () => [...(await store.query({ cluster: 'c1', broker: '1', from: 0, to: Date.now() + 1000 })), ...(await store.query({ cluster: 'c1', broker: '2', from: 0, to: Date.now() + 1000 }))]
      const ready = (got: { name: string; broker?: string }[]) => got.some((s) => s.name === 'source.stale' && s.broker === '2') && got.some((s) => s.name === 'fd.open' && s.broker === '1')
      for (let i = 0; i < 75 && !ready(await both()); i++) await new Promise((r) => setTimeout(r, 200))
      const signals = await both()
      expect(signals.some((s) => s.broker === '1' && s.name === 'fd.open')).toBe(true)
      expect(signals.find((s) => s.name === 'source.stale' && s.broker === '2')).toMatchObject({ labels: { target: `http://[redacted]@127.0.0.1:${deadPort}/metrics` } })
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      const health = (await (await fetch(`${service.url}/healthz`)).json()) as Health
      expect(health.scrape.find((h) => h.broker === '1')).toMatchObject({ up: true, target: `http://[redacted]@127.0.0.1:${port}/metrics` })
      expect(metrics).toContain(`target="http://[redacted]@127.0.0.1:${port}/metrics"`)
      for (const text of [metrics, JSON.stringify(health), JSON.stringify(signals), lines.join('\n')]) expect(text).not.toContain('s3cr3t-scrape-pass')
    } finally {
      await service.stop()
      await store.close()
    }
  })

  it('a signed-request signature is a credential: redacted in logs', () => {
    const headers = signedHeaders('some-signing-secret', 'body')
    expect(redactText(JSON.stringify(headers))).not.toContain(headers['x-slack-signature'].slice(3))
  })
})
