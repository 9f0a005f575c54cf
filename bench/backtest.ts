/**
 * The backtest of `kafka-why ci` over a month of a 10-broker store: how long it takes and how much
 * memory it needs, against a raw read of the same keys in the same run.
 *
 *   npm run bench -- backtest [--brokers 10] [--days 30] [--step 5m]
 *
 * The store (a redis-server of the bench's own) holds, for every broker and day, the signals the
 * backtested rules read, at the rates they are recorded at:
 * - `request_handler.idle` and `partitions.under_replicated` every 15 s (the JMX exporter's scrape
 *   interval). Idle follows a daily load curve (down to ~15 % at the daily peak, phase per broker);
 *   under-replicated partitions are 0 except one 3-minute episode a day per broker;
 * - `safepoint.sync` from a whole real day of a Kafka 2.0 broker's JDK 8 gc.log
 *   (test/incidents/healthy-day, 1,920 lines a day), the day's lines moved to each day.
 * Signals no backtested rule reads are not written: the backtest reads keys by signal name, so they
 * would only take memory (at the recorded rates a broker-day of everything is ~126 MiB of Redis,
 * 300 broker-days more than this machine has; see docs/retention.md).
 *
 * A temporary git repository holds the base and head rule files (thresholds changed); the real
 * `kafka-why ci --base main --since Nd --format json` runs in a child process under
 * /usr/bin/time, which gives its peak RSS. The baseline is ZRANGEBYSCORE of the same keys over the
 * same days in the same windows (6 h), members returned as strings, no decoding.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { parseLogText } from '../adapters/logs/parser.js'
import { createKeys } from '../engine/store/keys.js'
import { RedisStore } from '../engine/store/redis-store.js'
import { startLabRedis } from '../lab/redis-server.js'
import type { Signal } from '../signals/signal.js'

const DAY = 86_400_000
const SCRAPE_MS = 15_000
const WINDOW_MS = 6 * 3_600_000
const PREFIX = 'bench:'
const HEALTHY_GC = 'test/incidents/healthy-day/broker-2/gc.log'
const NAMES = ['request_handler.idle', 'partitions.under_replicated', 'safepoint.sync']

const BASE_RULES = `rule handler_threads_busy
  severity warning
  when request_handler.idle < 20% for 5m
  then cause "request handler threads of broker {broker} were {request_handler.idle} idle for 5 minutes"

rule under_replicated
  severity warning
  when partitions.under_replicated > 0 for 2m
  then cause "{partitions.under_replicated} partitions under-replicated on broker {broker}"

rule slow_safepoint
  severity warning
  when safepoint.sync > 1s
  then cause "reaching a safepoint took {safepoint.sync} on broker {broker}"
`
const HEAD_RULES = BASE_RULES.replace('< 20% for 5m', '< 30% for 5m').replace('> 0 for 2m', '> 0 for 1m').replace('safepoint.sync > 1s', 'safepoint.sync > 50us').replace(/(rule slow_safepoint\n {2}severity) warning/, '$1 critical')

function readArgs(argv: string[]): { brokers: number; days: number; step: string } {
  const out = { brokers: 10, days: 30, step: '5m' }
  for (let i = 0; i < argv.length; i += 2) {
    const v = argv[i + 1]
    if (argv[i] === '--step') out.step = v
    else if (argv[i] === '--brokers' || argv[i] === '--days') {
      const n = Number(v)
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${argv[i]} needs a positive whole number`)
      out[argv[i] === '--brokers' ? 'brokers' : 'days'] = n
    } else throw new Error(`unknown option ${argv[i]} (--brokers N, --days N, --step DURATION)`)
  }
  return out
}

/** Offsets within a day and values of a real day's safepoint.sync lines. */
function safepointDay(): { offsetMs: number; value: number; text: string }[] {
  const parsed = parseLogText(readFileSync(HEALTHY_GC, 'utf8'), { path: '/var/log/kafka/gc.log', cluster: 'bench', broker: '1' })
  return parsed.signals
    .filter((s) => s.name === 'safepoint.sync')
    .map((s) => ({ offsetMs: ((s.at % DAY) + DAY) % DAY, value: s.value ?? 0, text: s.text ?? '' }))
}

function* brokerDay(broker: number, dayStart: number, safepoints: ReturnType<typeof safepointDay>): Generator<Signal> {
  const phase = (broker * 37) % 24
  const urpFrom = dayStart + ((broker * 5 + 3) % 24) * 3_600_000
  for (let t = dayStart; t < dayStart + DAY; t += SCRAPE_MS) {
    const hour = ((t - dayStart) / 3_600_000 + phase) % 24
    const idle = 0.55 + 0.4 * Math.cos((2 * Math.PI * hour) / 24)
    const base = { cluster: 'bench', broker: String(broker), source: `prom:http://kafka-${broker}:7071/metrics` }
    yield { ...base, name: 'request_handler.idle', at: t, value: Math.round(idle * 1000) / 1000 }
    yield { ...base, name: 'partitions.under_replicated', at: t, value: t >= urpFrom && t < urpFrom + 180_000 ? 12 : 0 }
  }
  for (const s of safepoints) {
    yield { cluster: 'bench', broker: String(broker), name: 'safepoint.sync', at: dayStart + s.offsetMs, value: s.value, text: s.text, source: `log:/var/log/kafka/gc.log` }
  }
}

async function rawRead(redis: Redis, brokers: number, from: number, to: number): Promise<{ ms: number; members: number }> {
  const keys = createKeys(PREFIX)
  const started = performance.now()
  let members = 0
  for (let w = from; w <= to; w += WINDOW_MS) {
    const end = Math.min(w + WINDOW_MS - 1, to)
    for (let b = 1; b <= brokers; b++) {
      const pipe = redis.pipeline()
      for (const name of NAMES) pipe.zrangebyscore(keys.signal('bench', String(b), name), w, end)
      for (const [, list] of (await pipe.exec()) ?? []) members += (list as string[]).length
    }
  }
  return { ms: performance.now() - started, members }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@localhost' } })
}

function ruleRepo(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kafka-why-bench-ci-'))
  mkdirSync(path.join(dir, 'rules'))
  git(dir, 'init', '-q', '-b', 'main')
  writeFileSync(path.join(dir, 'rules/bench.rules'), BASE_RULES)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'checkout', '-q', '-b', 'change')
  writeFileSync(path.join(dir, 'rules/bench.rules'), HEAD_RULES)
  git(dir, 'commit', '-q', '-a', '-m', 'head')
  return dir
}

async function main(): Promise<void> {
  const { brokers, days, step } = readArgs(process.argv.slice(2))
  const safepoints = safepointDay()
  const server = await startLabRedis()
  const redis = new Redis(server.url)
  const store = new RedisStore({ url: server.url, prefix: PREFIX, commandTimeoutMs: 60_000 })
  const repo = ruleRepo()
  try {
    // The history ends a minute ago, so `--since Nd` (read back from the child's clock) covers it.
    const end = Math.floor((Date.now() - 60_000) / DAY) * DAY
    const start = end - days * DAY
    let written = 0
    const writeStarted = performance.now()
    for (let d = 0; d < days; d++) {
      for (let b = 1; b <= brokers; b++) {
        const batch: Signal[] = []
        for (const s of brokerDay(b, start + d * DAY, safepoints)) {
          batch.push(s)
          if (batch.length === 20_000) written += (await store.append(batch.splice(0))).accepted
        }
        written += (await store.append(batch)).accepted
      }
    }
    const usedMiB = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]) / 1024 / 1024
    console.log(`${brokers} brokers × ${days} days: ${written.toLocaleString('en-US')} signals of ${NAMES.join(', ')} written in ${((performance.now() - writeStarted) / 1000).toFixed(1)} s (Redis used_memory ${usedMiB.toFixed(0)} MiB)`)

    const raw = await rawRead(redis, brokers, start, end)
    console.log(`baseline: ZRANGEBYSCORE of the same keys, ${WINDOW_MS / 3_600_000} h windows: ${raw.members.toLocaleString('en-US')} members in ${(raw.ms / 1000).toFixed(2)} s`)

    const sinceDays = days + 1
    const entry = path.resolve('cli/kafka-why.mjs')
    const child = spawnSync('/usr/bin/time', ['-f', 'peak-rss-kib=%M wall-s=%e', process.execPath, entry, 'ci', '--base', 'main', '--since', `${sinceDays}d`, '--step', step, '--format', 'json'], {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDIS_URL: server.url, KAFKA_WHY_REDIS_PREFIX: PREFIX },
    })
    const timing = /peak-rss-kib=(\d+) wall-s=([\d.]+)/.exec(child.stderr)
    if (child.status !== 0 || !timing) throw new Error(`kafka-why ci failed (exit ${child.status}): ${child.stderr.slice(-2000)}`)
    type Episode = { firedAt: number; resolvedAt?: number }
    const report = JSON.parse(child.stdout) as { backtest: { tookMs: number; windows: number; signalsRead: number; rules: { rule: string; base: number; head: number; newlyFiring: Episode[]; stoppedFiring: Episode[]; severityChanged: { base: Episode; head: Episode }[] }[] } }
    const b = report.backtest
    // The history written ends at `end` while --since reads on to the child's now: no alert may fire
    // or resolve in between (nothing was recorded there).
    const lastRecord = end - 1
    const latest = Math.max(-Infinity, ...b.rules.flatMap((r) => [...r.newlyFiring, ...r.stoppedFiring, ...r.severityChanged.flatMap((p) => [p.base, p.head])]).map((e) => Math.max(e.firedAt, e.resolvedAt ?? -Infinity)))
    if (latest > lastRecord) throw new Error(`the backtest reported an alert at ${new Date(latest).toISOString()}, after the last record (${new Date(lastRecord).toISOString()})`)
    console.log(`\nkafka-why ci --since ${sinceDays}d --step ${step} (child process):`)
    console.log(`  backtest: ${(b.tookMs / 1000).toFixed(1)} s for ${b.windows} windows, ${b.signalsRead.toLocaleString('en-US')} signals read for the tick times; whole command ${timing[2]} s wall`)
    console.log(`  peak RSS: ${(Number(timing[1]) / 1024).toFixed(0)} MiB`)
    for (const r of b.rules) console.log(`  ${r.rule.padEnd(22)} alerts ${r.base} → ${r.head}: ${r.newlyFiring.length} newly firing, ${r.stoppedFiring.length} stop, ${r.severityChanged.length} severity changed`)
    console.log(`\nbacktest / raw read of the same keys: ${(b.tookMs / raw.ms).toFixed(1)}×`)
  } finally {
    rmSync(repo, { recursive: true, force: true })
    await store.close()
    redis.disconnect()
    await server.stop()
  }
}

await main()
