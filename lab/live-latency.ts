import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import kafkajs from 'kafkajs'
import { RedisStore } from '../engine/store/redis-store.js'
import { startCluster, type LabCluster } from './cluster.js'
import { freePort } from './free-port.js'
import { REPO_DIR } from './kafka-runtime.js'
import { deleteStoreKeys, labServeConfig, startServe, StoreWatcher, tickMetrics, type ServeChild, type ServeEngineSettings } from './live-serve.js'
import { createTopic } from './session-stall.js'

export { median } from './live-serve.js'

/**
 * Fault → alert, measured on a real cluster: a 3-broker ZooKeeper-mode Kafka 3.9 cluster, `serve`
 * following every broker's server.log and gc.log and scraping their exporters into a Redis key prefix
 * of its own, and a poller on that prefix that sees each signal and each alert arrive. The faults are
 * the ones the live path has to catch: ZooKeeper frozen (SIGSTOP) for 15 s, a broker's log dir filled
 * to ENOSPC (a tmpfs mounted over it; needs root), a broker killed with SIGKILL. Each is timed from
 * the injection to the evidence (the broker's own timestamp), to the evidence being stored, to the
 * alert firing in the store.
 */

/** The faults, in the order one run injects them (each leaves the cluster smaller or shaken). */
export const LATENCY_FAULTS = ['zk-freeze', 'disk-full', 'kill'] as const
/** One of the faults, as `--faults` names it. */
export type LatencyFault = (typeof LATENCY_FAULTS)[number]

/** Which rules count as catching each fault: the specific one, and what an older build fires instead. */
const EXPECTED: Record<LatencyFault, readonly string[]> = {
  'zk-freeze': ['zk_unavailable', 'zk_session_expiry_no_pause', 'zk_session_expiry_no_gc_pause', 'zk_session_expiry_pause_unknown'],
  'disk-full': ['disk_full', 'log_dir_failure'],
  kill: ['fetcher_cannot_reach_leader'],
}
/**
 * The signal that completes each rule's match. A build whose alerts carry no evidence time (before
 * firstEvidenceAt/evidenceAt) dates them by the evaluation; there the evidence is taken as the latest
 * of these signals on the alert's broker at or before the alert's match time.
 */
const TRIGGERS: Record<string, readonly string[]> = {
  zk_unavailable: ['zk.session_timeout', 'zk.disconnected'],
  zk_session_expiry_no_pause: ['zk.session_expired'],
  zk_session_expiry_no_gc_pause: ['zk.session_expired'],
  zk_session_expiry_pause_unknown: ['zk.session_expired'],
  disk_full: ['disk.full', 'disk.quota_exceeded'],
  log_dir_failure: ['log.dir_failure'],
  fetcher_cannot_reach_leader: ['replica.fetch_failed'],
}
/** Signals whose arrival in the store is timed. */
const EVIDENCE = [...new Set(Object.values(TRIGGERS).flat())]

const FREEZE_MS = 15_000
const DISK_BROKER = 3
const KILL_BROKER = 2
const TOPIC = 'latency'

/** What to measure. */
export type LiveLatencyOptions = {
  runs: number
  faults: readonly LatencyFault[]
  /** `live.engine` of the generated config; omitted keys keep serve's defaults. */
  engine?: ServeEngineSettings
  /** The kafka-why checkout whose `serve` is measured (its rules included); default this one. */
  build?: string
  /** Longest wait for an alert after each fault. */
  alertTimeoutMs?: number
  redisUrl?: string
  /** Leave each run's directory (broker logs, serve.log, the generated config) in place. */
  keepDir?: boolean
  log?: (line: string) => void
}

/** One fault of one run. All times epoch ms; undefined when it did not happen within the timeout. */
export type FaultResult = {
  run: number
  fault: LatencyFault
  injectedAt: number
  rule?: string
  broker?: string
  /** The evidence that made the alert: the newest signal of its match at the time it fired. */
  evidenceAt?: number
  /** When the poller first saw a signal with that timestamp in the store. */
  storedAt?: number
  /** When the poller first saw the alert firing. */
  alertAt?: number
  /** Mean duration of serve's alert ticks during the run, from its /metrics. */
  tickMeanMs?: number
  note?: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs `runs` × `faults` and returns every measurement; everything started is stopped, even on failure. */
export async function measureLiveLatency(opts: LiveLatencyOptions): Promise<FaultResult[]> {
  const out: FaultResult[] = []
  for (let run = 1; run <= opts.runs; run++) out.push(...(await oneRun(run, opts)))
  return out
}

async function oneRun(run: number, opts: LiveLatencyOptions): Promise<FaultResult[]> {
  const log = opts.log ?? (() => undefined)
  const dir = mkdtempSync(join(tmpdir(), 'kafka-why-latency-'))
  const dataMount = join(dir, `broker-${DISK_BROKER}`, 'data')
  let mounted = false
  let cluster: LabCluster | undefined
  let serve: ServeChild | undefined
  let producer: kafkajs.Producer | undefined
  let producing = false
  let producerLoop: Promise<void> | undefined
  const prefix = `kafka-why-latency-${randomUUID()}:`
  const store = new RedisStore({ url: opts.redisUrl ?? 'redis://127.0.0.1:6379', prefix })
  const results: FaultResult[] = []
  try {
    if (opts.faults.includes('disk-full')) {
      mkdirSync(dataMount, { recursive: true })
      const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', dataMount], { encoding: 'utf8' })
      if (m.status !== 0) throw new Error(`cannot mount a tmpfs for the disk-full fault (root needed): ${m.stderr.trim()}`)
      mounted = true
    }
    log(`run ${run}: starting 3 brokers`)
    cluster = await startCluster({ brokers: 3, dir, zkSessionTimeoutMs: 6_000 })
    await createTopic(cluster, TOPIC, 6, 3, {})
    const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-latency', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 2 } })
    producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    producing = true
    const p = producer
    // A steady trickle on every partition keeps followers fetching and broker 3 appending.
    producerLoop = (async () => {
      const value = 'x'.repeat(1024)
      while (producing) {
        await p.send({ topic: TOPIC, acks: 1, messages: Array.from({ length: 6 }, (_, i) => ({ partition: i, value })) }).catch(() => undefined)
        await sleep(100)
      }
    })()

    const build = resolve(opts.build ?? REPO_DIR)
    const listenPort = await freePort()
    const config = join(dir, 'kafka-why.yaml')
    writeFileSync(config, labServeConfig({ cluster, listenPort, engine: opts.engine, build }))
    serve = await startServe({
      build,
      config,
      logFile: join(dir, 'serve.log'),
      listenPort,
      args: ['--no-bot'],
      env: { ...process.env, REDIS_URL: opts.redisUrl ?? 'redis://127.0.0.1:6379', KAFKA_WHY_REDIS_PREFIX: prefix, SLACK_BOT_TOKEN: '' },
    })
    const metricsUrl = serve.metricsUrl
    // Let the tails, scrapes and a first admin poll settle before the first fault.
    await sleep(8_000)

    const watcher = new StoreWatcher(store, { brokers: cluster.brokers.map((b) => String(b.id)), names: EVIDENCE, alertsFile: join(dir, 'alerts.jsonl') })
    watcher.start()
    const alertsSeen = watcher.alerts

    try {
      for (const fault of opts.faults) {
        const before = watcher.firing()
        const metricsBefore = await tickMetrics(metricsUrl)
        const injectedAt = Date.now()
        log(`run ${run}: ${fault}`)
        const recover = await inject(fault, cluster)
        const result: FaultResult = { run, fault, injectedAt }
        const deadline = injectedAt + (opts.alertTimeoutMs ?? 90_000)
        while (Date.now() < deadline) {
          const hit = [...alertsSeen].find(([fp, v]) => !before.has(fp) && v.record.state === 'firing' && v.at >= injectedAt && EXPECTED[fault].includes(v.record.ruleId))
          if (hit) {
            const r = hit[1].record
            result.rule = r.ruleId
            result.broker = r.broker
            result.alertAt = hit[1].at
            const triggers = [...watcher.seen.keys()].map((k) => k.split('|')).filter(([name, at, broker]) => TRIGGERS[r.ruleId]?.includes(name) && broker === r.broker && Number(at) <= r.activeAt)
            result.evidenceAt = r.evidenceAt ?? (triggers.length ? Math.max(...triggers.map(([, at]) => Number(at))) : undefined)
            result.storedAt = watcher.storedAt(EVIDENCE, result.evidenceAt, undefined)
            break
          }
          await sleep(100)
        }
        if (!result.alertAt) result.note = `no ${EXPECTED[fault].join('/')} alert within ${Math.round((deadline - injectedAt) / 1000)} s`
        const metricsAfter = await tickMetrics(metricsUrl)
        if (metricsBefore && metricsAfter && metricsAfter.count > metricsBefore.count) {
          result.tickMeanMs = ((metricsAfter.sum - metricsBefore.sum) / (metricsAfter.count - metricsBefore.count)) * 1000
        }
        await recover()
        results.push(result)
        log(`run ${run}: ${fault}: ${describeResult(result)}`)
        await sleep(fault === 'zk-freeze' ? 15_000 : 5_000)
      }
    } finally {
      await watcher.stop()
    }
    return results
  } finally {
    producing = false
    await producerLoop
    await producer?.disconnect().catch(() => undefined)
    await serve?.stop()
    if (cluster) {
      cluster.zookeeper?.process.signal('SIGCONT')
      await cluster.stop({ graceMs: 3_000 })
    }
    if (opts.keepDir) log(`run ${run}: kept the store's keys under ${prefix}`)
    else await deleteStoreKeys(opts.redisUrl ?? 'redis://127.0.0.1:6379', prefix)
    await store.close()
    if (mounted) spawnSync('umount', ['-l', dataMount])
    if (opts.keepDir) log(`run ${run}: kept ${dir}`)
    else rmSync(dir, { recursive: true, force: true })
  }
}

/** Injects one fault; resolves to what undoes it (a no-op for faults that end a broker). */
async function inject(fault: LatencyFault, cluster: LabCluster): Promise<() => Promise<void>> {
  if (fault === 'zk-freeze') {
    const zk = cluster.zookeeper!.process
    zk.signal('SIGSTOP')
    const timer = sleep(FREEZE_MS).then(() => zk.signal('SIGCONT'))
    return async () => {
      await timer
    }
  }
  if (fault === 'disk-full') {
    const b = cluster.brokers.find((x) => x.id === DISK_BROKER)!
    fillDisk(join(b.dataDir, 'filler'))
    return async () => undefined
  }
  cluster.brokers.find((x) => x.id === KILL_BROKER)!.process.signal('SIGKILL')
  return async () => undefined
}

/** Writes zeros until the file system refuses (ENOSPC). */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w')
  const chunk = Buffer.alloc(1024 * 1024)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  } finally {
    closeSync(fd)
  }
}

const s1 = (ms: number | undefined) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(2)} s`)

/** One line per measurement: the rule and each leg of the delay. */
export function describeResult(r: FaultResult): string {
  if (r.alertAt === undefined) return r.note ?? 'no alert'
  const parts = [
    `${r.rule} on broker ${r.broker ?? '-'}`,
    `fault → alert ${s1(r.alertAt - r.injectedAt)}`,
    `fault → evidence ${s1(r.evidenceAt === undefined ? undefined : r.evidenceAt - r.injectedAt)}`,
    `evidence → stored ${s1(r.storedAt === undefined || r.evidenceAt === undefined ? undefined : r.storedAt - r.evidenceAt)}`,
    `stored → alert ${s1(r.storedAt === undefined ? undefined : r.alertAt - r.storedAt)}`,
    `evidence → alert ${s1(r.evidenceAt === undefined ? undefined : r.alertAt - r.evidenceAt)}`,
    `tick ${r.tickMeanMs === undefined ? '–' : `${r.tickMeanMs.toFixed(0)} ms`}`,
  ]
  return parts.join(', ')
}
