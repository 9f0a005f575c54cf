import cron from 'node-cron'
import { z } from 'zod'
import { lookupSignal } from '../signals/catalogue.js'
import { checkCron } from './cron-check.js'
import { brokerId, closedObject, hostPort, interval, intervalOrZero } from './shapes.js'

/**
 * The schema of kafka-why.yaml, the one file a team edits in review: the bot's part (clusters,
 * channels, schedule, who may change what) and serve's `live:` part. The bot, serve, the example
 * test and schemas/kafka-why.schema.json all come from this one definition; the secrets it names
 * (`${ENV}`, `password_file:`) are resolved by serve after the shape is known to be right.
 */

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/
const USER_ID = /^[UW][A-Z0-9]{2,}$/
const CLUSTER_NAME = /^[A-Za-z0-9_-]{1,64}$/
const CONFIG_KEY = /^[a-z][a-z0-9.]*$/

const channelId = z
  .string({ error: 'expected a Slack channel id like C0123ABCD' })
  .regex(CHANNEL_ID, { error: (iss) => `'${String(iss.input)}' is not a Slack channel id like C0123ABCD` })
const userId = z
  .string({ error: 'expected a Slack user id like U0123ABCD' })
  .regex(USER_ID, { error: (iss) => `'${String(iss.input)}' is not a Slack user id like U0123ABCD` })
const clusterName = z.string().regex(CLUSTER_NAME, { error: 'cluster names use letters, digits, _ and - only' })

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

const botCluster = closedObject(
  {
    brokers: z.array(hostPort, { error: 'expected a list of host:port' }).min(1, { error: 'at least one host:port' }).describe('bootstrap brokers for /kafka describe and config'),
    channel: channelId.describe("channel id for this cluster's alerts and digest"),
  },
  'one Kafka cluster the bot speaks for',
)

const botListen = z
  .string({ error: 'expected host:port' })
  .transform((v, ctx) => {
    // host:port with the host spelled out: an operator decides whether the bot faces every interface.
    const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v)
    if (!m || Number(m[2]) > 65535) {
      ctx.issues.push({ code: 'custom', input: v, message: `'${v}' is not host:port (e.g. 127.0.0.1:3000, or 0.0.0.0:3000 for every interface)` })
      return z.NEVER
    }
    return { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) }
  })
  .describe("the bot's HTTP receiver (/slack/events), host spelled out; wins over HOST/PORT")

const liveListen = z
  .union([z.string(), z.number()], { error: 'expected [host:]port' })
  .transform((v, ctx) => {
    const m = /^(?:(.+):)?(\d{1,5})$/.exec(String(v))
    if (!m || Number(m[2]) > 65535) {
      ctx.issues.push({ code: 'custom', input: v, message: `'${String(v)}' is not [host:]port` })
      return z.NEVER
    }
    return { host: m[1] ?? '127.0.0.1', port: Number(m[2]) }
  })
  .describe('GET /healthz and /metrics; [host:]port, host 127.0.0.1 unless given')

const engine = closedObject(
  {
    tick: interval('how often the alert loop evaluates').prefault('1s'),
    lag: intervalOrZero('how far behind real time every rule is evaluated').prefault('0s'),
    settle: intervalOrZero('how long a match a late line could undo (not, for, lowering aggregates) is held').prefault('2s'),
    long_window_every: intervalOrZero('how often rules looking back over an hour (leak trends, rebalance counts) are evaluated; 0s: every tick').prefault('5m'),
    keep_firing: intervalOrZero('how long an alert stays firing after its last match (an event rule matches for an instant)').prefault('5m'),
    enabled: z.boolean({ error: 'expected true or false' }).default(true).describe('false: store signals, evaluate nothing'),
  },
  'the alert loop',
).transform((e) => ({ tickMs: e.tick, lagMs: e.lag, settleMs: e.settle, longWindowEveryMs: e.long_window_every, keepFiringMs: e.keep_firing, enabled: e.enabled }))

const signalAges = z
  .record(
    z.string().refine((name) => lookupSignal(name) !== undefined, { error: (iss) => `unknown signal '${String(iss.input)}'` }),
    interval('age of this signal'),
    { error: (iss) => (iss.code === 'invalid_type' ? 'expected a mapping of signal name to age (heap.used: 2d)' : undefined) },
  )
  .describe('per-signal ages by catalogue name')

const retention = closedObject(
  {
    default: interval('age of every signal not named in signals').prefault('7d'),
    signals: signalAges.default({}),
    resolved_alerts: interval('how long a resolved alert is kept').prefault('1d'),
    every: interval('time between sweeps').prefault('10m'),
  },
  'how long serve keeps what it stores (docs/retention.md)',
).transform((r) => ({ defaultMs: r.default, signalsMs: r.signals, resolvedAlertsMs: r.resolved_alerts, everyMs: r.every }))

/** A secret field and its `_file` twin: one or the other, never both. */
function oneSecret(obj: Record<string, unknown>, key: string, ctx: z.core.$RefinementCtx<unknown>): void {
  if (obj[key] !== undefined && obj[`${key}_file`] !== undefined) ctx.issues.push({ code: 'custom', input: obj, path: [`${key}_file`], message: `give ${key} or ${key}_file, not both` })
}

const secretText = (what: string) => z.string({ error: 'expected a string, ${ENV_VARIABLE} or a _file: <path>' }).describe(`${what}: literal, or \${ENV_VARIABLE}`)
const secretFile = (what: string) => z.string({ error: 'expected a file path' }).min(1, { error: 'expected a file path' }).describe(`file holding the ${what}`)

const ssl = z
  .union(
    [
      z.boolean(),
      closedObject({
        ca: secretText('CA certificate (PEM)').optional(),
        cert: secretText('client certificate (PEM)').optional(),
        key: secretText('client key (PEM)').optional(),
        ca_file: secretFile('CA certificate').optional(),
        cert_file: secretFile('client certificate').optional(),
        key_file: secretFile('client key').optional(),
        rejectUnauthorized: z.boolean().optional(),
        servername: z.string().optional(),
      }).superRefine((s, ctx) => {
        for (const k of ['ca', 'cert', 'key']) oneSecret(s, k, ctx)
      }),
    ],
    { error: 'expected true, false or a mapping of TLS options' },
  )
  .describe('TLS to the brokers: true, or CA/cert/key')

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const
const sasl = closedObject(
  {
    mechanism: z.enum(SASL_MECHANISMS, { error: `expected ${SASL_MECHANISMS.join(' | ')}` }),
    username: z.string({ error: 'expected a user name' }),
    password: secretText('password').optional(),
    password_file: secretFile('password').optional(),
  },
  'SASL to the brokers',
).superRefine((s, ctx) => {
  oneSecret(s, 'password', ctx)
  if (s.password === undefined && s.password_file === undefined) ctx.issues.push({ code: 'custom', input: s, path: ['password'], message: 'required: password or password_file' })
})

const consumerLag = closedObject(
  {
    interval: interval('time between log-end polls, and the finest spacing of recorded commits').prefault('30s'),
    offsets: z.enum(['topic', 'admin'], { error: "expected 'topic' or 'admin'" }).default('topic').describe("where committed offsets come from: 'topic' reads __consumer_offsets (the admin API when it cannot), 'admin' polls the admin API only"),
    max_groups: z.number({ error: 'expected a whole number' }).int().min(1).max(100_000).default(2000).describe('groups tracked at most; others are counted as dropped'),
    max_partitions_per_group: z.number({ error: 'expected a whole number' }).int().min(1).max(100_000).default(1000).describe('partitions tracked per group at most'),
  },
  'consumer lag: committed offsets and log ends (docs/consumer-lag.md)',
)

const admin = closedObject(
  {
    brokers: z.array(hostPort, { error: 'expected a list of host:port' }).optional().describe("bootstrap brokers; default the bot's clusters.<name>.brokers"),
    interval: interval('time between metadata/config/group polls').prefault('30s'),
    ssl: ssl.optional(),
    sasl: sasl.optional(),
    groups: z.boolean({ error: 'expected true or false' }).default(true).describe('poll consumer groups'),
    lag: z
      .union([z.boolean(), consumerLag], { error: 'expected a mapping (interval, offsets, max_groups, max_partitions_per_group) or true' })
      .transform((l) => (l === true ? consumerLag.parse({}) : l === false ? undefined : l))
      .optional()
      .describe('consumer lag of every group (docs/consumer-lag.md): true for the defaults, or a mapping'),
  },
  'the Kafka admin API poller',
)

const scrape = closedObject(
  {
    targets: z
      .array(
        closedObject({
          broker: brokerId.optional(),
          url: z
            .string({ error: 'expected http://host:port/metrics' })
            .regex(/^(?:https?:\/\/\S+|\S*\$\{[A-Za-z_][A-Za-z0-9_]*\}\S*)$/, { error: 'expected http://host:port/metrics' })
            .describe('the JMX exporter endpoint; ${ENV} may fill parts of it'),
        }),
        { error: 'expected a list of { broker, url }' },
      )
      .describe('one Prometheus/JMX exporter endpoint per broker'),
    interval: interval('time between scrapes').prefault('15s'),
    timeout: interval('a scrape slower than this fails; default the smaller of 10s and interval').optional(),
  },
  'Prometheus/JMX exporter scraping',
).transform((s) => ({ targets: s.targets, intervalMs: s.interval, timeoutMs: s.timeout ?? Math.min(10_000, s.interval) }))

const logFile = closedObject({
  broker: brokerId.optional(),
  path: z.string({ error: 'expected a file path' }).min(1, { error: 'expected a file path' }).describe('the log file to follow'),
  offset_file: z.string().optional().describe('where the read offset is kept across restarts'),
  from_end: z.boolean({ error: 'expected true or false' }).default(true).describe('start at the end of the file the first time'),
}).transform((l) => ({ broker: l.broker, path: l.path, offsetFile: l.offset_file, fromEnd: l.from_end }))

const watchedProcess = closedObject({
  broker: brokerId,
  pid: z
    .union([z.number().int().positive(), z.string().min(1)], { error: 'expected a process id or a pid file path' })
    .transform((p) => String(p))
    .describe("the broker's process id, or its pid file (re-read every sample, so a restart is followed)"),
  interval: interval('time between readings of /proc/<pid>').prefault('5s'),
}).transform((p) => ({ broker: p.broker, pid: p.pid, intervalMs: p.interval }))

const liveCluster = closedObject(
  {
    admin: z
      .union([z.boolean(), admin], { error: 'expected a mapping (brokers, interval, ssl, sasl, groups) or true' })
      .transform((a) => (a === true ? admin.parse({}) : a === false ? undefined : a))
      .optional()
      .describe('poll the admin API: true for the defaults, or a mapping'),
    scrape: scrape.optional(),
    logs: z.array(logFile, { error: 'expected a list of { broker, path }' }).default([]),
    processes: z
      .array(watchedProcess, { error: 'expected a list of { broker, pid }' })
      .default([])
      .describe('broker processes on this host, read from /proc as the host agent does: state, CPU time, open files, maps'),
  },
  "one cluster's live sources",
)

const signalsTopic = closedObject(
  {
    brokers: z.array(hostPort, { error: 'expected a list of host:port' }).min(1, { error: 'required, a host:port list' }),
    topic: z.string({ error: 'expected a topic name' }).regex(/^[A-Za-z0-9._-]{1,249}$/, { error: (iss) => `'${String(iss.input)}' is not a topic name` }),
    group: z.string().min(1).default('kafka-why-engines').describe('consumer group the engines share'),
    from_beginning: z.boolean({ error: 'expected true or false' }).default(true),
    session_timeout: interval("how long the group waits for a silent engine before its partitions go to the others (within the brokers' group.min/max.session.timeout.ms)").prefault('30s'),
  },
  'consume signals shipped to a Kafka topic (agents, log shippers) as one of a group of engines',
).transform((t) => ({ brokers: t.brokers, topic: t.topic, groupId: t.group, fromBeginning: t.from_beginning, sessionTimeoutMs: t.session_timeout }))

const live = closedObject(
  {
    listen: liveListen.prefault('127.0.0.1:9464'),
    engine: engine.prefault({}),
    clusters: z.record(clusterName, liveCluster, { error: (iss) => (iss.code === 'invalid_type' ? 'expected a mapping of cluster name to { admin, scrape, logs }' : undefined) }).default({}),
    signals_topic: signalsTopic.optional(),
    retention: retention.prefault({}),
  },
  "serve's sources: scrape targets, admin polling, followed logs, the alert loop and retention",
)

/**
 * The whole of kafka-why.yaml. Output keys are the file's own (the live engine's and retention's in
 * milliseconds); defaults are written as a person would write them, so editors show them that way.
 */
export const kafkaWhyConfigSchema = closedObject(
  {
    clusters: z
      .record(clusterName, botCluster, { error: (iss) => (iss.code === 'invalid_type' ? 'expected a mapping of cluster name to { brokers, channel }' : undefined) })
      .optional()
      .describe('every cluster the bot speaks for (required for the bot)'),
    time_zone: z
      .string({ error: 'expected an IANA time zone (e.g. Europe/Berlin)' })
      .refine(isTimeZone, { error: (iss) => `'${String(iss.input)}' is not an IANA time zone (e.g. Europe/Berlin)` })
      .default('UTC')
      .describe('IANA zone for the digest schedule and the times people read'),
    digest: closedObject({
      schedule: z
        .string({ error: 'expected a cron expression (e.g. "0 9 * * *")' })
        .superRefine((s, ctx) => {
          // The bounded check first: node-cron expands ranges into arrays (`0-998038269` killed Node).
          const problem = checkCron(s)
          if (problem) ctx.addIssue({ code: 'custom', input: s, message: `'${s.slice(0, 60)}' is not a cron expression: ${problem} (e.g. "0 9 * * *")` })
          else if (!cron.validate(s)) ctx.addIssue({ code: 'custom', input: s, message: `'${s}' is not a cron expression (e.g. "0 9 * * *")` })
        })
        .default('0 9 * * *')
        .describe('cron, in time_zone'),
      enabled: z.boolean({ error: 'expected true or false' }).default(true),
    }).prefault({}),
    allowed: closedObject(
      {
        users: z.array(userId, { error: 'expected a list' }).default([]),
        channels: z.array(channelId, { error: 'expected a list' }).default([]),
      },
      'who may run changing commands (config … set/reset), and where',
    ).prefault({}),
    silencers: z.array(userId, { error: 'expected a list' }).default([]).describe('who may silence alerts; empty: the allowed users'),
    risky_keys: z
      .array(z.string().regex(CONFIG_KEY, { error: (iss) => `'${String(iss.input)}' is not a Kafka config key like retention.ms` }), { error: 'expected a list' })
      .default([])
      .describe("config keys whose change needs a second person's approval"),
    audit_channel: channelId.optional().describe('where every change and silence is recorded'),
    rules: z.array(z.string().min(1), { error: 'expected a list of paths' }).default(['rules']).describe('rule files or directories'),
    listen: botListen.optional(),
    live: live.prefault({}),
  },
  'kafka-why configuration (kafka-why.yaml)',
)

/** kafka-why.yaml as validated: the type the bot and serve build their settings from. */
export type KafkaWhyConfigFile = z.output<typeof kafkaWhyConfigSchema>
/** The `live:` section as validated, durations in milliseconds. */
export type LiveSection = NonNullable<KafkaWhyConfigFile['live']>
/** One cluster of `live.clusters` as validated. */
export type LiveClusterSection = LiveSection['clusters'][string]
