import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, closeSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { deleteKeysWithPrefix, type RedisStore } from '../engine/store/redis-store.js'
import type { AlertRecord } from '../engine/store/store.js'
import type { Signal } from '../signals/signal.js'
import type { LabCluster } from './cluster.js'
import { LAB_CLUSTER_NAME } from './incident-recorder.js'
import { waitFor } from './wait-for.js'

/**
 * `serve` watching a lab cluster, as the lab's live measurements run it: the generated config (every
 * broker's server.log, gc.log and controller.log and ZooKeeper's log followed from their end, every
 * exporter scraped every 2 s, each broker's process read from /proc, the admin API polled, the alert loop with serve's defaults unless told otherwise, and optionally the Slack bot
 * with the cluster's channel), the child process with its readiness, and a poller on serve's Redis
 * key prefix that notes when each signal and each firing alert first shows up in the store.
 */

/** `live.engine` keys of the generated config; omitted keys keep serve's defaults (tick 1s, lag 0s, settle 2s). */
export type ServeEngineSettings = { tick?: string; lag?: string; settle?: string }

/** What the generated kafka-why.yaml says. */
export type LabServeConfig = {
  cluster: LabCluster
  /** serve's /healthz and /metrics port. */
  listenPort: number
  engine?: ServeEngineSettings
  /** The kafka-why checkout whose rules are loaded. */
  build: string
  /** The bot's section: the lab cluster's alerts go to `channel`; its HTTP receiver listens on `listenPort`. */
  bot?: { channel: string; listenPort: number }
  /** Each broker's pid file, for serve to read its process from /proc (state, CPU time, gone). */
  pidFiles?: Record<number, string>
}

/**
 * Scrapes every 2 s with a 1.5 s timeout, as the lab's recorder does: a frozen broker's exporter is
 * seen silent within seconds (production's 15 s/10 s would see it 10-25 s into the freeze).
 */
export const LAB_SCRAPE = { interval: '2s', timeout: '1500ms' } as const
/** How often serve reads each lab broker's /proc. */
export const LAB_PROCESS_INTERVAL = '1s'

/** The kafka-why.yaml that makes `serve` watch the lab cluster (and, with `bot`, post its alerts to a channel). */
export function labServeConfig(c: LabServeConfig): string {
  const { cluster } = c
  const eng = Object.entries(c.engine ?? {}).map(([k, v]) => `${k}: ${v}`)
  const brokers = cluster.bootstrap.split(',')
  // Besides each broker's own logs: the ZooKeeper-mode controller's decisions (controller.log: which
  // broker it dropped) and the ZooKeeper server's (whose sessions it expired), the outside view.
  const logs = cluster.brokers.flatMap((b) => [
    `        - { broker: "${b.id}", path: "${b.serverLog}" }`,
    `        - { broker: "${b.id}", path: "${b.gcLog}" }`,
    ...(cluster.mode === 'zk' ? [`        - { broker: "${b.id}", path: "${join(b.logDir, 'controller.log')}" }`] : []),
  ])
  if (cluster.zookeeper) logs.push(`        - { path: "${join(cluster.zookeeper.logDir, 'server.log')}" }`)
  const processes = Object.entries(c.pidFiles ?? {}).map(([id, file]) => `        - { broker: "${id}", pid: "${file}", interval: ${LAB_PROCESS_INTERVAL} }`)
  const targets = cluster.brokers.filter((b) => b.exporterPort !== undefined).map((b) => `          - { broker: "${b.id}", url: "http://127.0.0.1:${b.exporterPort}/metrics" }`)
  const bot = c.bot
    ? [
        'clusters:',
        `  ${LAB_CLUSTER_NAME}:`,
        `    brokers: [${brokers.join(', ')}]`,
        `    channel: ${c.bot.channel}`,
        'digest: { enabled: false }',
        `listen: 127.0.0.1:${c.bot.listenPort}`,
      ]
    : []
  return [
    ...bot,
    'live:',
    `  listen: 127.0.0.1:${c.listenPort}`,
    ...(eng.length ? [`  engine: { ${eng.join(', ')} }`] : []),
    '  clusters:',
    `    ${LAB_CLUSTER_NAME}:`,
    `      admin: { brokers: [${brokers.join(', ')}] }`,
    ...(targets.length ? ['      scrape:', `        interval: ${LAB_SCRAPE.interval}`, `        timeout: ${LAB_SCRAPE.timeout}`, '        targets:', ...targets] : []),
    '      logs:',
    ...logs,
    ...(processes.length ? ['      processes:', ...processes] : []),
    `rules: ["${join(c.build, 'rules')}"]`,
    '',
  ].join('\n')
}

/** What serve's /healthz says, as far as the lab reads it. */
export type ServeHealth = { engine: { lastTickAt?: number }; bot: { running: boolean; slack?: string; reason?: string } }

/** A running `serve` child. */
export type ServeChild = {
  process: ChildProcess
  healthUrl: string
  metricsUrl: string
  /** SIGTERM, then SIGKILL after 10 s; idempotent. */
  stop(): Promise<void>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Starts `node <build>/cli/kafka-why.mjs serve --config <config> …args` with its output in `logFile`,
 * and resolves once /healthz shows a finished alert tick and `ready` holds (default: nothing more).
 */
export async function startServe(o: {
  build: string
  config: string
  logFile: string
  listenPort: number
  env: NodeJS.ProcessEnv
  args?: string[]
  ready?: (h: ServeHealth) => boolean
  timeoutMs?: number
}): Promise<ServeChild> {
  const out = openSync(o.logFile, 'a')
  const child = spawn(process.execPath, [join(o.build, 'cli', 'kafka-why.mjs'), 'serve', '--config', o.config, ...(o.args ?? [])], {
    cwd: o.build,
    env: o.env,
    stdio: ['ignore', out, out],
  })
  closeSync(out)
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)])
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  const base = `http://127.0.0.1:${o.listenPort}`
  try {
    await waitFor(
      async () => {
        const h = await fetch(`${base}/healthz`).then((r) => r.json() as Promise<ServeHealth>).catch(() => undefined)
        return h?.engine.lastTickAt !== undefined && (o.ready?.(h) ?? true)
      },
      { timeoutMs: o.timeoutMs ?? 60_000, intervalMs: 250, what: `serve (its output is in ${o.logFile})`, abortIf: () => (child.exitCode !== null ? `exited with ${child.exitCode}` : undefined) },
    )
  } catch (err) {
    await stop()
    throw err
  }
  return { process: child, healthUrl: `${base}/healthz`, metricsUrl: `${base}/metrics`, stop }
}

/** A stored signal's identity: name, timestamp, broker. */
export const signalKey = (s: Pick<Signal, 'name' | 'at' | 'broker'>) => `${s.name}|${s.at}|${s.broker ?? ''}`

/**
 * Polls serve's store every 100 ms: when each signal named in `names` (on any of `brokers`) was first
 * seen, and when each alert was first seen firing. Every alert state change is appended to
 * `alertsFile` when given.
 */
export class StoreWatcher {
  /** signalKey → epoch ms first seen. */
  readonly seen = new Map<string, number>()
  /** signalKey → the signal's source (`log:<path>:<line>` for a log line). */
  readonly sources = new Map<string, string>()
  /** fingerprint → when it was first seen firing (this firing), the record as first seen firing, and its latest record. */
  readonly alerts = new Map<string, { at: number; first: AlertRecord; record: AlertRecord }>()
  private polling = false
  private loop?: Promise<void>
  private readonly logged = new Map<string, string>()

  constructor(
    private readonly store: RedisStore,
    private readonly o: { brokers: string[]; names: readonly string[]; alertsFile?: string },
  ) {}

  start(): void {
    this.polling = true
    this.loop = (async () => {
      while (this.polling) {
        const now = Date.now()
        try {
          if (this.o.names.length) {
            for (const broker of this.o.brokers) {
              const byName = await this.store.querySeries({ cluster: LAB_CLUSTER_NAME, broker, names: [...this.o.names], from: now - 120_000, to: now + 60_000 })
              for (const list of byName.values()) {
                for (const s of list) {
                  if (this.seen.has(signalKey(s))) continue
                  this.seen.set(signalKey(s), now)
                  if (s.source) this.sources.set(signalKey(s), s.source)
                }
              }
            }
          }
          for (const a of await this.store.listAlerts()) this.note(a, now)
        } catch {
          // a slow Redis round; the next one catches up
        }
        await sleep(100)
      }
    })()
  }

  async stop(): Promise<void> {
    this.polling = false
    await this.loop
  }

  /** Fingerprints of the alerts firing now. */
  firing(): Set<string> {
    return new Set([...this.alerts].filter(([, v]) => v.record.state === 'firing').map(([fp]) => fp))
  }

  /** When a signal of one of `names` stamped `at` on `broker` was first seen in the store. */
  storedAt(names: readonly string[], at: number | undefined, broker: string | undefined): number | undefined {
    return this.firstStored(names, at, broker)?.[1]
  }

  /** The first-stored signal of one of `names` stamped `at` on `broker`: its key, when it was seen, its source. */
  firstStored(names: readonly string[], at: number | undefined, broker: string | undefined): [key: string, seenAt: number, source?: string] | undefined {
    if (at === undefined) return undefined
    const hits = [...this.seen].filter(([k]) => {
      const [name, t, b] = k.split('|')
      return Number(t) === at && names.includes(name) && (broker === undefined || b === broker)
    })
    if (!hits.length) return undefined
    const [key, seenAt] = hits.reduce((a, b) => (b[1] < a[1] ? b : a))
    return [key, seenAt, this.sources.get(key)]
  }

  private note(a: AlertRecord, now: number): void {
    const prev = this.alerts.get(a.fingerprint)
    if (this.o.alertsFile && this.logged.get(a.fingerprint) !== a.state) {
      this.logged.set(a.fingerprint, a.state)
      appendFileSync(this.o.alertsFile, JSON.stringify({ seenAt: now, ...a }) + '\n')
    }
    if (a.state === 'firing' && (!prev || prev.record.state !== 'firing' || prev.record.firedAt !== a.firedAt)) this.alerts.set(a.fingerprint, { at: now, first: a, record: a })
    else if (prev) this.alerts.set(a.fingerprint, { ...prev, record: a })
  }
}

/** Sum and count of serve's tick histogram, from its /metrics. */
export async function tickMetrics(url: string): Promise<{ sum: number; count: number } | undefined> {
  try {
    const text = await (await fetch(url)).text()
    const sum = /^kafka_why_rule_evaluation_seconds_sum(?:\{\})? (\S+)$/m.exec(text)
    const count = /^kafka_why_rule_evaluation_seconds_count(?:\{\})? (\S+)$/m.exec(text)
    return sum && count ? { sum: Number(sum[1]), count: Number(count[1]) } : undefined
  } catch {
    return undefined
  }
}

/** Removes a run's key prefix, and nothing else, from the shared Redis. */
export async function deleteStoreKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await redis.connect()
    await deleteKeysWithPrefix(redis, prefix)
  } catch {
    // nothing to clean when Redis went away
  } finally {
    redis.disconnect()
  }
}

/** Median of the defined values. */
export function median(values: (number | undefined)[]): number | undefined {
  const v = values.filter((x): x is number => x !== undefined).sort((a, b) => a - b)
  if (!v.length) return undefined
  const m = Math.floor(v.length / 2)
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2
}
