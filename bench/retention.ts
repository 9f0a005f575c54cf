/**
 * Redis memory per broker-day at real rates, and the store's size over simulated days with `serve`'s
 * retention (7 days) applied after each: it must grow for a week, then stay flat.
 *
 *   npm run bench -- retention [--brokers 2] [--days 10] [--retention-days 7]
 *
 * One broker-day is built from recordings, at the rates they were recorded at:
 * - exporter scrapes every 15 s: a real JMX-exporter capture of a Kafka 3.9 broker
 *   (test/adapters/prometheus/fixtures), converted scrape by scrape with counters advancing;
 * - server.log and gc.log of a whole day (test/incidents/healthy-day, Kafka 2.0 / JDK 8);
 * - JDK 17 -Xlog:safepoint lines at the rate the lab broker wrote them (test/incidents/lab-stw).
 * Each simulated day writes that broker-day for every broker through RedisStore (times moved to the
 * day), then runs the sweep serve runs (trim + pruneAlerts). Redis is a redis-server of the bench's
 * own on a free port, so `INFO memory` counts only this data; it is stopped at the end.
 *
 * The baseline measured in the same run is the bytes of the stored members themselves (the JSON each
 * signal is kept as): the bench prints Redis's memory as a ratio to it.
 */
import { readFile } from 'node:fs/promises'
import { Redis } from 'ioredis'
import { parseLogText } from '../adapters/logs/parser.js'
import { parseExposition, type Sample } from '../adapters/prometheus/exposition.js'
import { SampleConverter } from '../adapters/prometheus/to-signals.js'
import { capEvidenceText } from '../engine/ingest.js'
import { signalMember } from '../engine/store/keys.js'
import { RedisStore } from '../engine/store/redis-store.js'
import { startLabRedis } from '../lab/redis-server.js'
import type { Signal } from '../signals/signal.js'

const DAY = 86_400_000
const SCRAPE_MS = 15_000
const MiB = 1024 * 1024
const EXPORTER = 'test/adapters/prometheus/fixtures/kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom'
const HEALTHY_DAY = 'test/incidents/healthy-day/broker-2'
const JDK17_GC = 'test/incidents/lab-stw/broker-1/gc.log'

type DaySignal = Omit<Signal, 'at' | 'broker' | 'cluster'> & { offsetMs: number }
type Template = { signals: DaySignal[]; bySource: Record<string, number> }

/**
 * Scrapes of a whole day: the capture's samples, counters advancing between scrapes. Only the samples
 * that yielded a signal in the first three scrapes are converted after those (the rest of the
 * exporter's ~7,000 series map to nothing), which gives the same signals in a fraction of the time.
 */
function scrapeDay(all: Sample[]): DaySignal[] {
  const out: DaySignal[] = []
  const converter = new SampleConverter({ cluster: 'bench', broker: '1', source: 'prom:http://kafka-1:7071/metrics' })
  const t0 = 1_700_000_000_000
  let samples = all
  const used = new Set<Sample>()
  for (let k = 0; k < DAY / SCRAPE_MS; k++) {
    if (k === 3) samples = all.filter((s) => used.has(s))
    converter.begin(t0 + k * SCRAPE_MS)
    for (const s of samples) {
      const advancing = /_total$|_count$|_sum$/.test(s.name) ? { ...s, value: s.value + k * (1 + (s.value % 97)) } : s
      for (const sig of converter.convert(advancing)) {
        if (k < 3) used.add(s)
        out.push(toDaySignal(sig, t0))
      }
    }
    converter.end()
  }
  return out
}

function toDaySignal(s: Signal, dayStart: number): DaySignal {
  const { at, broker: _b, cluster: _c, ...rest } = capEvidenceText(s)
  return { ...rest, offsetMs: (((at - dayStart) % DAY) + DAY) % DAY }
}

/** A day of JDK 17 safepoint lines at the recording's own rate, times moved to cover 24 hours. */
function safepointDay(gcLog: string): DaySignal[] {
  const lines = gcLog.split('\n').filter((l) => l.includes('[safepoint') && l.includes('Reaching safepoint'))
  const times = lines.map((l) => Date.parse(/^\[([^\]]+)\]/.exec(l)![1].replace(/([+-]\d{2})(\d{2})$/, '$1:$2')))
  const spanMs = times[times.length - 1] - times[0]
  const perDay = Math.round((lines.length / spanMs) * DAY)
  const dayStart = Date.UTC(2026, 10, 29)
  const day: string[] = []
  for (let i = 0; i < perDay; i++) {
    const at = new Date(dayStart + Math.floor((i * DAY) / perDay)).toISOString().replace('Z', '+0000')
    day.push(lines[i % lines.length].replace(/^\[[^\]]+\]\[[^\]]+\]/, `[${at}][${((i * DAY) / perDay / 1000).toFixed(3)}s]`))
  }
  return parseLogText(day.join('\n'), { path: '/var/log/kafka/gc.log', cluster: 'bench', broker: '1' }).signals.map((s) => toDaySignal(s, dayStart))
}

async function buildTemplate(): Promise<Template> {
  const { samples } = parseExposition(await readFile(EXPORTER, 'utf8'))
  const scrapes = scrapeDay(samples)
  const logs: DaySignal[] = []
  for (const file of ['server.log', 'gc.log']) {
    const parsed = parseLogText(await readFile(`${HEALTHY_DAY}/${file}`, 'utf8'), { path: `/var/log/kafka/${file}`, cluster: 'bench', broker: '1' })
    const first = parsed.signals.reduce((m, s) => Math.min(m, s.at), Infinity)
    const dayStart = first - (first % DAY)
    for (const s of parsed.signals) logs.push(toDaySignal(s, dayStart))
  }
  const safepoints = safepointDay(await readFile(JDK17_GC, 'utf8'))
  return {
    signals: [...scrapes, ...logs, ...safepoints],
    bySource: { 'exporter scrapes (15 s)': scrapes.length, 'server.log + gc.log (healthy day)': logs.length, 'JDK 17 safepoint lines': safepoints.length },
  }
}

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
  const template = await buildTemplate()
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
