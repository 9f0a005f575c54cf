/**
 * What the store costs on a Redis Cluster beside one Redis, same workload, same run: appends
 * (signals/s and this process's CPU per signal: the cluster's appends are split into one pipeline
 * per master) and the alert loop's read of one broker's window (querySeries, p50/p99). Both servers
 * are started here on loopback ports — one redis-server, and 3 masters + 3 replicas — so neither
 * shares its CPU with the Redis on 6379, and both are stopped afterwards.
 *
 *   npx tsx bench/store-cluster.ts
 *   BENCH_SIGNALS=200000 npx tsx bench/store-cluster.ts   # default 100 000
 */
import { pathToFileURL } from 'node:url'
import { RedisStore } from '../engine/store/redis-store.js'
import { startLabRedisCluster } from '../lab/redis-cluster.js'
import { startLabRedis } from '../lab/redis-server.js'
import type { Signal } from '../signals/signal.js'
import { makeBenchSignals } from './store-ingest.js'

/** One store's figures. */
export type StoreFigures = {
  signalsPerSec: number
  /** This Node process's CPU (user + system) per appended signal. */
  nodeCpuMicrosPerSignal: number
  queryP50Ms: number
  queryP99Ms: number
}

/** Both stores' figures and the cluster's as a ratio of one Redis's. */
export type StoreClusterResult = {
  signals: number
  single: StoreFigures
  cluster: StoreFigures
  /** cluster throughput / single throughput */
  appendRatio: number
  /** cluster query p50 / single query p50 */
  queryP50Ratio: number
}

const BATCH = 5000
const IN_FLIGHT = 4
const QUERIES = 400

async function measure(store: RedisStore, signals: Signal[]): Promise<StoreFigures> {
  await store.append(makeBenchSignals(1000, 1_600_000_000_000))
  const batches: Signal[][] = []
  for (let i = 0; i < signals.length; i += BATCH) batches.push(signals.slice(i, i + BATCH))
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  let next = 0
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]
      const result = await store.append(batch)
      if (result.accepted !== batch.length) throw new Error(`append refused signals: ${JSON.stringify(result.rejected)}`)
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  // The alert loop's read: one broker, every signal name, a 5 s window (about 1,000 of its signals),
  // brokers and windows in turn.
  const from = signals[0].at
  const times: number[] = []
  for (let i = 0; i < QUERIES; i++) {
    const t0 = performance.now()
    const start = from + (i % 50) * 1000
    await store.querySeries({ cluster: 'bench', broker: String(1 + (i % 12)), from: start, to: start + 5000 })
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return {
    signalsPerSec: signals.length / seconds,
    nodeCpuMicrosPerSignal: (cpu.user + cpu.system) / signals.length,
    queryP50Ms: times[Math.floor(times.length * 0.5)],
    queryP99Ms: times[Math.floor(times.length * 0.99)],
  }
}

/** Runs the same appends and reads against one Redis and a Redis Cluster, both started for the run. */
export async function benchStoreCluster(n: number, log: (line: string) => void = () => undefined): Promise<StoreClusterResult> {
  const signals = makeBenchSignals(n)
  log('starting one redis-server and a Redis Cluster (3 masters, 3 replicas) on loopback…')
  const single = await startLabRedis()
  let cluster
  try {
    cluster = await startLabRedisCluster()
  } catch (err) {
    await single.stop()
    throw err
  }
  const stores: RedisStore[] = []
  const open = (round: number) => {
    const pair = [
      new RedisStore({ url: single.url, prefix: `bench:${round}:`, batchSize: BATCH, commandTimeoutMs: 30_000 }),
      new RedisStore({ clusterNodes: cluster.nodesEnv, prefix: `bench:${round}:`, batchSize: BATCH, commandTimeoutMs: 30_000 }),
    ]
    stores.push(...pair)
    return pair
  }
  try {
    // Two rounds, alternating, each into fresh keys; the better of each is kept, so neither side
    // gains from running second on a warmed-up process.
    const best: [StoreFigures | undefined, StoreFigures | undefined] = [undefined, undefined]
    for (let round = 0; round < 2; round++) {
      const pair = open(round)
      for (const side of [0, 1] as const) {
        log(`round ${round + 1}, ${side === 0 ? 'one Redis' : 'Redis Cluster'}: ${n} signals, ${Math.ceil(n / BATCH)} appends of ${BATCH}, ${IN_FLIGHT} in flight, then ${QUERIES} reads…`)
        const f = await measure(pair[side], signals)
        const b = best[side]
        best[side] = b
          ? { signalsPerSec: Math.max(b.signalsPerSec, f.signalsPerSec), nodeCpuMicrosPerSignal: Math.min(b.nodeCpuMicrosPerSignal, f.nodeCpuMicrosPerSignal), queryP50Ms: Math.min(b.queryP50Ms, f.queryP50Ms), queryP99Ms: Math.min(b.queryP99Ms, f.queryP99Ms) }
          : f
      }
    }
    const [a, b] = best as [StoreFigures, StoreFigures]
    return { signals: n, single: a, cluster: b, appendRatio: b.signalsPerSec / a.signalsPerSec, queryP50Ratio: b.queryP50Ms / a.queryP50Ms }
  } finally {
    await Promise.all(stores.map((s) => s.close()))
    await Promise.all([single.stop(), cluster.stop()])
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.env.BENCH_SIGNALS ?? 100_000)
  const r = await benchStoreCluster(n, (l) => console.log(l))
  for (const [label, f] of [['one Redis    ', r.single], ['Redis Cluster', r.cluster]] as const) {
    console.log(`${label}  append ${fmt(f.signalsPerSec)} signals/s (${f.nodeCpuMicrosPerSignal.toFixed(1)} µs of this process's CPU per signal)  querySeries p50 ${f.queryP50Ms.toFixed(2)} ms, p99 ${f.queryP99Ms.toFixed(2)} ms`)
  }
  console.log(`cluster / one Redis: append throughput ${r.appendRatio.toFixed(2)}×, read p50 ${r.queryP50Ratio.toFixed(2)}×`)
}
