import type { SASLOptions } from 'kafkajs'
import { parse as parseYaml } from 'yaml'
import { registerSecret } from '../../secrets/redact.js'
import { interpolateEnv, resolveSecretField } from '../../secrets/secret-ref.js'
import { lookupSignal } from '../../signals/catalogue.js'
import { parseInterval } from '../agent/parse-interval.js'

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
 *   signals_topic: { brokers: [kafka-1:9092], topic: kafka-why-signals, group: kafka-why-engines }
 *   retention: { default: 7d, resolved_alerts: 1d, every: 10m, signals: { heap.used: 2d } }
 * ```
 */
/**
 * The live engine's defaults: evaluate every second at real time, and hold only the rules a late line
 * could undo (`not`, `for`, lowering aggregates) for 2 s after their evidence. A line written within
 * 2 s of what it records can still stop such an alert; evidence → alert takes the tail's poll, up to a
 * tick and, for those rules, the settle time (docs/live.md has the measured figures).
 */
export const DEFAULT_TICK_MS = 1_000
/** Live evaluation runs at real time; `lag` delays every rule, `settle` only the ones late data can undo. */
export const DEFAULT_LIVE_LAG_MS = 0
/** How long a match a late line could undo is held before it fires, in live evaluation. */
export const DEFAULT_SETTLE_MS = 2_000

export type LiveConfig = {
  listen: { host: string; port: number }
  engine: { tickMs: number; lagMs: number; settleMs: number; enabled: boolean }
  retention: RetentionConfig
  clusters: LiveCluster[]
  /** Consume signals shipped to a Kafka topic (agents, log shippers) as one of a group of engines. */
  signalsTopic?: { brokers: string[]; topic: string; groupId: string; fromBeginning: boolean }
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
export type RetentionConfig = {
  /** Age of every signal not named in `signalsMs`. Default 7 days. */
  defaultMs: number
  /** Per-signal ages by catalogue name. */
  signalsMs: Record<string, number>
  /** How long a resolved alert is kept (for status, re-fire history). Default 1 day. */
  resolvedAlertsMs: number
  /** Time between sweeps. Default 10 minutes. */
  everyMs: number
}

/** Seven days: a week of history for `why --since`, trends and the digest, with the store bounded. */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000

/** One cluster's live sources: admin poller, scrape targets, followed log files. */
export type LiveCluster = {
  name: string
  admin?: {
    brokers: string[]
    intervalMs: number
    ssl?: boolean | { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean; servername?: string }
    sasl?: SASLOptions
    groups: boolean
  }
  scrape: { broker?: string; url: string; intervalMs: number; timeoutMs: number }[]
  logs: { broker?: string; path: string; offsetFile?: string; fromEnd: boolean }[]
}

/** Problems with the config, each naming the key path. */
export class LiveConfigError extends Error {
  override readonly name = 'LiveConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/

function unknownKeys(obj: Record<string, unknown>, known: string[], at: string, problems: string[]): void {
  for (const k of Object.keys(obj)) if (!known.includes(k)) problems.push(`${at}.${k}: unknown key (known: ${known.join(', ')})`)
}

function duration(v: unknown, at: string, fallback: number, problems: string[]): number {
  if (v === undefined) return fallback
  const ms = typeof v === 'string' || typeof v === 'number' ? parseInterval(v) : undefined
  if (ms === undefined) {
    problems.push(`${at}: '${String(v)}' is not a duration (e.g. 15s, 500ms, 1m)`)
    return fallback
  }
  return ms
}

function parseRetention(v: unknown, problems: string[]): RetentionConfig {
  const out: RetentionConfig = { defaultMs: DEFAULT_RETENTION_MS, signalsMs: {}, resolvedAlertsMs: 86_400_000, everyMs: 600_000 }
  if (v === undefined) return out
  if (!isRecord(v)) {
    problems.push('live.retention: expected a mapping with default, signals, resolved_alerts, every')
    return out
  }
  unknownKeys(v, ['default', 'signals', 'resolved_alerts', 'every'], 'live.retention', problems)
  out.defaultMs = duration(v.default, 'live.retention.default', out.defaultMs, problems)
  out.resolvedAlertsMs = duration(v.resolved_alerts, 'live.retention.resolved_alerts', out.resolvedAlertsMs, problems)
  out.everyMs = duration(v.every, 'live.retention.every', out.everyMs, problems)
  if (v.signals !== undefined) {
    if (!isRecord(v.signals)) problems.push('live.retention.signals: expected a mapping of signal name to age (heap.used: 2d)')
    else {
      for (const [name, age] of Object.entries(v.signals)) {
        if (!lookupSignal(name)) problems.push(`live.retention.signals: unknown signal '${name}'`)
        else out.signalsMs[name] = duration(age, `live.retention.signals.${name}`, out.defaultMs, problems)
      }
    }
  }
  return out
}

/** A password written into a scrape URL is a secret like any other. */
function registerUrlPassword(url: string): void {
  try {
    registerSecret(decodeURIComponent(new URL(url).password))
  } catch {
    // not a URL the scraper can use either; the shape check above reports it
  }
}

function brokerId(v: unknown, at: string, problems: string[]): string | undefined {
  if (v === undefined) return undefined
  if ((typeof v === 'string' || typeof v === 'number') && /^\d+$/.test(String(v))) return String(v)
  problems.push(`${at}: '${String(v)}' is not a broker id`)
  return undefined
}

/**
 * Parses the whole kafka-why.yaml text; `file` names it in messages. Secrets may come from `env`
 * (`${NAME}`) or from files (`password_file:`, `key_file:`), see docs/configuration.md.
 */
export function parseLiveConfig(text: string, file = 'kafka-why.yaml', env: NodeJS.ProcessEnv = process.env): LiveConfig {
  let raw: unknown
  try {
    raw = parseYaml(text) ?? {}
  } catch (err) {
    throw new LiveConfigError([`${file}: not valid YAML: ${(err as Error).message.split('\n')[0]}`])
  }
  if (!isRecord(raw)) throw new LiveConfigError([`${file}: expected a mapping at the top level`])
  const problems: string[] = []
  const live = raw.live ?? {}
  if (!isRecord(live)) throw new LiveConfigError([`${file}: live: expected a mapping`])
  unknownKeys(live, ['listen', 'engine', 'clusters', 'signals_topic', 'retention'], 'live', problems)

  let listen = { host: '127.0.0.1', port: 9464 }
  if (live.listen !== undefined) {
    const m = /^(?:(.+):)?(\d{1,5})$/.exec(String(live.listen))
    if (!m || Number(m[2]) > 65535) problems.push(`live.listen: '${String(live.listen)}' is not [host:]port`)
    else listen = { host: m[1] ?? '127.0.0.1', port: Number(m[2]) }
  }

  const engineRaw = live.engine ?? {}
  let engine = { tickMs: DEFAULT_TICK_MS, lagMs: DEFAULT_LIVE_LAG_MS, settleMs: DEFAULT_SETTLE_MS, enabled: true }
  if (!isRecord(engineRaw)) problems.push('live.engine: expected a mapping with tick, lag, settle, enabled')
  else {
    unknownKeys(engineRaw, ['tick', 'lag', 'settle', 'enabled'], 'live.engine', problems)
    if (engineRaw.enabled !== undefined && typeof engineRaw.enabled !== 'boolean') problems.push('live.engine.enabled: expected true or false')
    const zeroOr = (v: unknown, at: string, fallback: number) => (v === 0 || v === '0s' || v === '0' ? 0 : duration(v, at, fallback, problems))
    engine = {
      tickMs: duration(engineRaw.tick, 'live.engine.tick', DEFAULT_TICK_MS, problems),
      lagMs: zeroOr(engineRaw.lag, 'live.engine.lag', DEFAULT_LIVE_LAG_MS),
      settleMs: zeroOr(engineRaw.settle, 'live.engine.settle', DEFAULT_SETTLE_MS),
      enabled: engineRaw.enabled !== false,
    }
    if (engine.tickMs <= 0) problems.push(`live.engine.tick: must be more than 0`)
  }

  const retention = parseRetention(live.retention, problems)

  const botClusters = isRecord(raw.clusters) ? raw.clusters : {}
  const clusters: LiveCluster[] = []
  const liveClusters = live.clusters ?? {}
  if (!isRecord(liveClusters)) problems.push('live.clusters: expected a mapping of cluster name to { admin, scrape, logs }')
  else {
    for (const [name, c] of Object.entries(liveClusters)) {
      const at = `live.clusters.${name}`
      if (!isRecord(c)) {
        problems.push(`${at}: expected a mapping with admin, scrape, logs`)
        continue
      }
      unknownKeys(c, ['admin', 'scrape', 'logs'], at, problems)
      const cluster: LiveCluster = { name, scrape: [], logs: [] }

      if (c.admin !== undefined && c.admin !== false) {
        const a = c.admin === true ? {} : c.admin
        if (!isRecord(a)) problems.push(`${at}.admin: expected a mapping (brokers, interval, ssl, sasl, groups) or true`)
        else {
          unknownKeys(a, ['brokers', 'interval', 'ssl', 'sasl', 'groups'], `${at}.admin`, problems)
          const fromBot = isRecord(botClusters[name]) ? (botClusters[name] as Record<string, unknown>).brokers : undefined
          const brokers = a.brokers ?? fromBot
          const list = Array.isArray(brokers) ? brokers.map(String) : []
          if (list.length === 0) problems.push(`${at}.admin.brokers: required (host:port list), or clusters.${name}.brokers for the bot`)
          for (const [i, b] of list.entries()) if (!HOST_PORT.test(b)) problems.push(`${at}.admin.brokers[${i}]: '${b}' is not host:port`)
          const admin: NonNullable<LiveCluster['admin']> = {
            brokers: list,
            intervalMs: duration(a.interval, `${at}.admin.interval`, 30_000, problems),
            groups: a.groups !== false,
          }
          if (a.ssl !== undefined) {
            if (typeof a.ssl === 'boolean') admin.ssl = a.ssl
            else if (isRecord(a.ssl)) {
              const sat = `${at}.admin.ssl`
              unknownKeys(a.ssl, ['ca', 'cert', 'key', 'ca_file', 'cert_file', 'key_file', 'rejectUnauthorized', 'servername'], sat, problems)
              const ssl: Exclude<NonNullable<LiveCluster['admin']>['ssl'], boolean | undefined> = {}
              for (const k of ['ca', 'cert', 'key'] as const) {
                const v = resolveSecretField(a.ssl, k, sat, env, problems)
                if (v !== undefined) ssl[k] = v
              }
              if (a.ssl.rejectUnauthorized !== undefined) ssl.rejectUnauthorized = a.ssl.rejectUnauthorized !== false
              if (typeof a.ssl.servername === 'string') ssl.servername = a.ssl.servername
              admin.ssl = ssl
            } else problems.push(`${at}.admin.ssl: expected true, false or a mapping of TLS options`)
          }
          if (a.sasl !== undefined) {
            const s = a.sasl
            const mechanisms = ['plain', 'scram-sha-256', 'scram-sha-512']
            const shape = `${at}.admin.sasl: expected { mechanism: ${mechanisms.join(' | ')}, username, password | password_file }`
            if (!isRecord(s) || !mechanisms.includes(String(s.mechanism)) || typeof s.username !== 'string') problems.push(shape)
            else {
              unknownKeys(s, ['mechanism', 'username', 'password', 'password_file'], `${at}.admin.sasl`, problems)
              const before = problems.length
              const password = resolveSecretField(s, 'password', `${at}.admin.sasl`, env, problems)
              if (password !== undefined) admin.sasl = { mechanism: s.mechanism as 'plain', username: s.username, password }
              else if (problems.length === before) problems.push(shape)
            }
          }
          cluster.admin = admin
        }
      }

      if (c.scrape !== undefined) {
        const s = c.scrape
        if (!isRecord(s)) problems.push(`${at}.scrape: expected a mapping with targets, interval, timeout`)
        else {
          unknownKeys(s, ['targets', 'interval', 'timeout'], `${at}.scrape`, problems)
          const intervalMs = duration(s.interval, `${at}.scrape.interval`, 15_000, problems)
          const timeoutMs = duration(s.timeout, `${at}.scrape.timeout`, Math.min(10_000, intervalMs), problems)
          if (!Array.isArray(s.targets)) problems.push(`${at}.scrape.targets: expected a list of { broker, url }`)
          else {
            s.targets.forEach((t, i) => {
              const tat = `${at}.scrape.targets[${i}]`
              const url = isRecord(t) && typeof t.url === 'string' ? interpolateEnv(t.url, `${tat}.url`, env, problems) : undefined
              if (!isRecord(t) || url === undefined || !/^https?:\/\/[^\s]+$/.test(url)) {
                if (!isRecord(t) || typeof t.url !== 'string' || url !== undefined) problems.push(`${tat}: expected { broker, url: http://host:port/metrics }`)
                return
              }
              unknownKeys(t, ['broker', 'url'], tat, problems)
              registerUrlPassword(url)
              cluster.scrape.push({ broker: brokerId(t.broker, `${tat}.broker`, problems), url, intervalMs, timeoutMs })
            })
          }
        }
      }

      if (c.logs !== undefined) {
        if (!Array.isArray(c.logs)) problems.push(`${at}.logs: expected a list of { broker, path }`)
        else {
          c.logs.forEach((l, i) => {
            const lat = `${at}.logs[${i}]`
            if (!isRecord(l) || typeof l.path !== 'string' || l.path === '') {
              problems.push(`${lat}: expected { broker, path, offset_file, from_end }`)
              return
            }
            unknownKeys(l, ['broker', 'path', 'offset_file', 'from_end'], lat, problems)
            cluster.logs.push({
              broker: brokerId(l.broker, `${lat}.broker`, problems),
              path: l.path,
              offsetFile: typeof l.offset_file === 'string' ? l.offset_file : undefined,
              fromEnd: l.from_end !== false,
            })
          })
        }
      }
      clusters.push(cluster)
    }
  }

  let signalsTopic: LiveConfig['signalsTopic']
  if (live.signals_topic !== undefined) {
    const t = live.signals_topic
    if (!isRecord(t)) problems.push('live.signals_topic: expected { brokers, topic, group, from_beginning }')
    else {
      unknownKeys(t, ['brokers', 'topic', 'group', 'from_beginning'], 'live.signals_topic', problems)
      const brokers = Array.isArray(t.brokers) ? t.brokers.map(String) : []
      if (brokers.length === 0) problems.push('live.signals_topic.brokers: required, a host:port list')
      for (const [i, b] of brokers.entries()) if (!HOST_PORT.test(b)) problems.push(`live.signals_topic.brokers[${i}]: '${b}' is not host:port`)
      if (typeof t.topic !== 'string' || !/^[A-Za-z0-9._-]{1,249}$/.test(t.topic)) problems.push(`live.signals_topic.topic: '${String(t.topic)}' is not a topic name`)
      signalsTopic = {
        brokers,
        topic: String(t.topic),
        groupId: typeof t.group === 'string' && t.group ? t.group : 'kafka-why-engines',
        fromBeginning: t.from_beginning !== false,
      }
    }
  }

  const rules = raw.rules === undefined ? ['rules'] : Array.isArray(raw.rules) ? raw.rules.map(String) : []
  if (raw.rules !== undefined && !Array.isArray(raw.rules)) problems.push('rules: expected a list of paths')
  if (problems.length) throw new LiveConfigError(problems.map((p) => `${file}: ${p}`))

  const rest = { ...raw }
  delete rest.live
  const botYaml = 'clusters' in rest ? JSON.stringify(rest) : undefined
  return { listen, engine, retention, clusters, signalsTopic, rules, botYaml, file }
}
