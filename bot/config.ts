import { readFile } from 'node:fs/promises'
import cron from 'node-cron'
import { parse as parseYaml } from 'yaml'
import { registerSecret } from '../secrets/redact.js'
import { readSecretFile } from '../secrets/secret-ref.js'

/**
 * The bot's settings: secrets and endpoints from the environment, everything a team edits in review
 * (clusters, channels, schedule, who may change what) from one YAML file. Both are validated at start
 * so a typo stops the process with the key path named, instead of surfacing at 09:00 in the digest.
 */

/** One Kafka cluster the bot speaks for. */
export type ClusterConfig = {
  name: string
  /** Bootstrap brokers for the admin client ("kafka-1:9092"). */
  brokers: string[]
  /** Channel id where this cluster's alerts and digest go. */
  channel: string
}

/** The validated YAML settings. */
export type BotConfig = {
  clusters: ClusterConfig[]
  /** IANA time zone for the digest schedule and for times shown to people. */
  timeZone: string
  digest: { schedule: string; enabled: boolean }
  /** Who may run changing commands, and where. */
  allowed: { users: string[]; channels: string[] }
  /** Who may silence alerts from any channel; when empty, silencing needs `allowed` like a change. */
  silencers: string[]
  /** Config keys whose change needs a second person's approval. */
  riskyKeys: string[]
  auditChannel?: string
  /** Rule files or directories to load. */
  rules: string[]
  /** Where the bot's HTTP receiver listens (`listen: 127.0.0.1:3000`); wins over HOST/PORT. */
  listen?: { host: string; port: number }
}

/** The validated environment: secrets and endpoints. */
export type BotEnv = {
  mode: 'http' | 'socket'
  botToken: string
  signingSecret?: string
  appToken?: string
  port: number
  /** Interface to listen on (HTTP mode): HOST, else 127.0.0.1; all interfaces only when HOST=0.0.0.0 says so. */
  host?: string
  redisUrl?: string
  /** Override of the Slack Web API base URL (a local stand-in in tests). */
  slackApiUrl?: string
  configPath: string
}

/** A configuration problem; each line names the offending key path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  }
}

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/
const USER_ID = /^[UW][A-Z0-9]{2,}$/
const CLUSTER_NAME = /^[A-Za-z0-9_-]{1,64}$/
const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/
const CONFIG_KEY = /^[a-z][a-z0-9.]*$/

// `live` belongs to serve's adapters (adapters/live/live-config.ts) when both share kafka-why.yaml.
const KNOWN_TOP = ['clusters', 'time_zone', 'digest', 'allowed', 'silencers', 'risky_keys', 'audit_channel', 'rules', 'listen', 'live']

/** Parses and validates the YAML text; throws ConfigError listing every bad key. */
export function parseBotConfig(text: string, file = 'config'): BotConfig {
  const problems: string[] = []
  let raw: unknown
  try {
    raw = parseYaml(text)
  } catch (err) {
    throw new ConfigError([`${file}: not valid YAML: ${(err as Error).message.split('\n')[0]}`])
  }
  if (!isRecord(raw)) throw new ConfigError([`${file}: expected a mapping at the top level`])
  for (const key of Object.keys(raw)) if (!KNOWN_TOP.includes(key)) problems.push(`${key}: unknown key (known: ${KNOWN_TOP.join(', ')})`)

  const clusters: ClusterConfig[] = []
  if (!isRecord(raw.clusters) || Object.keys(raw.clusters).length === 0) {
    problems.push('clusters: required, a mapping of cluster name to { brokers, channel }')
  } else {
    for (const [name, c] of Object.entries(raw.clusters)) {
      const at = `clusters.${name}`
      if (!CLUSTER_NAME.test(name)) problems.push(`${at}: cluster names use letters, digits, _ and - only`)
      if (!isRecord(c)) {
        problems.push(`${at}: expected a mapping with brokers and channel`)
        continue
      }
      const brokers = stringList(c.brokers, `${at}.brokers`, problems, HOST_PORT, 'host:port')
      if (brokers.length === 0 && Array.isArray(c.brokers)) problems.push(`${at}.brokers: at least one host:port`)
      if (typeof c.channel !== 'string' || !CHANNEL_ID.test(c.channel)) problems.push(`${at}.channel: expected a Slack channel id like C0123ABCD`)
      for (const k of Object.keys(c)) if (!['brokers', 'channel'].includes(k)) problems.push(`${at}.${k}: unknown key`)
      clusters.push({ name, brokers, channel: String(c.channel) })
    }
  }

  const timeZone = raw.time_zone === undefined ? 'UTC' : raw.time_zone
  if (typeof timeZone !== 'string' || !isTimeZone(timeZone)) problems.push(`time_zone: '${String(timeZone)}' is not an IANA time zone (e.g. Europe/Berlin)`)

  let digest = { schedule: '0 9 * * *', enabled: true }
  if (raw.digest !== undefined) {
    if (!isRecord(raw.digest)) problems.push('digest: expected a mapping with schedule and enabled')
    else {
      const schedule = raw.digest.schedule ?? digest.schedule
      if (typeof schedule !== 'string' || !cron.validate(schedule)) problems.push(`digest.schedule: '${String(schedule)}' is not a cron expression (e.g. "0 9 * * *")`)
      const enabled = raw.digest.enabled ?? true
      if (typeof enabled !== 'boolean') problems.push('digest.enabled: expected true or false')
      for (const k of Object.keys(raw.digest)) if (!['schedule', 'enabled'].includes(k)) problems.push(`digest.${k}: unknown key`)
      digest = { schedule: String(schedule), enabled: enabled === true }
    }
  }

  let allowed = { users: [] as string[], channels: [] as string[] }
  if (raw.allowed !== undefined) {
    if (!isRecord(raw.allowed)) problems.push('allowed: expected a mapping with users and channels')
    else {
      allowed = {
        users: stringList(raw.allowed.users ?? [], 'allowed.users', problems, USER_ID, 'a Slack user id like U0123ABCD'),
        channels: stringList(raw.allowed.channels ?? [], 'allowed.channels', problems, CHANNEL_ID, 'a Slack channel id like C0123ABCD'),
      }
      for (const k of Object.keys(raw.allowed)) if (!['users', 'channels'].includes(k)) problems.push(`allowed.${k}: unknown key`)
    }
  }

  const silencers = stringList(raw.silencers ?? [], 'silencers', problems, USER_ID, 'a Slack user id like U0123ABCD')
  const riskyKeys = stringList(raw.risky_keys ?? [], 'risky_keys', problems, CONFIG_KEY, 'a Kafka config key like retention.ms')
  const auditChannel = raw.audit_channel
  if (auditChannel !== undefined && (typeof auditChannel !== 'string' || !CHANNEL_ID.test(auditChannel))) {
    problems.push('audit_channel: expected a Slack channel id like C0123ABCD')
  }
  const rules = stringList(raw.rules ?? ['rules'], 'rules', problems, /^[^\0]+$/, 'a path')
  let listen: BotConfig['listen']
  if (raw.listen !== undefined) {
    // host:port with the host spelled out: an operator decides whether the bot faces every interface.
    const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(String(raw.listen))
    if (!m || Number(m[2]) > 65535) problems.push(`listen: '${String(raw.listen)}' is not host:port (e.g. 127.0.0.1:3000, or 0.0.0.0:3000 for every interface)`)
    else listen = { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) }
  }

  if (problems.length) throw new ConfigError(problems.map((p) => `${file}: ${p}`))
  return {
    clusters,
    timeZone: String(timeZone),
    digest,
    allowed,
    silencers,
    riskyKeys,
    auditChannel: auditChannel as string | undefined,
    rules,
    ...(listen ? { listen } : {}),
  }
}

/**
 * Reads the environment the bot runs with; throws ConfigError naming each missing variable. Each
 * secret may instead come from a file named by `<NAME>_FILE` (mounted secrets), and every secret is
 * registered for redaction before anything can log it.
 */
export function parseBotEnv(env: NodeJS.ProcessEnv): BotEnv {
  const problems: string[] = []
  const secret = (name: string): string | undefined => {
    const path = env[`${name}_FILE`]
    if (path && env[name]) problems.push(`${name}: set ${name} or ${name}_FILE, not both`)
    const value = path ? readSecretFile(path, `${name}_FILE`, problems) : env[name]
    registerSecret(value)
    return value || undefined
  }
  const mode = env.SLACK_SOCKET_MODE === '1' || env.SLACK_SOCKET_MODE === 'true' ? 'socket' : 'http'
  const botToken = secret('SLACK_BOT_TOKEN')
  const signingSecret = secret('SLACK_SIGNING_SECRET')
  const appToken = secret('SLACK_APP_TOKEN')
  if (!botToken) problems.push('SLACK_BOT_TOKEN: required (xoxb-…), or SLACK_BOT_TOKEN_FILE')
  if (mode === 'http' && !signingSecret) problems.push('SLACK_SIGNING_SECRET: required in HTTP mode')
  if (mode === 'socket' && !appToken) problems.push('SLACK_APP_TOKEN: required when SLACK_SOCKET_MODE=1 (xapp-…)')
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT: '${env.PORT}' is not a port number`)
  if (problems.length) throw new ConfigError(problems.map((p) => `env ${p}`))
  return {
    mode,
    botToken: botToken!,
    signingSecret,
    appToken,
    port,
    host: env.HOST || '127.0.0.1',
    redisUrl: env.REDIS_URL,
    slackApiUrl: env.SLACK_API_URL,
    configPath: env.KAFKA_WHY_CONFIG ?? 'kafka-why.yaml',
  }
}

/** Loads env and the YAML file together: the one call `serve` makes at start. */
export async function loadBotSettings(env: NodeJS.ProcessEnv): Promise<{ env: BotEnv; config: BotConfig }> {
  const botEnv = parseBotEnv(env)
  let text: string
  try {
    text = await readFile(botEnv.configPath, 'utf8')
  } catch (err) {
    throw new ConfigError([`KAFKA_WHY_CONFIG: cannot read '${botEnv.configPath}': ${(err as NodeJS.ErrnoException).code ?? String(err)}`])
  }
  return { env: botEnv, config: parseBotConfig(text, botEnv.configPath) }
}

/** The cluster a channel belongs to, else the first configured one. */
export function clusterForChannel(config: BotConfig, channel: string | undefined): ClusterConfig {
  return config.clusters.find((c) => c.channel === channel) ?? config.clusters[0]
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

function stringList(v: unknown, at: string, problems: string[], shape: RegExp, what: string): string[] {
  if (!Array.isArray(v)) {
    problems.push(`${at}: expected a list`)
    return []
  }
  const out: string[] = []
  v.forEach((item, i) => {
    if (typeof item !== 'string' || !shape.test(item)) problems.push(`${at}[${i}]: '${String(item)}' is not ${what}`)
    else out.push(item)
  })
  return out
}
