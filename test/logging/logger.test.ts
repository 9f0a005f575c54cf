import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { childLog, createLogger, logSettingsFrom, type LoggerOptions } from '../../logging/logger.js'
import { formatPrettyRecord } from '../../logging/pretty.js'
import { redactingLog } from '../../secrets/redact.js'

/** A real stream the logger writes to, read back line by line. */
function capture(isTTY = false) {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (d) => (text += d))
  const destination = Object.assign(stream, { isTTY })
  return {
    destination,
    lines: () => text.split('\n').filter(Boolean),
    records: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
  }
}

const logTo = (opts: LoggerOptions & { isTTY?: boolean } = {}) => {
  const out = capture(opts.isTTY)
  return { out, log: createLogger({ env: {}, ...opts, destination: out.destination }) }
}

// Real shapes: Slack's token kinds, a Redis URL as REDIS_URL holds it, a SASL block as kafka-why.yaml has it.
const BOT_TOKEN = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'
const APP_TOKEN = 'xapp-1-A01234567-1234567890123-abcdef0123456789'
const REDIS_URL = 'redis://kafka-why:s3cr3t-redis-pass@redis-1:6379/0'

describe('logging/logger', () => {
  it('writes one JSON object per line when the destination is not a TTY: level, epoch-ms time, msg, fields', () => {
    const { out, log } = logTo({ bindings: { cmd: 'serve' } })
    const before = Date.now()
    log.info('store: back after 3 attempts')
    log.warn({ cluster: 'prod', broker: '1' }, 'scrape failed')
    const [a, b] = out.records()
    expect(a).toMatchObject({ level: 'info', msg: 'store: back after 3 attempts', cmd: 'serve', pid: process.pid })
    expect(a.time).toBeGreaterThanOrEqual(before)
    expect(a.time).toBeLessThanOrEqual(Date.now())
    expect(b).toMatchObject({ level: 'warn', msg: 'scrape failed', cluster: 'prod', broker: '1' })
  })

  it('carries a child logger’s ids on every line it writes, and its children’s too', () => {
    const { out, log } = logTo()
    const alert = log.child({ alertId: 'f3a9c1' })
    alert.info('alert firing')
    alert.child({ requestId: 'R-12' }).error('post failed')
    log.info('no id here')
    const [a, b, c] = out.records()
    expect(a).toMatchObject({ alertId: 'f3a9c1', msg: 'alert firing' })
    expect(b).toMatchObject({ alertId: 'f3a9c1', requestId: 'R-12', level: 'error' })
    expect(c.alertId).toBeUndefined()
  })

  it('takes console-style arguments: an Error becomes err with its stack, other values join the message', () => {
    const { out, log } = logTo()
    log.error('digest for prod failed', new Error('connection reset'))
    log.info('digest:', [{ cluster: 'prod', posted: true }])
    const [a, b] = out.records()
    expect(a.msg).toBe('digest for prod failed')
    expect(a.err).toMatchObject({ type: 'Error', message: 'connection reset' })
    expect(String((a.err as { stack: string }).stack)).toContain('logger.test.ts')
    expect(b.msg).toBe("digest: [ { cluster: 'prod', posted: true } ]")
  })

  it.each([
    ['debug', ['debug', 'info', 'warn', 'error', 'fatal']],
    ['warn', ['warn', 'error', 'fatal']],
    ['silent', []],
  ] as const)('at level %s writes only %j', (level, written) => {
    const { out, log } = logTo({ level })
    for (const l of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) log[l](`at ${l}`)
    expect(out.records().map((r) => r.level)).toEqual(written)
  })

  it.each([
    ['a bot token in the message', () => [`auth.test failed with ${BOT_TOKEN}`], 'AbCdEfGhIjKlMnOp'],
    ['an app token in the message', () => [`socket mode with ${APP_TOKEN}`], 'abcdef0123456789'],
    ['Redis URL credentials in the message', () => [`store: cannot connect to ${REDIS_URL}`], 's3cr3t-redis-pass'],
    ['Redis URL credentials in a field', () => [{ url: REDIS_URL }, 'store opened'], 's3cr3t-redis-pass'],
    ['a SASL password in a field, whatever its shape', () => [{ admin: { sasl: { mechanism: 'plain', username: 'kw', password: 'tiny12' } } }, 'admin'], 'tiny12'],
    ['a password at the top of the fields', () => [{ password: 'hunter', user: 'kw' }, 'login'], 'hunter'],
    ['the bot settings’ tokens by field name', () => [{ botToken: 'opaque-a', signingSecret: 'opaque-b', appToken: 'opaque-c' }, 'env'], 'opaque-'],
    ['a token inside an error’s request headers', () => ['slack call failed', Object.assign(new Error('An API error occurred'), { config: { headers: { Authorization: `Bearer ${BOT_TOKEN}` } } })], 'AbCdEfGhIjKlMnOp'],
    ['a URL password inside an error message', () => [new Error(`connect ECONNREFUSED ${REDIS_URL}`)], 's3cr3t-redis-pass'],
  ])('redacts %s', (_, args, secret) => {
    for (const format of ['json', 'pretty'] as const) {
      const { out, log } = logTo({ format })
      log.error(...args())
      const text = out.lines().join('\n')
      expect(text, format).not.toContain(secret)
      // The readable form shows an error's stack, not its other properties.
      if (format === 'json') expect(text).toContain('[redacted]')
    }
  })

  it('redacts the ids a child logger carries', () => {
    const { out, log } = logTo()
    log.child({ source: REDIS_URL }).info('x')
    expect(out.lines()[0]).not.toContain('s3cr3t-redis-pass')
  })

  it('is not wrapped again by redactingLog, so its fields stay fields', () => {
    const { out, log } = logTo()
    redactingLog(log).error('failed', new Error('boom'))
    expect(out.records()[0]).toMatchObject({ msg: 'failed', err: { message: 'boom' } })
  })

  it('childLog gives a child of a real logger and leaves a plain log as it is', () => {
    const { out, log } = logTo()
    childLog(log, { alertId: 'a1' }).info('x')
    expect(out.records()[0].alertId).toBe('a1')
    const plain = { info: () => undefined, warn: () => undefined, error: () => undefined }
    expect(childLog(plain, { alertId: 'a1' })).toBe(plain)
  })
})

describe('logging/logger on a TTY', () => {
  it('writes one readable line per record: time, level, message, fields; the stack indented under it', () => {
    const { out, log } = logTo({ isTTY: true, colors: false })
    log.child({ alertId: 'f3a9c1' }).warn({ cluster: 'prod' }, 'slack: down (ECONNREFUSED); retrying with backoff')
    log.error('tick failed', new Error('store gone'))
    const lines = out.lines()
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN  slack: down \(ECONNREFUSED\); retrying with backoff alertId=f3a9c1 cluster=prod$/)
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ERROR tick failed$/)
    expect(lines[2]).toBe('    Error: store gone')
    expect(lines[3]).toMatch(/^ {8}at /)
  })

  it('is forced to JSON on a TTY by format json, and to the readable form off a TTY by format pretty', () => {
    const tty = logTo({ isTTY: true, format: 'json' })
    tty.log.info('x')
    expect(JSON.parse(tty.out.lines()[0])).toMatchObject({ level: 'info', msg: 'x' })
    const pipe = logTo({ format: 'pretty' })
    pipe.log.info('x')
    expect(pipe.out.lines()[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  x$/)
  })

  it('shows control characters from brokers escaped, so a log line cannot drive the terminal', () => {
    const line = formatPrettyRecord(JSON.stringify({ level: 'info', time: 0, msg: 'topic \u001b[2Jgone', topic: 'a\u0007b' }))
    expect(line).toBe('00:00:00.000 INFO  topic \\u001b[2Jgone topic=a\\u0007b\n')
  })

  it('colours the level only when asked', () => {
    const { out, log } = logTo({ isTTY: true, colors: true })
    log.error('x')
    expect(out.lines()[0]).toContain('\u001b[31mERROR\u001b[0m')
  })
})

describe('logging/logger settings', () => {
  it.each([
    [{}, undefined, { level: 'info', format: undefined }],
    [{ KAFKA_WHY_LOG_LEVEL: 'debug' }, undefined, { level: 'debug', format: undefined }],
    [{ KAFKA_WHY_LOG_LEVEL: 'debug' }, 'warn', { level: 'warn', format: undefined }],
    [{ KAFKA_WHY_LOG_FORMAT: 'JSON' }, 'TRACE', { level: 'trace', format: 'json' }],
    [{ KAFKA_WHY_LOG_FORMAT: 'pretty' }, undefined, { level: 'info', format: 'pretty' }],
    [{}, 'verbose', { error: "--log-level: 'verbose' is not a level (trace, debug, info, warn, error, fatal, silent)" }],
    [{ KAFKA_WHY_LOG_LEVEL: 'loud' }, undefined, { error: "KAFKA_WHY_LOG_LEVEL: 'loud' is not a level (trace, debug, info, warn, error, fatal, silent)" }],
    [{ KAFKA_WHY_LOG_FORMAT: 'xml' }, undefined, { error: "KAFKA_WHY_LOG_FORMAT: 'xml' is not json or pretty" }],
  ])('env %j with --log-level %s → %j', (env, flag, expected) => {
    expect(logSettingsFrom(env, flag)).toEqual(expected)
  })
})
