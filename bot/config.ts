import { readFile } from 'node:fs/promises'
import { kafkaWhyConfigSchema, type KafkaWhyConfigFile } from '../file-formats/kafka-why-config.js'
import { renderProblem, validateYaml } from '../file-formats/yaml-validate.js'
import { registerSecret, registerUrlPasswords } from '../secrets/redact.js'
import { readSecretFile } from '../secrets/secret-ref.js'

/**
 * The bot's settings: secrets and endpoints from the environment, everything a team edits in review
 * (clusters, channels, schedule, who may change what) from one YAML file. Both are validated at start
 * so a typo stops the process with the key path named, instead of surfacing at 09:00 in the digest.
 */

/** One Kafka cluster the bot speaks for, its name beside what kafka-why.yaml says of it. */
export type ClusterConfig = { name: string } & NonNullable<KafkaWhyConfigFile['clusters']>[string]

/** The validated YAML settings (kafka-why.yaml's bot part, schema in file-formats/kafka-why-config.ts). */
export type BotConfig = {
  clusters: ClusterConfig[]
  /** IANA time zone for the digest schedule and for times shown to people. */
  timeZone: string
  digest: KafkaWhyConfigFile['digest']
  /** Who may run changing commands, and where. */
  allowed: KafkaWhyConfigFile['allowed']
  /** Who may silence alerts from any channel; when empty, silencing needs `allowed` like a change. */
  silencers: string[]
  /** Config keys whose change needs a second person's approval. */
  riskyKeys: string[]
  auditChannel?: string
  /** Rule files or directories to load. */
  rules: string[]
  /** Where the bot's HTTP receiver listens (`listen: 127.0.0.1:3000`); wins over HOST/PORT. */
  listen?: KafkaWhyConfigFile['listen']
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
  /** REDIS_CLUSTER_NODES: the store is a Redis Cluster (never together with redisUrl). */
  redisClusterNodes?: string
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

/**
 * Parses and validates the YAML text against kafka-why.yaml's schema; throws ConfigError listing
 * every problem as `file:line:col: key.path: message`.
 */
export function parseBotConfig(text: string, file = 'config'): BotConfig {
  const checked = validateYaml(text, file, kafkaWhyConfigSchema)
  if (!checked.ok) throw new ConfigError(checked.problems.map(renderProblem))
  const raw = checked.data
  if (!raw.clusters || Object.keys(raw.clusters).length === 0) {
    const at = checked.locate(['clusters'])
    throw new ConfigError([renderProblem({ file, ...at, path: 'clusters', message: 'required, a mapping of cluster name to { brokers, channel }' })])
  }
  return {
    clusters: Object.entries(raw.clusters).map(([name, c]) => ({ name, ...c })),
    timeZone: raw.time_zone,
    digest: raw.digest,
    allowed: raw.allowed,
    silencers: raw.silencers,
    riskyKeys: raw.risky_keys,
    ...(raw.audit_channel !== undefined ? { auditChannel: raw.audit_channel } : {}),
    rules: raw.rules,
    ...(raw.listen ? { listen: raw.listen } : {}),
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
  registerUrlPasswords(env.REDIS_URL)
  registerUrlPasswords(env.REDIS_CLUSTER_NODES)
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT: '${env.PORT}' is not a port number`)
  if (env.REDIS_URL?.trim() && env.REDIS_CLUSTER_NODES?.trim()) problems.push('REDIS_URL and REDIS_CLUSTER_NODES: both set; set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a Redis Cluster')
  if (problems.length) throw new ConfigError(problems.map((p) => `env ${p}`))
  return {
    mode,
    botToken: botToken!,
    signingSecret,
    appToken,
    port,
    host: env.HOST || '127.0.0.1',
    redisUrl: env.REDIS_URL,
    redisClusterNodes: env.REDIS_CLUSTER_NODES,
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
