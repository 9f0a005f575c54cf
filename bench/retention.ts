/**
 * Redis memory per broker-day at real rates, and the store's size over simulated days with `serve`'s
 * retention (7 days) applied after each: it must grow for a week, then stay flat.
 *
 *   npm run bench -- retention [--brokers 2] [--days 10] [--retention-days 7]
 *
 * One broker-day is built from recordings, at the rates they were recorded at (bench/broker-day.ts).
 * Each simulated day writes that broker-day for every broker through RedisStore (times moved to the
 * day), then runs the sweep serve runs (trim + pruneAlerts). Redis is a redis-server of the bench's
 * own on a free port, so `INFO memory` counts only this data; it is stopped at the end.
 *
 * The baseline measured in the same run is the bytes of the stored members themselves (the JSON each
 * signal is kept as): the bench prints Redis's memory as a ratio to it.
 */
import { Redis } from 'ioredis'
import { signalMember } from '../engine/store/keys.js'
import { RedisStore } from '../engine/store/redis-store.js'
import { startLabRedis } from '../lab/redis-server.js'
import type { Signal } from '../signals/signal.js'
import { buildBrokerDay, DAY } from './broker-day.js'

const MiB = 1024 * 1024

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory')
  return Number(/used_memory:(\d+)/.exec(info)![1])
}

function readArgs(argv: string[]): { brokers: number; days: number; retentionDays: number } {
  const out = { brokers: 2, days: 10, retentionDays: 7 }
  for (let i = 0; i < argv.length; i += 2) {
    const v = Number(argv[i + 1])
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${argv[i]} needs a positive whole number`)
    if (argv[i] === '--brokers') out.brokers = v
    else if (argv[i] === '--days') out.days = v
    else if (argv[i] === '--retention-days') out.retentionDays = v
    else throw new Error(`unknown option ${argv[i]} (--brokers N, --days N, --retention-days N)`)
  }
  return out
}

async function main(): Promise<void> {
  const { brokers, days, retentionDays } = readArgs(process.argv.slice(2))
  const template = await buildBrokerDay()
  console.log(`one broker-day: ${template.signals.length.toLocaleString('en-US')} signals`)
  for (const [what, n] of Object.entries(template.bySource)) console.log(`  ${what.padEnd(36)} ${n.toLocaleString('en-US')}`)
  const server = await startLabRedis()
  const redis = new Redis(server.url)
  const store = new RedisStore({ url: server.url, prefix: 'bench:', commandTimeoutMs: 60_000 })
  try {
    const base = await usedMemory(redis)
    const start = Date.UTC(2026, 0, 1)
    let memberBytes = 0
    const rows: { day: number; usedMiB: number; signals: number }[] = []
    console.log(`\n${brokers} brokers, ${days} simulated days, retention ${retentionDays} days (redis-server ${server.url}, used_memory before: ${(base / MiB).toFixed(1)} MiB)`)
    console.log('day  written/day   kept signals   used_memory MiB')
    for (let d = 0; d < days; d++) {
      const dayStart = start + d * DAY
      let written = 0
      for (let b = 1; b <= brokers; b++) {
        const batch: Signal[] = []
        for (const t of template.signals) {
          const { offsetMs, ...rest } = t
          const s: Signal = { ...rest, at: dayStart + offsetMs, cluster: 'bench', broker: String(b) }
          batch.push(s)
          if (d === 0 && b === 1) memberBytes += Buffer.byteLength(signalMember(s))
          if (batch.length === 20_000) written += (await store.append(batch.splice(0))).accepted
        }
        written += (await store.append(batch)).accepted
      }
      const now = dayStart + DAY
      await store.trim(now - retentionDays * DAY)
      await store.pruneAlerts(now - DAY)
      const kept = await countKept(redis)
      const usedMiB = (await usedMemory(redis)) / MiB
      rows.push({ day: d + 1, usedMiB, signals: kept })
      console.log(`${String(d + 1).padStart(3)}  ${written.toLocaleString('en-US').padStart(11)}  ${kept.toLocaleString('en-US').padStart(13)}  ${usedMiB.toFixed(1).padStart(16)}`)
    }
    const full = rows[Math.min(retentionDays, rows.length) - 1]
    const perBrokerDayMiB = (full.usedMiB - base / MiB) / (Math.min(retentionDays, rows.length) * brokers)
    const memberMiBPerBrokerDay = memberBytes / MiB
    console.log(`\nRedis memory per broker-day: ${perBrokerDayMiB.toFixed(1)} MiB (baseline, the stored members' own bytes: ${memberMiBPerBrokerDay.toFixed(1)} MiB; ratio ${(perBrokerDayMiB / memberMiBPerBrokerDay).toFixed(2)}x)`)
    const after = rows.slice(retentionDays)
    if (after.length) {
      const lo = after.reduce((m, r) => Math.min(m, r.usedMiB), full.usedMiB)
      const hi = after.reduce((m, r) => Math.max(m, r.usedMiB), full.usedMiB)
      console.log(`after day ${retentionDays}: used_memory between ${lo.toFixed(1)} and ${hi.toFixed(1)} MiB (${(((hi - lo) / full.usedMiB) * 100).toFixed(1)}% spread), ${(hi / full.usedMiB).toFixed(3)}x the day-${retentionDays} figure at most`)
    }
  } finally {
    await store.close()
    redis.disconnect()
    await server.stop()
  }
}

/** Events and samples held now (ZCARD of every signal key). */
async function countKept(redis: Redis): Promise<number> {
  let cursor = '0'
  let total = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', 'bench:sig:*', 'COUNT', 1000)
    cursor = next
    if (keys.length) {
      const pipe = redis.pipeline()
      for (const k of keys) pipe.zcard(k)
      for (const [, n] of (await pipe.exec()) ?? []) total += Number(n)
    }
  } while (cursor !== '0')
  return total
}

await main()
