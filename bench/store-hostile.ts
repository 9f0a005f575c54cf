/**
 * Whether a sender can stall Redis through the store: the longest Lua script Redis ran (SLOWLOG,
 * every command logged) while RedisStore takes hostile appends, beside the longest under an ordinary
 * append workload in the same run. Hostile here means what a signals-topic producer or a JSONL file
 * controls: a new cluster and broker per signal, thousands of brokers for one cluster, fields at
 * their size bounds, 20,000 facts in one scope, 200,000 signals of one series in one hour and the
 * alert loop's read of that hour (series-changes-n, paged), then a retention sweep over all of it.
 *
 *   npm run bench -- store-hostile            # target: longest hostile command under 50 ms
 *
 * Runs its own redis-server (lab/redis-server.ts) so SLOWLOG holds only this run's commands. SLOWLOG
 * times a command on the wall clock, so on a loaded machine a descheduled redis-server inflates any
 * one script: the count of scripts over 10 ms says whether the longest is an outlier.
 */
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { RedisStore } from '../engine/store/redis-store.js'
import { startLabRedis } from '../lab/redis-server.js'
import type { Signal } from '../signals/signal.js'
import { SIGNAL_LIMITS } from '../signals/signal-limits.js'
import { makeBenchSignals } from './store-ingest.js'

/** The longest Lua script of a phase, as SLOWLOG gave it (a script holds Redis for its whole run). */
export type SlowestCommand = { micros: number; command: string; scripts?: number; over10ms?: number }

/** What one run prints. */
export type StoreHostileResult = { baseline: SlowestCommand; hostile: SlowestCommand; phases: Record<string, SlowestCommand> }

const TARGET_MICROS = 50_000
const DAY = 86_400_000

async function slowest(redis: Redis): Promise<SlowestCommand> {
  const entries = (await redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][]
  let best: SlowestCommand = { micros: 0, command: '' }
  let scripts = 0
  let over10ms = 0
  for (const [, , micros, args] of entries) {
    if (!/^EVAL/i.test(args[0] ?? '')) continue
    scripts++
    if (micros > 10_000) over10ms++
    if (micros > best.micros) best = { micros, command: args.slice(0, 3).map((a) => a.slice(0, 40).replace(/\s+/g, ' ')).join(' ') }
  }
  await redis.call('SLOWLOG', 'RESET')
  return { ...best, scripts, over10ms }
}

const sig = (s: Partial<Signal>): Signal => ({ name: 'isr.shrink', at: 1000, cluster: 'prod', broker: '1', source: 'bench', ...s })

/** Runs the phases against a redis-server of its own. */
export async function benchStoreHostile(log: (line: string) => void = () => undefined): Promise<StoreHostileResult> {
  const server = await startLabRedis(['--slowlog-log-slower-than', '0', '--slowlog-max-len', '1000000'])
  const redis = new Redis(server.url)
  const store = new RedisStore({ url: server.url, prefix: 'hostile:', commandTimeoutMs: 120_000 })
  const phases: Record<string, SlowestCommand> = {}
  const phase = async (name: string, body: () => Promise<unknown>) => {
    await redis.call('SLOWLOG', 'RESET')
    await body()
    phases[name] = await slowest(redis)
    const p = phases[name]
    log(`${name.padEnd(48)} longest ${(p.micros / 1000).toFixed(2).padStart(7)} ms of ${p.scripts} scripts (${p.over10ms} over 10 ms)  ${p.command}`)
  }
  try {
    const now = 30 * DAY
    const ordinary = makeBenchSignals(50_000, now - DAY)
    await phase('baseline: 50,000 ordinary signals', async () => {
      for (let i = 0; i < ordinary.length; i += 5000) await store.append(ordinary.slice(i, i + 5000))
      await store.trim(now - 7 * DAY)
    })
    await phase('20 appends of 4,000 new clusters each', async () => {
      for (let a = 0; a < 20; a++) await store.append(Array.from({ length: 4000 }, (_, i) => sig({ cluster: `c${a}-${i}`, at: now - DAY + i })))
    })
    await phase('10 appends of 4,000 new brokers of one cluster', async () => {
      for (let a = 0; a < 10; a++) await store.append(Array.from({ length: 4000 }, (_, i) => sig({ cluster: 'wide', broker: `b${a}-${i}`, at: now - DAY + i })))
    })
    const big = 'y'.repeat(SIGNAL_LIMITS.labelValueChars)
    await phase('5,000 signals with every field at its bound', async () => {
      // As many label characters as one signal may carry, in values at their own bound.
      const n = Math.floor(SIGNAL_LIMITS.labelsChars / (SIGNAL_LIMITS.labelValueChars + 2))
      const labels = Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, big]))
      for (let a = 0; a < 5; a++) {
        const r = await store.append(Array.from({ length: 1000 }, (_, i) => sig({ at: now - DAY + a * 1000 + i, labels, source: 's'.repeat(SIGNAL_LIMITS.sourceChars), text: 't'.repeat(SIGNAL_LIMITS.textChars) })))
        if (r.accepted !== 1000) throw new Error(`fields at their bounds were refused: ${JSON.stringify(r.rejected)}`)
      }
    })
    await phase('20,000 facts in one scope, 10 days old', async () => {
      for (let i = 0; i < 20_000; i += 5000) await store.append(Array.from({ length: 5000 }, (_, j) => sig({ name: 'config.retention_ms', at: now - 10 * DAY, value: 1, labels: { topic: `t${i + j}` } })))
    })
    await phase('200,000 signals of one series in one hour', async () => {
      for (let i = 0; i < 200_000; i += 5000) await store.append(Array.from({ length: 5000 }, (_, j) => sig({ broker: 'flood', at: now - DAY + i + j, labels: { partition: String(i + j) } })))
    })
    await phase("the alert loop's read of that hour", async () => {
      // What the series cache asks on a tick: the window it holds checked, the rest read (every page).
      const read = { from: now - DAY, to: now - DAY + 3_600_000 }
      const [r] = await store.readSeriesChanges({ cluster: 'prod', broker: 'flood' }, [{ name: 'isr.shrink', read }])
      if (r.signals.length !== 200_000) throw new Error(`the read gave ${r.signals.length} of 200,000 signals`)
      const [again] = await store.readSeriesChanges({ cluster: 'prod', broker: 'flood' }, [{ name: 'isr.shrink', check: { from: read.from, to: read.to - 60_000 }, read: { from: read.to - 59_999, to: read.to } }])
      if (again.count !== 200_000) throw new Error(`the check counted ${again.count} of 200,000 signals`)
    })
    await phase('retention sweep over all of it', () => store.trim(now - 7 * DAY))
    let hostile: SlowestCommand = { micros: 0, command: '' }
    for (const [name, p] of Object.entries(phases)) if (!name.startsWith('baseline') && p.micros > hostile.micros) hostile = p
    return { baseline: phases['baseline: 50,000 ordinary signals'], hostile, phases }
  } finally {
    await store.close()
    redis.disconnect()
    await server.stop()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchStoreHostile((l) => console.log(l))
  console.log(`\nlongest script, ordinary appends  ${(r.baseline.micros / 1000).toFixed(2)} ms`)
  console.log(`longest script, hostile appends   ${(r.hostile.micros / 1000).toFixed(2)} ms (${r.hostile.command}); ${(r.hostile.micros / Math.max(1, r.baseline.micros)).toFixed(1)}x the ordinary; target under ${TARGET_MICROS / 1000} ms: ${r.hostile.micros < TARGET_MICROS ? 'met' : 'not met'}`)
  process.exitCode = r.hostile.micros < TARGET_MICROS ? 0 : 1
}
