import { describe, expect, it } from 'vitest'
import { ConfigError, parseBotConfig, parseBotEnv } from '../../bot/config.js'

const GOOD = `
clusters:
  prod-eu:
    brokers: [kafka-1:9092, kafka-2:9092]
    channel: C0PROD
  staging:
    brokers: [stage-kafka:9092]
    channel: C0STAGE
time_zone: Europe/Berlin
digest: { schedule: "30 8 * * 1-5", enabled: true }
allowed: { users: [U0ALICE, U0BOB], channels: [C0PROD] }
risky_keys: [retention.ms, min.insync.replicas]
audit_channel: C0AUDIT
rules: [rules/]
`

function problems(text: string): string[] {
  try {
    parseBotConfig(text, 'bot.yaml')
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => p.replace(/^bot\.yaml:\d+:\d+: /, 'bot.yaml: '))
    throw err
  }
  return []
}

describe('bot/config', () => {
  it('reads a full configuration', () => {
    const c = parseBotConfig(GOOD)
    expect(c.clusters.map((x) => [x.name, x.channel, x.brokers.length])).toEqual([
      ['prod-eu', 'C0PROD', 2],
      ['staging', 'C0STAGE', 1],
    ])
    expect(c.timeZone).toBe('Europe/Berlin')
    expect(c.digest).toEqual({ schedule: '30 8 * * 1-5', enabled: true })
    expect(c.allowed.users).toEqual(['U0ALICE', 'U0BOB'])
    expect(c.riskyKeys).toContain('retention.ms')
    expect(c.auditChannel).toBe('C0AUDIT')
    expect(c.listen).toBeUndefined()
    expect(parseBotConfig(`${GOOD}listen: 0.0.0.0:3000\n`).listen).toEqual({ host: '0.0.0.0', port: 3000 })
    expect(parseBotConfig(`${GOOD}listen: "[::1]:3000"\n`).listen).toEqual({ host: '::1', port: 3000 })
  })

  it.each([
    ['time_zone: Mars/Olympus', 'bot.yaml: time_zone:'],
    ['digest: { schedule: "every morning" }', 'bot.yaml: digest.schedule:'],
    ['allowed: { users: [alice] }', 'bot.yaml: allowed.users[0]:'],
    ['allowed: { channels: [general] }', 'bot.yaml: allowed.channels[0]:'],
    ['risky_keys: [Retention MS]', 'bot.yaml: risky_keys[0]:'],
    ['audit_channel: "#audit"', 'bot.yaml: audit_channel:'],
    ['colour: blue', 'bot.yaml: colour: unknown key'],
    ['listen: 3000', 'bot.yaml: listen:'],
    ['listen: "localhost:99999"', 'bot.yaml: listen:'],
  ])('names the bad key for %j', (line, prefix) => {
    const key = line.split(':')[0]
    const re = new RegExp(`^${key}:.*$`, 'm')
    const found = problems(re.test(GOOD) ? GOOD.replace(re, line) : `${GOOD}${line}\n`)
    expect(found.some((p) => p.startsWith(prefix)), found.join('\n')).toBe(true)
  })

  it.each([
    ['clusters:\n  prod:\n    brokers: [kafka-1]\n    channel: C0PROD\n', 'bot.yaml: clusters.prod.brokers[0]:'],
    ['clusters:\n  prod:\n    brokers: [kafka-1:9092]\n    channel: general\n', 'bot.yaml: clusters.prod.channel:'],
    ['clusters:\n  prod:\n    brokers: [kafka-1:9092]\n    channel: C0PROD\n    colour: red\n', 'bot.yaml: clusters.prod.colour: unknown key'],
    ['time_zone: UTC\n', 'bot.yaml: clusters: required'],
    ['clusters: [\n', 'bot.yaml: not valid YAML'],
  ])('names the bad cluster key in %j', (text, prefix) => {
    expect(problems(text).some((p) => p.startsWith(prefix)), problems(text).join('\n')).toBe(true)
  })

  it('places each problem at the line and column of the bad value or key', () => {
    const text = 'clusters:\n  prod:\n    brokers: [kafka-1]\n    channel: general\n    colour: red\ndigest: { schedule: "every morning" }\n'
    let found: string[] = []
    try {
      parseBotConfig(text, 'bot.yaml')
    } catch (err) {
      found = (err as ConfigError).problems
    }
    expect(found).toEqual([
      "bot.yaml:3:15: clusters.prod.brokers[0]: 'kafka-1' is not host:port",
      "bot.yaml:4:14: clusters.prod.channel: 'general' is not a Slack channel id like C0123ABCD",
      'bot.yaml:5:5: clusters.prod.colour: unknown key (known: brokers, channel)',
      'bot.yaml:6:21: digest.schedule: \'every morning\' is not a cron expression: expected 5 or 6 fields (minute hour day-of-month month day-of-week, optionally seconds first), found 2 (e.g. "0 9 * * *")',
    ])
  })

  it.each([
    [{}, ['env SLACK_BOT_TOKEN: required (xoxb-…), or SLACK_BOT_TOKEN_FILE', 'env SLACK_SIGNING_SECRET: required in HTTP mode']],
    [{ SLACK_BOT_TOKEN_FILE: '/nonexistent/token', SLACK_SIGNING_SECRET: 's' }, ["env SLACK_BOT_TOKEN_FILE: cannot read '/nonexistent/token': ENOENT", 'env SLACK_BOT_TOKEN: required (xoxb-…), or SLACK_BOT_TOKEN_FILE']],
    [{ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SOCKET_MODE: '1' }, ['env SLACK_APP_TOKEN: required when SLACK_SOCKET_MODE=1 (xapp-…)']],
    [{ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: 'http' }, ["env PORT: 'http' is not a port number"]],
    [
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' },
      ['env REDIS_URL and REDIS_CLUSTER_NODES: both set; set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a Redis Cluster'],
    ],
  ])('names missing environment variables for %j', (env, expected) => {
    expect(() => parseBotEnv(env)).toThrow(ConfigError)
    try {
      parseBotEnv(env)
    } catch (err) {
      expect((err as ConfigError).problems).toEqual(expected)
    }
  })

  it('chooses socket mode from the environment', () => {
    expect(parseBotEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SOCKET_MODE: 'true', SLACK_APP_TOKEN: 'xapp-1' }).mode).toBe('socket')
    expect(parseBotEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }).mode).toBe('http')
  })
})
