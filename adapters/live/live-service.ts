import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadRules } from '../../rule-files/load-rules.js'
import type { AlertEvent } from '../../engine/alerts.js'
import { AlertEngine } from '../../engine/alerts.js'
import { SignalWriter, type WriteOutcome } from '../../engine/ingest.js'
import type { Store } from '../../engine/store/store.js'
import { storeConfigProblem } from '../../engine/store/open-store.js'
import type { Signal } from '../../signals/signal.js'
import { AdminPoller } from '../admin/admin-poller.js'
import { ConsumerLagSource } from '../consumer-lag/consumer-lag-source.js'
import { KafkaAdmin } from '../admin/kafka-admin.js'
import { consumeSignalsTopic, type SignalsTopicConsumer } from '../admin/signals-topic.js'
import { newsFilter, type NewsFilter } from '../../engine/news.js'
import { HostAgent } from '../agent/host-agent.js'
import type { Tail } from '../logs/tail.js'
import { tailLogFile } from '../logs/tail.js'
import { ScrapeLoop, type ScrapeOutcome, type TargetScraper } from '../prometheus/scraper.js'
import { MetricsRegistry } from '../prometheus/self-metrics.js'
import { alertFields } from '../../logging/alert-fields.js'
import { childLog, createLogger } from '../../logging/logger.js'
import { redactingLog, redactText, redactUrl, type Log } from '../../secrets/redact.js'
import type { LiveConfig } from './live-config.js'
import { LOG_CHECKS_BEFORE_REPORT, logFileProblem } from './log-file-check.js'

/**
 * `kafka-why serve` as a value: the configured adapters feeding one store, the alert loop over it,
 * the bot when Slack is configured, and an HTTP listener with /healthz and /metrics. Each part starts
 * only when configured, fails on its own (a dead broker makes its source stale, not the service),
 * and is counted in the service's own metrics.
 */
export type LiveServiceOptions = {
  config: LiveConfig
  store: Store
  env?: NodeJS.ProcessEnv
  /** Epoch ms; the service's only clock. */
  now?: () => number
  /** Where diagnostics go; default a logger on stderr (logging/logger.ts). Whatever is given is redacted. */
  log?: Log
  /** Start the Slack bot when the config and env allow it. Default true. */
  bot?: boolean
  /** How often configured log paths are checked for existence and read permission (default LOG_CHECK_MS). */
  logCheckMs?: number
}

/** How often serve checks that its configured log files exist and are readable. */
export const LOG_CHECK_MS = 5_000

/** A running service. */
export type LiveService = {
  /** http://host:port of the health and metrics listener. */
  url: string
  metrics: MetricsRegistry
  health(): Health
  stop(): Promise<void>
}

type SourceHealth = { cluster: string; broker?: string; target: string; up: boolean; failures: number; lastError?: string; lastAt?: number }

/** What /healthz answers. */
export type Health = {
  status: 'ok' | 'degraded' | 'failing'
  startedAt: number
  store: { ok: boolean; lastError?: string; buffered?: number }
  scrape: SourceHealth[]
  admin: SourceHealth[]
  /** `readable` is false while the configured path is missing or unreadable; `problem` says why. */
  logs: { cluster: string; broker?: string; file: string; lines: number; signals: number; unparsed: number; readable: boolean; problem?: string }[]
  /** The signals topic consumer, when configured, with the partitions it was given at its last group join. */
  topic?: SourceHealth & { partitions: number[] }
  engine: { enabled: boolean; rules: number; ruleErrors: number; lastTickAt?: number; lastTickMs?: number; lastError?: string }
  /** `slack` is down while Slack cannot be reached or refuses the token; `held` alerts are sent when it is back. */
  bot: { running: boolean; reason?: string; slack?: 'up' | 'down' | 'starting'; since?: number; lastError?: string; held?: number }
}

type BotHandle = { notify(events: AlertEvent[]): Promise<void>; stop(): Promise<void>; slack(): { slack: 'up' | 'down' | 'starting'; since: number; lastError?: string; held: number } }

/**
 * How far before a store outage began the signals topic is read again once the store is back: the
 * writes a dying Redis master acknowledged without passing them to its replica are those of its last
 * moments (one replication lag), and the outage is seen at the first write that fails after it.
 */
export const STORE_OUTAGE_REREAD_MS = 10_000

/**
 * How long a firing alert may stay without a posted message before another replica posts it. Longer
 * than a post takes even behind a channel's queue in an alert storm (about one post a second), so a
 * live replica's slow post is not doubled; a dead replica's alert reaches Slack this much later.
 */
export const REDELIVER_UNPOSTED_MS = 120_000

/**
 * The soonest a tick follows the previous one's start when news wakes the loop (engine/news.ts): a
 * burst of news (a broker's failure logged in a dozen lines) is evaluated in a few ticks, not a dozen.
 * How early news may bring a tick is also bounded by the loop's slack (live-service's alert loop), so
 * it never ticks more often on average than once a tick interval.
 */
export const NEWS_MIN_GAP_MS = 200

/**
 * Starts everything `config` names; resolves once the listener is up. Store settings that can never
 * work (REDIS_URL and REDIS_CLUSTER_NODES both set) stop it before anything starts.
 */
export async function startLiveService(opts: LiveServiceOptions): Promise<LiveService> {
  const { config, store } = opts
  const now = opts.now ?? Date.now
  const env = opts.env ?? process.env
  const storeProblem = storeConfigProblem(env)
  if (storeProblem) throw new Error(storeProblem)
  // Every line serve writes passes redaction: URLs with passwords, tokens in library errors.
  const log = redactingLog(opts.log ?? createLogger({ bindings: { cmd: 'serve' } }))
  const startedAt = now()
  const metrics = new MetricsRegistry()
  const signalsIn = metrics.counter('kafka_why_signals_total', 'Signals accepted into the store, by source adapter.')
  const signalsRejected = metrics.counter('kafka_why_signals_rejected_total', 'Signals the store refused, by source adapter and reason.')
  const signalsDropped = metrics.counter('kafka_why_signals_dropped_total', 'Signals refused because the store was down longer than the buffer lasts, by source adapter and reason.')
  const ingestBuffered = metrics.gauge('kafka_why_ingest_buffered', 'Signals waiting for the store.')
  const parseFailures = metrics.counter('kafka_why_parse_failures_total', 'Input lines that could not be parsed, by source adapter and reason.')
  const scrapes = metrics.counter('kafka_why_scrapes_total', 'Scrape attempts, by target and result.')
  const scrapeDuration = metrics.gauge('kafka_why_scrape_duration_seconds', 'Duration of the last scrape of a target.')
  const sourceUp = metrics.gauge('kafka_why_source_up', '1 when a source answered its last attempt, 0 when it is stale.')
  const polls = metrics.counter('kafka_why_admin_polls_total', 'Admin API polls, by cluster and result.')
  const ruleEval = metrics.histogram('kafka_why_rule_evaluation_seconds', 'Time of one alert tick: every rule over every broker.', [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
  const alertsFired = metrics.counter('kafka_why_alerts_total', 'Alert notifications from the engine, by type (firing, updated, resolved).')
  const engineErrors = metrics.counter('kafka_why_engine_errors_total', 'Alert ticks that failed.')
  const logLines = metrics.gauge('kafka_why_log_lines', 'Lines read from a followed log file since start.')
  const logReadable = metrics.gauge('kafka_why_log_file_readable', '1 when a configured log file exists and is readable, 0 when it is missing or unreadable.')

  const health: Health = {
    status: 'ok',
    startedAt,
    store: { ok: true },
    scrape: [],
    admin: [],
    logs: [],
    engine: { enabled: config.engine.enabled, rules: 0, ruleErrors: 0 },
    bot: { running: false },
  }

  // One write path for every adapter: batches, rides out a store outage in a bounded buffer, retries.
  // When the store is back, the signals topic is read again from shortly before the outage: a Redis
  // Cluster master that died may have acknowledged writes its replica never got (docs/engine.md).
  let topicConsumer: SignalsTopicConsumer | undefined
  let downSince: number | undefined
  const writer = new SignalWriter(store, {
    onEvent: (e) => {
      if (e.kind === 'store-down') {
        if (health.store.ok) log.error(`store: append failed, buffering (${e.buffered} held): ${e.message}`)
        health.store = { ok: false, lastError: e.message }
        downSince ??= now()
      } else if (e.kind === 'store-up') {
        health.store = { ok: true }
        log.info(`store: back after ${e.attempts} attempts`)
        const since = (downSince ?? now()) - STORE_OUTAGE_REREAD_MS
        downSince = undefined
        if (topicConsumer && config.signalsTopic) {
          const topic = config.signalsTopic.topic
          const p = topicConsumer
            .rewind(since)
            .then((r) => {
              if (r.partitions.length) log.info({ topic, partitions: r.partitions, messages: r.messages }, `signals topic: reading ${r.messages} messages of partitions [${r.partitions.join(',')}] again, from ${new Date(since).toISOString()} on, in case the store lost them`)
            })
            .catch((err: Error) => log.warn({ topic }, `signals topic: cannot read again from before the store outage: ${err.message}`))
          inFlight.add(p)
          void p.finally(() => inFlight.delete(p))
        }
      }
    },
  })
  const account = (source: string, o: WriteOutcome) => {
    if (o.accepted) signalsIn({ source }, o.accepted)
    for (const [reason, n] of Object.entries(o.rejected)) {
      if (reason === 'buffer full' || reason === 'writer closed') signalsDropped({ source, reason }, n)
      else signalsRejected({ source, reason }, n)
    }
  }
  /**
   * Scrapes and polls hand their signals on without waiting for the store (a slow store must not make
   * a broker look stale); log tails wait, so a file offset is saved only once its signals are stored.
   */
  const sink = (source: string, wait = false) => async (signals: Signal[]) => {
    const pending = writer.write(signals).then((o) => {
      account(source, o)
      // Stored news (a signal that could complete a rule's match) is evaluated now, not at the next tick.
      if (o.accepted && isNews && signals.some(isNews)) onNews()
    })
    if (wait) await pending
  }
  /** Set once the rules are loaded: which signals wake the alert loop early (engine/news.ts). */
  let isNews: NewsFilter | undefined
  let onNews: () => void = () => undefined

  // Prometheus scrape targets, all on one loop with a schedule and backoff each.
  const targets = config.clusters.flatMap((c) => c.scrape.map((t) => ({ ...t, cluster: c.name })))
  const scrapeHealth = new Map<TargetScraper, SourceHealth>()
  const onScrape = (o: ScrapeOutcome, s: TargetScraper) => {
    const h = scrapeHealth.get(s)!
    // A change of state is news (warn when a target stops answering, info when it is back); each attempt is debug.
    const scrapeLog = childLog(log, { cluster: s.target.cluster, ...(s.target.broker === undefined ? {} : { broker: s.target.broker }) })
    if (!o.ok && (h.up || h.failures === 0)) scrapeLog.warn({ target: o.url }, `scrape: ${o.url} not answering: ${o.error ?? 'failed'}`)
    else if (o.ok && !h.up && h.failures > 0) scrapeLog.info({ target: o.url }, `scrape: ${o.url} answering again after ${h.failures} failures`)
    else scrapeLog.debug?.({ target: o.url, ok: o.ok, durationMs: o.durationMs, bytes: o.bytes, signals: o.signals }, `scrape: ${o.url} ${o.ok ? 'ok' : (o.error ?? 'failed')}`)
    h.up = o.ok
    h.failures = s.failures
    h.lastError = o.error === undefined ? undefined : redactText(o.error)
    h.lastAt = o.startedAt
    const target = redactUrl(o.url)
    scrapes({ target, result: o.ok ? 'ok' : 'failed' })
    scrapeDuration({ target }, o.durationMs / 1000)
    sourceUp({ kind: 'scrape', target }, o.ok ? 1 : 0)
    for (const [reason, n] of Object.entries(o.parse?.badByReason ?? {})) parseFailures({ source: 'prometheus', reason }, n)
  }
  const scrapeLoop = targets.length ? new ScrapeLoop(targets, { sink: sink('prometheus'), now }, onScrape) : undefined
  if (scrapeLoop) {
    for (const s of scrapeLoop.scrapers) {
      const h: SourceHealth = { cluster: s.target.cluster, broker: s.target.broker, target: redactUrl(s.target.url), up: false, failures: 0 }
      scrapeHealth.set(s, h)
      health.scrape.push(h)
    }
    scrapeLoop.start()
  }

  // Admin API pollers, one per cluster, with backoff while the cluster does not answer.
  const timers = new Set<NodeJS.Timeout>()
  const inFlight = new Set<Promise<unknown>>()
  let stopping = false
  const admins: KafkaAdmin[] = []
  for (const c of config.clusters) {
    if (!c.admin) continue
    const a = c.admin
    const admin = new KafkaAdmin({ brokers: a.brokers, clientId: `kafka-why-serve-${c.name}`, ssl: a.ssl, sasl: a.sasl })
    admins.push(admin)
    const poller = new AdminPoller(admin, { cluster: c.name, sink: sink('admin'), now, groups: a.groups })
    const h: SourceHealth = { cluster: c.name, target: a.brokers.join(','), up: false, failures: 0 }
    health.admin.push(h)
    const loop = (delayMs: number) => {
      if (stopping) return
      const t = setTimeout(() => {
        timers.delete(t)
        const p = poller
          .pollOnce()
          .catch((err: Error) => ({ ok: false, at: now(), signals: 0, error: err.message }))
          .then((o) => {
            const adminLog = childLog(log, { cluster: c.name })
            if (!o.ok && (h.up || h.failures === 0)) adminLog.warn(`admin: ${c.name} not answering: ${o.error ?? 'failed'}`)
            else if (o.ok && !h.up && h.failures > 0) adminLog.info(`admin: ${c.name} answering again after ${h.failures} failures`)
            else adminLog.debug?.({ ok: o.ok, signals: o.signals }, `admin: poll of ${c.name} ${o.ok ? 'ok' : (o.error ?? 'failed')}`)
            h.up = o.ok
            h.failures = o.ok ? 0 : h.failures + 1
            h.lastError = o.error === undefined ? undefined : redactText(o.error)
            h.lastAt = o.at
            polls({ cluster: c.name, result: o.ok ? 'ok' : 'failed' })
            sourceUp({ kind: 'admin', target: c.name }, o.ok ? 1 : 0)
            loop(o.ok ? a.intervalMs : Math.min(a.intervalMs * 2 ** Math.min(h.failures, 10), 300_000))
          })
        inFlight.add(p)
        void p.finally(() => inFlight.delete(p))
      }, delayMs)
      timers.add(t)
    }
    loop(0)
  }

  // Consumer lag of the clusters that ask for it (admin.lag): __consumer_offsets read continuously,
  // log ends polled on a steady interval; a source that cannot connect is started again next interval.
  const lagSources: ConsumerLagSource[] = []
  for (const c of config.clusters) {
    const a = c.admin
    const lag = a?.lag
    if (!a || !lag) continue
    const lagLog = childLog(log, { cluster: c.name })
    const source = new ConsumerLagSource({
      cluster: c.name,
      kafka: { brokers: a.brokers, clientId: `kafka-why-lag-${c.name}`, ssl: a.ssl, sasl: a.sasl },
      sink: sink('consumer-lag'),
      now,
      offsets: lag.offsets,
      maxGroups: lag.maxGroups,
      maxPartitionsPerGroup: lag.maxPartitionsPerGroup,
      onWarning: (m) => lagLog.warn(redactText(m)),
    })
    lagSources.push(source)
    let started = false
    const loop = (delayMs: number) => {
      if (stopping) return
      const t = setTimeout(() => {
        timers.delete(t)
        const p = (async () => {
          if (!started) {
            await source.start()
            started = true
          }
          const o = await source.pollOnce()
          lagLog.debug?.({ ok: o.ok, signals: o.signals, mode: o.mode, ...o.stats }, `consumer lag: poll of ${c.name} ${o.ok ? 'ok' : (o.error ?? 'failed')}`)
        })().catch((err: Error) => lagLog.warn(`consumer lag: ${c.name} not answering: ${redactText(err.message)}`))
        inFlight.add(p)
        void p.finally(() => {
          inFlight.delete(p)
          loop(lag.intervalMs)
        })
      }, delayMs)
      timers.add(t)
    }
    loop(0)
  }

  // Broker processes on this host, read as the host agent reads them: a stopped (T), stuck (D) or
  // vanished process is seen here the moment it happens, when the broker itself can say nothing.
  const agents = config.clusters.flatMap((c) => c.processes.map((p) => ({ ...p, cluster: c.name })))
  for (const p of agents) {
    const agent = new HostAgent({ cluster: p.cluster, broker: p.broker, pid: p.pid, sink: sink('agent'), now })
    const loop = (delayMs: number) => {
      if (stopping) return
      const t = setTimeout(() => {
        timers.delete(t)
        const run = agent.sampleOnce().catch((err: Error) => log.error({ cluster: p.cluster, broker: p.broker }, `agent: reading process ${p.pid} failed: ${err.message}`))
        inFlight.add(run)
        void run.finally(() => {
          inFlight.delete(run)
          loop(p.intervalMs)
        })
      }, delayMs)
      timers.add(t)
    }
    loop(0)
  }

  // Followed log files.
  const tails: { tail: Tail; cluster: string; broker?: string; file: string; problem?: string; misses: number }[] = []
  for (const c of config.clusters) {
    for (const l of c.logs) {
      const tail = tailLogFile({ path: l.path, cluster: c.name, broker: l.broker }, l.path, {
        onSignals: sink('logs', true),
        offsetFile: l.offsetFile,
        fromEnd: l.fromEnd,
      })
      tails.push({ tail, cluster: c.name, broker: l.broker, file: l.path, misses: 0 })
    }
  }
  // Each configured path is checked at start and every LOG_CHECK_MS: a missing or unreadable file
  // makes serve degraded and is logged once when it is found, once more when it is readable again.
  const checkLogFiles = async (first: boolean): Promise<void> => {
    await Promise.all(
      tails.map(async (t) => {
        const problem = await logFileProblem(t.file)
        if (problem === undefined) {
          if (t.problem !== undefined) log.info({ cluster: t.cluster, broker: t.broker, file: t.file }, `log file ${t.file} is readable again`)
          t.problem = undefined
          t.misses = 0
          return
        }
        t.misses++
        if (t.problem !== undefined || (!first && t.misses < LOG_CHECKS_BEFORE_REPORT)) return
        t.problem = problem
        log.error({ cluster: t.cluster, broker: t.broker, file: t.file }, `log file ${t.file} (cluster ${t.cluster}${t.broker ? `, broker ${t.broker}` : ''}): ${problem}; nothing is read from it until it is there`)
      }),
    )
  }
  if (tails.length) {
    await checkLogFiles(true)
    const every = () => {
      const t = setTimeout(() => {
        timers.delete(t)
        if (stopping) return
        void checkLogFiles(false).finally(() => {
          if (!stopping) every()
        })
      }, opts.logCheckMs ?? LOG_CHECK_MS)
      timers.add(t)
    }
    every()
  }

  // The signals topic: this process as one engine of a consumer group.
  if (config.signalsTopic) {
    const t = config.signalsTopic
    const h: NonNullable<Health['topic']> = { cluster: '*', target: `${t.topic}@${t.brokers.join(',')}`, up: false, failures: 0, partitions: [] }
    health.topic = h
    // Each join (start, a member gone or come) says which partitions this engine reads from now on.
    const onAssign = (partitions: number[]) => {
      h.partitions = partitions
      log.info({ topic: t.topic, groupId: t.groupId, partitions }, `signals topic: joined ${t.groupId}, reading partitions [${partitions.join(',')}] of ${t.topic}`)
    }
    try {
      topicConsumer = await consumeSignalsTopic({ brokers: t.brokers, topic: t.topic, groupId: t.groupId, fromBeginning: t.fromBeginning, sessionTimeoutMs: t.sessionTimeoutMs, onAssign }, async (signals) => {
        const o = await writer.write(signals)
        account('topic', o)
        return o
      })
      h.up = true
      topicConsumer.consumer.on(topicConsumer.consumer.events.CRASH, (e) => {
        h.up = false
        h.failures++
        h.lastError = String((e.payload as { error?: Error }).error?.message ?? 'consumer crashed')
        log.error({ topic: t.topic, groupId: t.groupId }, `signals topic: consumer crashed: ${h.lastError}`)
      })
    } catch (err) {
      h.failures++
      h.lastError = (err as Error).message
      log.error({ topic: t.topic, groupId: t.groupId }, `signals topic: cannot join ${t.groupId} on ${t.topic}: ${(err as Error).message}`)
    }
  }

  // The bot, when the file has its settings and Slack credentials are in the environment.
  let bot: BotHandle | undefined
  if (opts.bot !== false && config.botYaml && (env.SLACK_BOT_TOKEN || env.SLACK_BOT_TOKEN_FILE)) {
    try {
      const { startBot } = await import('../../bot/start-bot.js')
      // The bot's admin clients connect with the same TLS/SASL settings as this cluster's poller.
      const connectAdmin = async (cluster: string, brokers: string[]) => {
        const a = config.clusters.find((c) => c.name === cluster)?.admin
        return new KafkaAdmin({ brokers, clientId: `kafka-why-bot-${cluster}`, ssl: a?.ssl, sasl: a?.sasl })
      }
      bot = await startBot(env, {
        store,
        settings: { text: config.botYaml, file: config.file },
        connectAdmin,
        log: childLog(log, { component: 'bot' }),
      })
      health.bot = { running: true }
    } catch (err) {
      health.bot = { running: false, reason: (err as Error).message }
      log.error(`bot: not started: ${(err as Error).message}`)
    }
  } else {
    health.bot = { running: false, reason: !config.botYaml ? 'no bot settings (clusters) in the config' : opts.bot === false ? 'disabled' : 'SLACK_BOT_TOKEN not set' }
  }

  // The alert loop.
  if (config.engine.enabled) {
    const loaded = await loadRules(config.rules)
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error')
    for (const d of errors) log.warn(`rules: ${d.span.file}:${d.span.startLine} ${d.code} ${d.message}`)
    health.engine.rules = loaded.rules.length
    health.engine.ruleErrors = errors.length
    const engine = new AlertEngine({
      store,
      rules: loaded.rules,
      lagMs: config.engine.lagMs,
      settleMs: config.engine.settleMs,
      longWindowEveryMs: config.engine.longWindowEveryMs,
      keepFiringMs: config.engine.keepFiringMs,
      // With a bot posting, a replica that dies between firing an alert and posting it leaves the post
      // to whichever replica ticks after this long.
      redeliverUnpostedMs: bot ? REDELIVER_UNPOSTED_MS : 0,
    })
    // One tick at a time, every tickMs after the last one ends. News brings the next one forward by
    // as much as the ticks before it were late (each starts tickMs after the last one ended, so the
    // loop runs a little slower than once a tickMs; that slack, up to one tickMs, is what news spends),
    // and never to sooner than NEWS_MIN_GAP_MS after the last one started: over any stretch, the loop
    // ticks no more often than before, and a rare event is evaluated the moment it is stored.
    const tickMs = config.engine.tickMs
    let next: NodeJS.Timeout | undefined
    let nextAt = Infinity
    let running = false
    let woken = false
    let lastStartedAt = -Infinity
    let slackMs = tickMs
    const newsTickAt = () => lastStartedAt + Math.max(NEWS_MIN_GAP_MS, tickMs - slackMs)
    const tick = (delayMs: number) => {
      if (stopping) return
      if (next) {
        clearTimeout(next)
        timers.delete(next)
      }
      nextAt = Date.now() + delayMs
      const t = setTimeout(() => {
        timers.delete(t)
        next = undefined
        nextAt = Infinity
        running = true
        woken = false
        const startedAt = Date.now()
        if (Number.isFinite(lastStartedAt)) slackMs = Math.min(tickMs, slackMs + (startedAt - lastStartedAt) - tickMs)
        lastStartedAt = startedAt
        const at = now()
        const t0 = performance.now()
        const p = engine
          .tick(at)
          .then(async (events) => {
            const seconds = (performance.now() - t0) / 1000
            ruleEval({}, seconds)
            health.engine.lastTickAt = at
            health.engine.lastTickMs = seconds * 1000
            health.engine.lastError = undefined
            log.trace?.({ tickMs: seconds * 1000, events: events.length }, 'engine: tick')
            for (const e of events) alertsFired({ type: e.type })
            if (events.length === 0) return
            // Logged as the engine decides, bot or not; the bot logs the delivery under the same alertId.
            for (const e of events) childLog(log, alertFields(e)).info(alertLine(e))
            if (bot) await bot.notify(events)
          })
          .catch((err: Error) => {
            engineErrors()
            health.engine.lastError = err.message
            log.error(`engine: tick failed: ${err.message}`)
          })
          // A held match due before the next tick is fired on time rather than up to a tick late.
          .finally(() => {
            running = false
            const settle = engine.nextSettleAt()
            const regular = settle === undefined ? config.engine.tickMs : Math.max(0, Math.min(config.engine.tickMs, settle - now()))
            tick(woken ? Math.min(regular, Math.max(0, newsTickAt() - Date.now())) : regular)
          })
        inFlight.add(p)
        void p.finally(() => inFlight.delete(p))
      }, delayMs)
      next = t
      timers.add(t)
    }
    isNews = newsFilter(loaded.rules)
    onNews = () => {
      if (stopping) return
      if (running) {
        woken = true
        return
      }
      const at = newsTickAt()
      if (at < nextAt) tick(Math.max(0, at - Date.now()))
    }
    tick(0)
  }

  // Retention: a sweep every few minutes keeps the store bounded (docs/retention.md). It runs in every
  // replica; trimming the same data twice is harmless.
  const retention = config.retention
  const retentionRemoved = metrics.counter('kafka_why_retention_removed_total', 'Signals and alerts deleted by retention, by kind.')
  const sweep = (delayMs: number) => {
    if (stopping) return
    const t = setTimeout(() => {
      timers.delete(t)
      const at = now()
      const perSignal: Record<string, number> = {}
      for (const [name, ageMs] of Object.entries(retention.signalsMs)) perSignal[name] = at - ageMs
      const p = Promise.all([store.trim(at - retention.defaultMs, perSignal), store.pruneAlerts(at - retention.resolvedAlertsMs)])
        .then(([signals, alerts]) => {
          if (signals) retentionRemoved({ kind: 'signal' }, signals)
          if (alerts) retentionRemoved({ kind: 'alert' }, alerts)
        })
        .catch((err: Error) => log.warn(`retention: sweep failed, retrying in ${Math.round(retention.everyMs / 1000)}s: ${err.message}`))
        .finally(() => sweep(retention.everyMs))
      inFlight.add(p)
      void p.finally(() => inFlight.delete(p))
    }, delayMs)
    timers.add(t)
  }
  sweep(0)

  const snapshot = (): Health => {

    health.store.buffered = writer.buffered
    if (bot) {
      const s = bot.slack()
      health.bot = { running: true, slack: s.slack, since: s.since, lastError: s.lastError, held: s.held }
    }
    health.logs = tails.map((t) => {
      const s = t.tail.stats()
      const unparsed = Object.values(s.unparsed).reduce((a, b) => a + b, 0)
      return { cluster: t.cluster, broker: t.broker, file: t.file, lines: s.lines, signals: s.signals, unparsed, readable: t.problem === undefined, ...(t.problem ? { problem: t.problem } : {}) }
    })
    const down = [...health.scrape, ...health.admin, ...(health.topic ? [health.topic] : [])].some((h) => !h.up && h.failures > 0)
    const logsMissing = tails.some((t) => t.problem !== undefined)
    health.status = !health.store.ok ? 'failing' : down || logsMissing || health.engine.lastError || health.bot.slack === 'down' ? 'degraded' : 'ok'
    return structuredClone(health)
  }

  const renderMetrics = (): string => {
    ingestBuffered({}, writer.buffered)
    for (const t of tails) {
      const s = t.tail.stats()
      logLines({ file: t.file }, s.lines)
      logReadable({ file: t.file }, t.problem === undefined ? 1 : 0)
    }
    const logFailures = new Map<string, number>()
    for (const t of tails) for (const [reason, n] of Object.entries(t.tail.stats().unparsed)) logFailures.set(reason, (logFailures.get(reason) ?? 0) + n)
    const lines = metrics.render()
    // Log tails keep cumulative counts of their own; they are written beside the registry's families.
    const extra = [...logFailures].filter(([, n]) => n > 0).map(([reason, n]) => `kafka_why_log_parse_failures_total{reason="${reason}"} ${n}`)
    const header = '# HELP kafka_why_log_parse_failures_total Log lines that produced no record, by reason.\n# TYPE kafka_why_log_parse_failures_total counter\n'
    return lines + header + (extra.length ? extra.join('\n') + '\n' : 'kafka_why_log_parse_failures_total 0\n')
  }

  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end()
      return
    }
    if (url === '/healthz' || url === '/health') {
      const h = snapshot()
      res.writeHead(h.status === 'failing' ? 503 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(h, null, 2) + '\n')
      return
    }
    if (url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(renderMetrics())
      return
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /healthz or /metrics\n')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.listen.port, config.listen.host, () => resolve())
  })
  const addr = server.address() as AddressInfo
  const url = `http://${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`
  log.info(
    `health and metrics on ${url} (/healthz, /metrics); ${targets.length} scrape targets, ${admins.length} admin pollers, ${tails.length} log files, ${agents.length} processes, signals topic ${config.signalsTopic ? config.signalsTopic.topic : 'off'}, engine ${config.engine.enabled ? 'on' : 'off'}, bot ${health.bot.running ? 'on' : 'off'}`,
  )

  return {
    url,
    metrics,
    health: snapshot,
    stop: async () => {
      stopping = true
      for (const t of timers) clearTimeout(t)
      timers.clear()
      await scrapeLoop?.stop()
      await topicConsumer?.stop().catch(() => undefined)
      for (const t of tails) t.tail.stop()
      await Promise.allSettled([...inFlight, ...tails.map((t) => t.tail.done)])
      await writer.close(2000)
      await Promise.allSettled(admins.map((a) => a.close()))
      await Promise.allSettled(lagSources.map((l) => l.stop()))
      await bot?.stop().catch(() => undefined)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * serve's log line for an alert event (bot or not): when the evidence happened beside when the engine
 * decided, so a reader (or the lab's latency measurement) sees both.
 */
export function alertLine(e: AlertEvent): string {
  const a = e.alert
  const iso = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString())
  return `alert ${e.type}: ${a.cluster}/${a.broker ?? '-'} ${a.ruleId}: ${e.cause.cause} (evidence ${iso(a.firstEvidenceAt)}..${iso(a.evidenceAt)}, fired ${iso(a.firedAt)})`
}
