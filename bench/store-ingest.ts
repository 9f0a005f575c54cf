/**
 * How fast signals go into RedisStore from one Node process, beside what Redis itself does for
 * pipelined ZADD (`redis-benchmark -P 64 -t zadd`) on the same server in the same run.
 *
 *   npx tsx bench/store-ingest.ts                  # REDIS_URL or redis://127.0.0.1:6379
 *   BENCH_SIGNALS=500000 npx tsx bench/store-ingest.ts
 *
 * Writes only under a random key prefix, plus redis-benchmark's own `myzset` key, and deletes both.
 */
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { deleteKeysWithPrefix, RedisStore } from '../engine/store/redis-store.js'
import type { Signal } from '../signals/signal.js'

/** The figures one run prints, for bench/engine and the README. */
export type StoreIngestResult = {
  signals: number
  seconds: number
  signalsPerSec: number
  /** ZADD requests/s that redis-benchmark -P 64 reached on the same Redis; undefined if it could not run. */
  redisBenchmarkZaddPerSec?: number
  /** signalsPerSec / redisBenchmarkZaddPerSec. */
  ratio?: number
  /** CPU time this Node process spent per signal (user + system): the cost that does not depend on machine load. */
  nodeCpuMicrosPerSignal: number
}

/** Size and shape of a run; the defaults are what the README figures used. */
export type StoreIngestOptions = {
  /** Signals to write (default 200 000). */
  signals?: number
  /** Signals per append call (default 5000). */
  batchSize?: number
  /** Append calls in flight at once (default 4). */
  inFlight?: number
  log?: (line: string) => void
}

const EVENT_NAMES = ['isr.shrink', 'leader.change', 'client.not_leader', 'log.segment_roll', 'group.rebalance'] as const
const GAUGE_NAMES = ['heap.used', 'fd.open', 'request_handler.idle', 'partitions.under_replicated', 'log.segments'] as const

/**
 * A mix like a live cluster's: 12 brokers, half log events carrying their raw line, half metric
 * samples, labelled by topic and partition, one source position each.
 */
export function makeBenchSignals(n: number, start = 1_700_000_000_000): Signal[] {
  const out: Signal[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const broker = String(1 + (i % 12))
    const topic = `topic-${i % 40}`
    const partition = String(i % 24)
    const at = start + Math.floor(i / 12) * 5
    if (i % 2 === 0) {
      const name = EVENT_NAMES[(i >> 1) % EVENT_NAMES.length]
      out[i] = {
        name,
        at,
        cluster: 'bench',
        broker,
        labels: { topic, partition },
        source: `log:/var/log/kafka/server.log:${i}`,
        text: `[2024-11-14 22:13:20,${String(i % 1000).padStart(3, '0')}] INFO [Partition ${topic}-${partition} broker=${broker}] Shrinking ISR from 1,2,3 to 1 (kafka.cluster.Partition)`,
      }
    } else {
      const name = GAUGE_NAMES[(i >> 1) % GAUGE_NAMES.length]
      out[i] = { name, at, cluster: 'bench', broker, value: (i * 7919) % 100_000, labels: { topic, partition }, source: `jmx:broker-${broker}:7071` }
    }
  }
  return out
}

/** Runs redis-benchmark's pipelined ZADD test against the server of `redisUrl`; requests/s. */
export function runRedisBenchmarkZadd(redisUrl: string, n: number): number | undefined {
  const u = new URL(redisUrl)
  const args = ['-h', u.hostname || '127.0.0.1', '-p', u.port || '6379', '-P', '64', '-t', 'zadd', '-n', String(n), '-q']
  const db = u.pathname.replace('/', '')
  if (db) args.push('--dbnum', db)
  if (u.password) args.push('-a', decodeURIComponent(u.password), '--no-auth-warning')
  const run = spawnSync('redis-benchmark', args, { encoding: 'utf8', timeout: 120_000 })
  const matches = [...(run.stdout ?? '').matchAll(/ZADD: ([\d.]+) requests per second/g)]
  return matches.length > 0 ? Number(matches[matches.length - 1][1]) : undefined
}

/** Measures RedisStore.append throughput and redis-benchmark's ZADD on the same Redis, in one run. */
export async function benchStoreIngest(redisUrl: string, options: StoreIngestOptions = {}): Promise<StoreIngestResult> {
  const n = options.signals ?? 200_000
  const batchSize = options.batchSize ?? 5000
  const inFlight = options.inFlight ?? 4
  const log = options.log ?? (() => undefined)
  const prefix = `kafka-why-bench:${randomUUID()}:`
  const store = new RedisStore({ url: redisUrl, prefix, batchSize, commandTimeoutMs: 30_000 })
  const admin = new Redis(redisUrl)
  try {
    await store.append(makeBenchSignals(1000, 1_600_000_000_000))
    const signals = makeBenchSignals(n)
    const batches: Signal[][] = []
    for (let i = 0; i < n; i += batchSize) batches.push(signals.slice(i, i + batchSize))
    log(`writing ${n} signals into RedisStore (${batches.length} appends of ${batchSize}, ${inFlight} in flight)…`)
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    let next = 0
    const worker = async () => {
      while (next < batches.length) {
        const result = await store.append(batches[next++])
        if (result.accepted !== batchSize && result.accepted !== n % batchSize) throw new Error(`append refused signals: ${JSON.stringify(result.rejected)}`)
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
    const seconds = (performance.now() - started) / 1000
    const cpu = process.cpuUsage(cpuBefore)
    const nodeCpuMicrosPerSignal = (cpu.user + cpu.system) / n
    const signalsPerSec = n / seconds
    log(`running redis-benchmark -P 64 -t zadd -n ${n} -q on the same Redis…`)
    const redisBenchmarkZaddPerSec = runRedisBenchmarkZadd(redisUrl, n)
    const ratio = redisBenchmarkZaddPerSec ? signalsPerSec / redisBenchmarkZaddPerSec : undefined
    return { signals: n, seconds, signalsPerSec, redisBenchmarkZaddPerSec, ratio, nodeCpuMicrosPerSignal }
  } finally {
    await store.close()
    await deleteKeysWithPrefix(admin, prefix)
    await admin.del('myzset')
    admin.disconnect()
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const n = Number(process.env.BENCH_SIGNALS ?? 200_000)
  const r = await benchStoreIngest(url, { signals: n, log: (l) => console.log(l) })
  console.log(`RedisStore.append          ${fmt(r.signalsPerSec)} signals/s  (${r.signals} signals in ${r.seconds.toFixed(2)} s, one Node process, ${r.nodeCpuMicrosPerSignal.toFixed(1)} µs of its CPU per signal)`)
  if (r.redisBenchmarkZaddPerSec === undefined) console.log('redis-benchmark -P 64 zadd  could not run (is redis-benchmark on PATH?)')
  else {
    console.log(`redis-benchmark -P 64 zadd ${fmt(r.redisBenchmarkZaddPerSec)} requests/s`)
    console.log(`ratio                      ${r.ratio!.toFixed(2)}x of redis-benchmark; target 200,000 signals/s: ${r.signalsPerSec >= 200_000 ? 'met' : 'not met'}`)
  }
}
