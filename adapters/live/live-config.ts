import type { SASLOptions } from 'kafkajs'
import { parse as parseYaml } from 'yaml'
import { kafkaWhyConfigSchema, type LiveClusterSection, type LiveSection } from '../../file-formats/kafka-why-config.js'
import { formatPath, renderProblem, validateYaml, type FieldPath } from '../../file-formats/yaml-validate.js'
import { registerSecret } from '../../secrets/redact.js'
import { interpolateEnv, resolveSecretField } from '../../secrets/secret-ref.js'

/**
 * The `live:` section of kafka-why.yaml: which brokers to scrape, which clusters to poll through the
 * admin API, which log files to follow, how often the alert loop ticks and where serve listens. The
 * rest of the file is the bot's. Validated whole at start; every problem names its key path.
 *
 * ```yaml
 * live:
 *   listen: 127.0.0.1:9464
 *   engine: { tick: 1s, lag: 0s, settle: 2s }
 *   clusters:
 *     prod:
 *       admin: { brokers: [kafka-1:9092], interval: 30s }
 *       scrape:
 *         interval: 15s
 *         timeout: 10s
 *         targets:
 *           - { broker: "1", url: http://kafka-1:7071/metrics }
 *       logs:
 *         - { broker: "1", path: /var/log/kafka/server.log }
 *       processes:                     # brokers on serve's own host: state, CPU time, fds, maps
 *         - { broker: "1", pid: /var/run/kafka.pid, interval: 5s }
 *   signals_topic: { brokers: [kafka-1:9092], topic: kafka-why-signals, group: kafka-why-engines }
 *   retention: { default: 7d, resolved_alerts: 1d, every: 10m, signals: { heap.used: 2d } }
 * ```
 */
/** Serve's defaults, as the schema applies them to a file that sets nothing. */
const DEFAULTS = kafkaWhyConfigSchema.parse({}).live
/** Evaluate every second at real time (docs/live.md has the measured figures). */
export const DEFAULT_TICK_MS = DEFAULTS.engine.tickMs
/** Live evaluation runs at real time; `lag` delays every rule, `settle` only the ones late data can undo. */
export const DEFAULT_LIVE_LAG_MS = DEFAULTS.engine.lagMs
/** How long a match a late line could undo is held before it fires, in live evaluation. */
export const DEFAULT_SETTLE_MS = DEFAULTS.engine.settleMs
/** Seven days: a week of history for `why --since`, trends and the digest, with the store bounded. */
export const DEFAULT_RETENTION_MS = DEFAULTS.retention.defaultMs

/** Consumer lag of a cluster's groups (adapters/consumer-lag), under its `admin:` section. */
export type ConsumerLagConfig = { intervalMs: number; offsets: 'topic' | 'admin'; maxGroups: number; maxPartitionsPerGroup: number }

/** What serve runs with: the validated `live:` section, its secrets resolved. */
export type LiveConfig = {
  listen: LiveSection['listen']
  engine: LiveSection['engine']
  retention: RetentionConfig
  clusters: LiveCluster[]
  /** Consume signals shipped to a Kafka topic (agents, log shippers) as one of a group of engines. */
  signalsTopic?: LiveSection['signals_topic']
  /** Rule files or directories (the bot's `rules`, default ["rules"]). */
  rules: string[]
  /** The file minus `live:`, for the bot; undefined when it has no bot settings (no `clusters` key). */
  botYaml?: string
  /** The file the config was read from, so the bot's messages name it too. */
  file: string
}

/**
 * How long serve keeps what it stores (docs/retention.md). Events and samples older than their
 * signal's age are trimmed, a broker quiet for that long leaves the store with its facts, and
 * resolved alerts are deleted after their grace period; a sweep runs every `everyMs`.
 */
export type RetentionConfig = LiveSection['retention']

/** TLS options for the admin client, with certificate and key text read from where the file says. */
type SslOptions = { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean; servername?: string }

/** One cluster's live sources: admin poller, scrape targets, followed log files. */
export type LiveCluster = {
  name: string
  admin?: { brokers: string[]; intervalMs: number; ssl?: boolean | SslOptions; sasl?: SASLOptions; groups: boolean; lag?: ConsumerLagConfig }
  scrape: { broker?: string; url: string; intervalMs: number; timeoutMs: number }[]
  logs: LiveClusterSection['logs']
  /** Broker processes on serve's own host, read from /proc (adapters/agent). */
  processes: LiveClusterSection['processes']
}

/** Problems with the config, each `file:line:col: key.path: message`. */
export class LiveConfigError extends Error {
  override readonly name = 'LiveConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  }
}

/** A password written into a scrape URL is a secret like any other. */
function registerUrlPassword(url: string): void {
  try {
    registerSecret(decodeURIComponent(new URL(url).password))
  } catch {
    // not a URL the scraper can use either; the shape check reports it
  }
}

/**
 * Parses the whole kafka-why.yaml text against its schema (file-formats/kafka-why-config.ts); `file`
 * names it in messages. Secrets may come from `env` (`${NAME}`) or from files (`password_file:`,
 * `key_file:`), see docs/configuration.md; they are resolved once the shape is right.
 */
export function parseLiveConfig(text: string, file = 'kafka-why.yaml', env: NodeJS.ProcessEnv = process.env): LiveConfig {
  const checked = validateYaml(text, file, kafkaWhyConfigSchema)
  if (!checked.ok) throw new LiveConfigError(checked.problems.map(renderProblem))
  const raw = checked.data
  const live = raw.live
  const problems: string[] = []
  const problem = (path: FieldPath, message: string) => problems.push(renderProblem({ file, ...checked.locate(path), path: formatPath(path), message }))
  // The secret helpers say `key.path: message` under the path they are given; each is located in the file.
  const secrets = (base: FieldPath, resolve: (at: string, found: string[]) => string | undefined): string | undefined => {
    const found: string[] = []
    const at = formatPath(base)
    const value = resolve(at, found)
    for (const line of found) {
      const m = /^(?:\.([A-Za-z_]+))?: (.*)$/s.exec(line.startsWith(at) ? line.slice(at.length) : '')
      if (m) problem(m[1] ? [...base, m[1]] : base, m[2])
      else problem(base, line)
    }
    return value
  }

  const clusters: LiveCluster[] = []
  for (const [name, c] of Object.entries(live.clusters)) {
    const at: FieldPath = ['live', 'clusters', name]
    const cluster: LiveCluster = { name, scrape: [], logs: c.logs, processes: c.processes }
    const a = c.admin
    if (a) {
      const brokers = a.brokers ?? raw.clusters?.[name]?.brokers ?? []
      if (brokers.length === 0) problem([...at, 'admin', 'brokers'], `required (host:port list), or clusters.${name}.brokers for the bot`)
      const admin: NonNullable<LiveCluster['admin']> = { brokers, intervalMs: a.interval, groups: a.groups }
      if (a.lag) admin.lag = { intervalMs: a.lag.interval, offsets: a.lag.offsets, maxGroups: a.lag.max_groups, maxPartitionsPerGroup: a.lag.max_partitions_per_group }
      if (typeof a.ssl === 'boolean') admin.ssl = a.ssl
      else if (a.ssl) {
        const tls = a.ssl
        const out: SslOptions = {}
        for (const k of ['ca', 'cert', 'key'] as const) {
          const v = secrets([...at, 'admin', 'ssl'], (p, found) => resolveSecretField(tls, k, p, env, found))
          if (v !== undefined) out[k] = v
        }
        if (tls.rejectUnauthorized !== undefined) out.rejectUnauthorized = tls.rejectUnauthorized
        if (tls.servername !== undefined) out.servername = tls.servername
        admin.ssl = out
      }
      if (a.sasl) {
        const s = a.sasl
        const password = secrets([...at, 'admin', 'sasl'], (p, found) => resolveSecretField(s, 'password', p, env, found))
        if (password !== undefined) admin.sasl = { mechanism: s.mechanism as 'plain', username: s.username, password }
      }
      cluster.admin = admin
    }
    const scrape = c.scrape
    if (scrape) {
      scrape.targets.forEach((t, i) => {
        const tat: FieldPath = [...at, 'scrape', 'targets', i, 'url']
        const url = secrets(tat, (p, found) => interpolateEnv(t.url, p, env, found))
        if (url === undefined) return
        if (!/^https?:\/\/[^\s]+$/.test(url)) {
          problem(tat, 'expected http://host:port/metrics')
          return
        }
        registerUrlPassword(url)
        cluster.scrape.push({ broker: t.broker, url, intervalMs: scrape.intervalMs, timeoutMs: scrape.timeoutMs })
      })
    }
    clusters.push(cluster)
  }
  if (problems.length) throw new LiveConfigError(problems)

  const rest = { ...(parseYaml(text) as Record<string, unknown> | null) }
  delete rest.live
  const botYaml = 'clusters' in rest ? JSON.stringify(rest) : undefined
  return { listen: live.listen, engine: live.engine, retention: live.retention, clusters, signalsTopic: live.signals_topic, rules: raw.rules, botYaml, file }
}
