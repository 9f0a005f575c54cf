/**
 * What the alert loop costs for a large estate: one `AlertEngine.tick` over every broker with the
 * shipped rule pack, fed at real rates, beside the same store read alone in the same run.
 *
 *   npm run bench -- alert-loop [--brokers 50,500,2000] [--ticks 20] [--cluster-size 10] [--reuse both|on|off] [--history-hours H]
 *   BENCH_CPU_PROFILE=/tmp/tick npm run bench -- alert-loop --brokers 50   # also a CPU profile of each regular tick
 *
 * The feed is one broker-day of recorded signals (bench/broker-day.ts: exporter scrapes every 15 s,
 * a day of server.log and gc.log, JDK 17 safepoint lines), cut to the signals the rule pack reads.
 * Each broker gets the history its rules look back over (24 h of `heap.after_gc` for the leak
 * trend, 12 h of rebalances, minutes of the rest) and then, before every tick, the next 15 s of the
 * day. Brokers are grouped into clusters of `--cluster-size`.
 *
 * Per tick it measures CPU (this process, and redis-server's own from `INFO cpu`) and wall time:
 * - the tick: `AlertEngine.tick(now)`, every rule over every broker;
 * - the baseline, the store read alone: for every broker, one pipeline of ZRANGEBYSCORE over the
 *   keys the tick reads (each signal over its rules' look-back) and HGETALL of the facts, members
 *   returned as strings and not decoded.
 * Rules looking back more than an hour are evaluated once per long-window interval (5 m), each
 * broker on its own tick of the interval, so the bench measures `--ticks` consecutive ticks (20: one
 * whole interval, every broker's long-window rules once) and averages them. The baseline is the raw
 * read of what the every-tick rules read on every tick, plus a twentieth of the raw read of every
 * signal's whole look-back (measured once). It prints CPU ms per broker per tick, the growth between
 * sizes and the share of one core a 15 s tick takes. The redis-server is
 * the bench's own (a free loopback port), stopped at the end.
 *
 * `--reuse` (default both): the engine keeping each tick's reads for the next and reading only what
 * is new (engine/series-cache.ts, `on`), reading every window whole on every tick (`off`), or both,
 * each with its own engine over the same store, alternating tick by tick so both see the same load.
 * `--history-hours H` writes at most H hours of any signal's history (the 24 h leak trend's included),
 * for an estate whose full history would not fit in memory; the long-window rules then read less.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import path from 'node:path'
import { Redis } from 'ioredis'
import type { Rule } from '../dsl/ast.js'
import { hasErrors, parseRules } from '../dsl/index.js'
import { factRefsOfRule, signalsOfRule } from '../dsl/signals-of-rule.js'
import { AlertEngine, DEFAULT_KEEP_FIRING_MS, DEFAULT_LAG_MS, DEFAULT_LONG_WINDOW_EVERY_MS, LONG_WINDOW_LOOKBACK_MS } from '../engine/alerts.js'
import { lookbackMs } from '../engine/rule-signals.js'
import { signalKind } from '../engine/signal-kind.js'
import { createKeys, signalMember } from '../engine/store/keys.js'
import { RedisStore } from '../engine/store/redis-store.js'
import { startLabRedis } from '../lab/redis-server.js'
import type { Signal } from '../signals/signal.js'
import { buildBrokerDay, DAY, SCRAPE_MS, type DaySignal } from './broker-day.js'

const TICK_MS = SCRAPE_MS
const PREFIX = 'bench:'
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

type Reuse = 'on' | 'off'
type Args = { brokers: number[]; ticks: number; clusterSize: number; reuse: Reuse[]; historyHours?: number }

function readArgs(argv: string[]): Args {
  const out: Args = { brokers: [50, 500, 2000], ticks: 20, clusterSize: 10, reuse: ['on', 'off'] }
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? '']
    const whole = (v: string) => {
      const n = Number(v)
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs positive whole numbers, got '${v}'`)
      return n
    }
    if (flag === '--brokers') out.brokers = value.split(',').map(whole)
    else if (flag === '--ticks') out.ticks = whole(value)
    else if (flag === '--cluster-size') out.clusterSize = whole(value)
    else if (flag === '--history-hours') out.historyHours = whole(value)
    else if (flag === '--reuse') {
      if (value !== 'both' && value !== 'on' && value !== 'off') throw new Error(`--reuse is both, on or off, got '${value}'`)
      out.reuse = value === 'both' ? ['on', 'off'] : [value]
    } else throw new Error(`unknown option ${flag} (--brokers N[,N…], --ticks N, --cluster-size N, --reuse both|on|off, --history-hours H)`)
  }
  return out
}

function shippedRules(): Rule[] {
  const rules: Rule[] = []
  for (const f of readdirSync('rules').filter((f) => f.endsWith('.rules')).sort()) {
    const file = path.join('rules', f)
    const parsed = parseRules(readFileSync(file, 'utf8'), file)
    if (hasErrors(parsed.diagnostics)) throw new Error(`${file} has errors: run kafka-why lint rules`)
    rules.push(...parsed.rules)
  }
  return rules
}

/** How far back each signal the rules read is looked at, as the loader reads it (look-back + the tick's window). */
function readSpans(rules: readonly Rule[]): Map<string, number> {
  const spans = new Map<string, number>()
  for (const rule of rules) {
    const back = lookbackMs(rule.when)
    for (const name of [...signalsOfRule(rule), ...rule.explains.map((e) => e.signal), ...factRefsOfRule(rule)]) {
      spans.set(name, Math.max(spans.get(name) ?? 0, back + DEFAULT_KEEP_FIRING_MS))
    }
  }
  return spans
}

type Estate = { clusterOf: (b: number) => string; brokers: number }

function place(t: DaySignal, dayStart: number, estate: Estate, b: number): Signal {
  const { offsetMs, ...rest } = t
  return { ...rest, at: dayStart + offsetMs, cluster: estate.clusterOf(b), broker: String(b) }
}

/**
 * Writes every broker's history: the template day placed on the day before t0, each signal only as
 * far back as it is read. The store registers each broker and its signal names from the first
 * signal of each name; the rest goes in as the same sorted-set members by raw ZADD, which is what
 * ingest writes, in few large commands: 2,000 brokers' history in minutes, not an hour.
 */
async function writeHistory(store: RedisStore, redis: Redis, day: DaySignal[], spans: Map<string, number>, estate: Estate, t0: number): Promise<number> {
  const kept = day.filter((s) => s.name !== undefined && t0 - DAY + s.offsetMs >= t0 - (spans.get(s.name) ?? 0) - DEFAULT_LAG_MS)
  const keys = createKeys(PREFIX)
  let written = 0
  for (let b = 1; b <= estate.brokers; b++) {
    const firsts = new Map<string, Signal>()
    const rest: Signal[] = []
    for (const t of kept) {
      const s = place(t, t0 - DAY, estate, b)
      if (!firsts.has(s.name) || signalKind(s.name) === 'fact') firsts.set(s.name + (signalKind(s.name) === 'fact' ? `:${s.at}` : ''), s)
      else rest.push(s)
    }
    written += (await store.append([...firsts.values()])).accepted
    // One ZADD per key and 2,000 members, a pipeline per broker.
    const byKey = new Map<string, (string | number)[]>()
    for (const s of rest) {
      const key = keys.signal(s.cluster, s.broker, s.name)
      const args = byKey.get(key) ?? []
      args.push(s.at, signalMember(s))
      byKey.set(key, args)
    }
    const pipe = redis.pipeline()
    for (const [key, args] of byKey) for (let i = 0; i < args.length; i += 4_000) pipe.zadd(key, ...args.slice(i, i + 4_000))
    await pipe.exec()
    written += rest.length
  }
  return written
}

/** The next 15 s of the day for every broker (the day is in offset order: a slice, not a scan). */
async function feed(store: RedisStore, day: DaySignal[], estate: Estate, t0: number, from: number, to: number): Promise<number> {
  const first = (t: number) => {
    let [lo, hi] = [0, day.length]
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (t0 + day[mid].offsetMs <= t) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const slice = day.slice(first(from), first(to))
  const batch: Signal[] = []
  for (let b = 1; b <= estate.brokers; b++) for (const s of slice) batch.push(place(s, t0, estate, b))
  let written = 0
  for (let i = 0; i < batch.length; i += 20_000) written += (await store.append(batch.slice(i, i + 20_000))).accepted
  return written
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu')
  const read = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0)
  return read('used_cpu_user') + read('used_cpu_sys')
}

type Cost = { nodeMs: number; redisMs: number; wallMs: number }

// A full collection before each measurement, so the garbage the bench's own feeding left behind is
// not collected on the measured operation's time.
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

async function measure(redis: Redis, body: () => Promise<void>): Promise<Cost> {
  collectGarbage()
  const r0 = await redisCpuSeconds(redis)
  const c0 = process.cpuUsage()
  const w0 = performance.now()
  await body()
  const wallMs = performance.now() - w0
  const c = process.cpuUsage(c0)
  const redisMs = ((await redisCpuSeconds(redis)) - r0) * 1000
  return { nodeMs: (c.user + c.system) / 1000, redisMs, wallMs }
}

/** The baseline: the keys one tick reads, over the same spans, as raw pipelined reads. */
async function rawRead(redis: Redis, spans: Map<string, number>, estate: Estate, t: number): Promise<number> {
  const keys = createKeys(PREFIX)
  const series = [...spans].filter(([name]) => signalKind(name) !== 'fact')
  let members = 0
  for (let b = 1; b <= estate.brokers; b++) {
    const cluster = estate.clusterOf(b)
    const pipe = redis.pipeline()
    for (const [name, span] of series) pipe.zrangebyscore(keys.signal(cluster, String(b), name), t - span, t)
    pipe.hgetall(keys.facts(cluster, String(b)))
    pipe.hgetall(keys.facts(cluster, undefined))
    for (const [, r] of (await pipe.exec()) ?? []) members += Array.isArray(r) ? r.length : 0
  }
  return members
}

type SizeResult = { brokers: number; tick: Map<Reuse, Cost>; raw: Cost; longRaw: Cost; heapMiB: Map<Reuse, number>; reused: number }

const heapMiB = () => {
  collectGarbage()
  return process.memoryUsage().heapUsed / 2 ** 20
}

async function runSize(brokers: number, args: Args, rules: Rule[], day: DaySignal[], spans: { all: Map<string, number>; everyTick: Map<string, number> }): Promise<SizeResult> {
  const estate: Estate = { brokers, clusterOf: (b) => `c${Math.floor((b - 1) / args.clusterSize) + 1}` }
  const server = await startLabRedis()
  const redis = new Redis(server.url)
  const store = new RedisStore({ url: server.url, prefix: PREFIX, commandTimeoutMs: 120_000, brokersPerCluster: Math.max(args.clusterSize, 64) })
  try {
    const t0 = Date.UTC(2026, 0, 2)
    const h0 = performance.now()
    const cap = args.historyHours === undefined ? undefined : args.historyHours * 3_600_000
    const historySpans = cap === undefined ? spans.all : new Map([...spans.all].map(([name, span]) => [name, Math.min(span, cap)]))
    const history = await writeHistory(store, redis, day, historySpans, estate, t0)
    const usedMiB = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]) / 2 ** 20
    console.log(`\n${fmt(brokers)} brokers in ${fmt(Math.ceil(brokers / args.clusterSize))} clusters: history ${fmt(history)} signals written in ${fmt((performance.now() - h0) / 1000, 1)} s (Redis ${fmt(usedMiB)} MiB)${cap === undefined ? '' : `, at most ${args.historyHours} h of any signal`}`)
    // One engine per mode over the same store; the first tick of each pays for compiling, for the
    // alerts the history opens and (reusing) for reading every window whole: it is not counted.
    const engines = new Map<Reuse, AlertEngine>()
    const heap = new Map<Reuse, number>()
    for (const mode of args.reuse) {
      const before = heapMiB()
      const engine = new AlertEngine({ store, rules, owner: `bench-${mode}`, reuseReads: mode === 'on' })
      await engine.tick(t0)
      if (engine.seriesCache) Object.assign(engine.seriesCache.stats, { read: 0, reused: 0, rereads: 0 })
      engines.set(mode, engine)
      heap.set(mode, heapMiB() - before)
    }
    const ticks = new Map<Reuse, Cost[]>(args.reuse.map((m) => [m, []]))
    const raws: Cost[] = []
    let fed = 0
    const step = async (k: number, now: number, from: number, readSpans: Map<string, number>) => {
      fed += await feed(store, day, estate, t0, from, now)
      const parts: string[] = []
      // The modes take turns going first, so neither always finds Redis' caches warmed by the other.
      const order = k % 2 === 0 ? [...args.reuse].reverse() : args.reuse
      for (const mode of order) {
        let events = 0
        const profiling = profile ? await profile.resume() : undefined
        const tick = await measure(redis, async () => void (events = (await engines.get(mode)!.tick(now)).length))
        if (profiling) await profile!.pause(`${process.env.BENCH_CPU_PROFILE}.${brokers}.${mode}.tick-${k}.cpuprofile`)
        ticks.get(mode)!.push(tick)
        parts.push(`reuse ${mode}: node ${fmt(tick.nodeMs)} ms + redis ${fmt(tick.redisMs)} ms CPU, ${fmt(tick.wallMs)} ms wall, ${events} notifications`)
      }
      let members = 0
      const raw = await measure(redis, async () => void (members = await rawRead(redis, readSpans, estate, now - DEFAULT_LAG_MS)))
      raws.push(raw)
      console.log(`  tick ${k}: ${parts.join(' | ')} | raw read: node ${fmt(raw.nodeMs)} + redis ${fmt(raw.redisMs)} ms CPU, ${fmt(raw.wallMs)} ms wall, ${fmt(members)} members`)
    }
    const profile = process.env.BENCH_CPU_PROFILE ? await startProfile() : undefined
    for (let k = 1; k <= args.ticks; k++) await step(k, t0 + k * TICK_MS, t0 + (k - 1) * TICK_MS, spans.everyTick)
    // What the long-window rules read, once for every broker: a twentieth of it per tick on average.
    let members = 0
    const longRaw = await measure(redis, async () => void (members = await rawRead(redis, spans.all, estate, t0 + args.ticks * TICK_MS - DEFAULT_LAG_MS)))
    console.log(`  raw read of every signal's whole look-back: node ${fmt(longRaw.nodeMs)} + redis ${fmt(longRaw.redisMs)} ms CPU, ${fmt(longRaw.wallMs)} ms wall, ${fmt(members)} members`)
    const open = await store.listAlerts({ open: true })
    const byRule = new Map<string, number>()
    for (const a of open) byRule.set(a.ruleId, (byRule.get(a.ruleId) ?? 0) + 1)
    console.log(`  open alerts after the last tick: ${open.length} (${[...byRule].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'})`)
    console.log(`  fed ${fmt(fed / args.ticks)} signals per 15 s tick (${fmt(fed / args.ticks / brokers, 1)} per broker)`)
    const cache = engines.get('on')?.seriesCache
    const reused = cache ? cache.stats.reused / (cache.stats.reused + cache.stats.read) : 0
    if (cache) console.log(`  reuse on: ${fmt(cache.stats.read)} signals read and decoded, ${fmt(cache.stats.reused)} kept from the tick before (${fmt(reused * 100, 1)} %), ${fmt(cache.stats.rereads)} ranges read again after a failed check`)
    for (const [mode, mib] of heap) console.log(`  reuse ${mode}: the engine's heap after its first tick ${fmt(mib)} MiB`)
    return { brokers, tick: new Map([...ticks].map(([m, c]) => [m, mean(c)])), raw: mean(raws), longRaw, heapMiB: heap, reused }
  } finally {
    await store.close()
    redis.disconnect()
    await server.stop()
  }
}

function mean(costs: Cost[]): Cost {
  const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  return { nodeMs: m(costs.map((c) => c.nodeMs)), redisMs: m(costs.map((c) => c.redisMs)), wallMs: m(costs.map((c) => c.wallMs)) }
}

/** V8 CPU profiles of the regular ticks alone (BENCH_CPU_PROFILE=path), for finding where a tick's time goes. */
async function startProfile(): Promise<{ resume(): Promise<true>; pause(file: string): Promise<void> }> {
  const session = new Session()
  session.connect()
  const post = (method: string) => new Promise<unknown>((resolve, reject) => session.post(method, (err, res) => (err ? reject(err) : resolve(res))))
  await post('Profiler.enable')
  return {
    async resume() {
      await post('Profiler.start')
      return true
    },
    async pause(file) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown }
      writeFileSync(file, JSON.stringify(profile))
    },
  }
}

const cpu = (c: Cost) => c.nodeMs + c.redisMs

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2))
  const rules = shippedRules()
  const spans = { all: readSpans(rules), everyTick: readSpans(rules.filter((r) => lookbackMs(r.when) <= LONG_WINDOW_LOOKBACK_MS)) }
  const template = await buildBrokerDay()
  const day = template.signals.filter((s) => spans.all.has(s.name))
  console.log(`alert loop: ${rules.length} rules reading ${spans.all.size} signals; one broker-day of what they read: ${fmt(day.length)} signals (of ${fmt(template.signals.length)} recorded)`)
  const rows: SizeResult[] = []
  for (const n of args.brokers) rows.push(await runSize(n, args, rules, day, spans))
  console.log(`\nCPU per broker per tick, the mean of ${args.ticks} consecutive ticks (node + redis-server):`)
  console.log('brokers  reuse  tick ms/broker  raw read ms/broker  ratio  share of one core at 15 s  growth per broker  tick wall ms  engine heap MiB')
  const previous = new Map<Reuse, number>()
  for (const r of rows) {
    const rawCpu = cpu(r.raw) + cpu(r.longRaw) * (TICK_MS / DEFAULT_LONG_WINDOW_EVERY_MS)
    for (const [mode, tick] of r.tick) {
      const tickCpu = cpu(tick)
      const perBroker = tickCpu / r.brokers
      const before = previous.get(mode)
      const growth = before === undefined ? '-' : `${fmt(perBroker / before, 2)}x`
      console.log(
        `${fmt(r.brokers).padStart(7)}  ${mode.padStart(5)}  ${fmt(perBroker, 2).padStart(14)}  ${fmt(rawCpu / r.brokers, 2).padStart(18)}  ${fmt(tickCpu / rawCpu, 2).padStart(5)}x  ${fmt((tickCpu / TICK_MS) * 100, 1).padStart(24)} %  ${growth.padStart(17)}  ${fmt(tick.wallMs).padStart(12)}  ${fmt(r.heapMiB.get(mode) ?? 0).padStart(15)}`,
      )
      previous.set(mode, perBroker)
    }
  }
}

await main()
