/**
 * The engine's costs, each beside a baseline measured in the same run:
 *   (1) signals/s into RedisStore beside `redis-benchmark -P 64 -t zadd` on the same Redis;
 *   (2) `why` p50/p99 for one broker with 100k stored signals and 50 rules, beside the raw time to
 *       read the same keys with one ioredis pipeline of ZRANGEBYSCORE (+ HGETALL of the facts);
 *   (3) evaluating the 50 rules over 1×, 10× and 100× the events: the growth factor per 10×.
 *
 *   npx tsx bench/engine.ts                       # REDIS_URL or redis://127.0.0.1:6379
 *   BENCH_SIGNALS=200000 BENCH_WHY_RUNS=40 BENCH_EVAL_BASE=5000 npx tsx bench/engine.ts
 *
 * Writes only under random key prefixes and deletes them afterwards.
 */
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'
import { hasErrors, parseRules } from '../dsl/index.js'
import type { Rule } from '../dsl/ast.js'
import { diagnose } from '../engine/diagnose.js'
import { buildEvalData } from '../engine/eval-data.js'
import { evaluateRules } from '../engine/evaluate.js'
import { createKeys } from '../engine/store/keys.js'
import { deleteKeysWithPrefix, RedisStore } from '../engine/store/redis-store.js'
import type { Signal } from '../signals/signal.js'
import { benchStoreIngest } from './store-ingest.js'

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const INGEST_SIGNALS = Number(process.env.BENCH_SIGNALS ?? 200_000)
const WHY_SIGNALS = 100_000
const WHY_RUNS = Number(process.env.BENCH_WHY_RUNS ?? 40)
const EVAL_BASE = Number(process.env.BENCH_EVAL_BASE ?? 5_000)
const RULES = 50
const HOUR = 3_600_000
const START = 1_700_000_000_000

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** The shipped rule pack, topped up to 50 rules with variants of its operators. */
export function benchRules(): Rule[] {
  const dir = 'rules'
  const rules: Rule[] = []
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.rules')).sort()) {
    const file = path.join(dir, f)
    const parsed = parseRules(readFileSync(file, 'utf8'), file)
    if (!hasErrors(parsed.diagnostics)) rules.push(...parsed.rules)
  }
  const templates = [
    (i: number) => `when count(isr.shrink) by topic over ${5 + i}m > ${100 + i}`,
    (i: number) => `when zk.session_timeout within ${1 + (i % 9)}s of safepoint.sync > ${1 + (i % 3)}s`,
    (i: number) => `when trend(heap.after_gc) over ${1 + (i % 6)}h > ${i}`,
    (i: number) => `when request_handler.idle < ${10 + i}% for 5m`,
    (i: number) => `when count(group.rebalance) by group over 1h > ${20 + i} and not broker.shutdown`,
    (i: number) => `when leader.change after zk.session_expired within ${10 + i}s`,
    (i: number) => `when max(gc.pause) over 10m > ${1 + (i % 4)}s or rate(client.not_leader) over 5m > ${1 + i}/s`,
  ]
  const extra: string[] = []
  for (let i = 0; rules.length + extra.length < RULES; i++) extra.push(`rule bench_${i} ${templates[i % templates.length](i)} then cause "bench ${i} on {broker}"`)
  const parsed = parseRules(extra.join('\n'), 'bench.rules')
  if (hasErrors(parsed.diagnostics)) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'))
  return [...rules, ...parsed.rules].slice(0, RULES)
}

/** n signals of one broker over one hour: the events and samples the rules read, a few incidents in them. */
export function brokerSignals(n: number, broker: string, spanMs = HOUR): Signal[] {
  let seed = 42
  const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
  const mix: [string, () => Partial<Signal>][] = [
    ['safepoint.sync', () => ({ value: rnd() < 0.001 ? 3300 : rnd() * 20 })],
    ['safepoint.total', () => ({ value: rnd() * 30 })],
    ['gc.pause', () => ({ value: rnd() * 200, labels: { kind: 'young', cause: 'G1 Evacuation Pause' } })],
    ['heap.after_gc', () => ({ value: 1e9 + rnd() * 5e8 })],
    ['isr.shrink', () => ({ labels: { topic: `t${Math.floor(rnd() * 40)}`, partition: String(Math.floor(rnd() * 24)) } })],
    ['leader.change', () => ({ labels: { topic: `t${Math.floor(rnd() * 40)}`, partition: String(Math.floor(rnd() * 24)) } })],
    ['group.rebalance', () => ({ labels: { group: `g${Math.floor(rnd() * 30)}` } })],
    ['log.segment_roll', () => ({ labels: { topic: `t${Math.floor(rnd() * 40)}`, partition: String(Math.floor(rnd() * 24)) } })],
    ['request_handler.idle', () => ({ value: rnd() })],
    ['fd.open', () => ({ value: 1000 + Math.floor(rnd() * 500) })],
    ['zk.session_timeout', () => ({ value: 4000 + rnd() * 4000 })],
  ]
  const out: Signal[] = []
  for (let i = 0; i < n; i++) {
    const [name, make] = mix[i % mix.length]
    out.push({ name, at: START + Math.floor((i / n) * spanMs), cluster: 'bench', broker, source: `bench:${name}:${i}`, ...make() })
  }
  out.push({ name: 'broker.version', at: START, cluster: 'bench', broker, value: 3_007_000, labels: { version: '3.7.0' }, source: 'bench:version' })
  out.push({ name: 'config.segment_ms', at: START, cluster: 'bench', broker, value: 604_800_000, labels: { topic: 't1' }, source: 'bench:config' })
  return out
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function benchWhy(rules: Rule[]): Promise<void> {
  const prefix = `kafka-why-bench:${randomUUID()}:`
  const store = new RedisStore({ url, prefix, commandTimeoutMs: 60_000 })
  const redis = new Redis(url)
  try {
    const signals = brokerSignals(WHY_SIGNALS, '3')
    for (let i = 0; i < signals.length; i += 5000) await store.append(signals.slice(i, i + 5000))
    const keys = createKeys(prefix)
    const names = await redis.smembers(keys.names('bench', '3'))
    const window = { cluster: 'bench', broker: '3', from: START, to: START + HOUR, now: START + HOUR, record: false }
    const raw = async () => {
      const pipe = redis.pipeline()
      for (const name of names) pipe.zrangebyscore(keys.signal('bench', '3', name), START, START + HOUR)
      pipe.hgetall(keys.facts('bench', '3'))
      pipe.hgetall(keys.facts('bench', undefined))
      const results = await pipe.exec()
      return results!.reduce((n, [, r]) => n + (Array.isArray(r) ? r.length : 0), 0)
    }
    const why = async () => (await diagnose(rules, store, window)).signalsSeen
    console.log(`(2) why over ${fmt(WHY_SIGNALS)} stored signals of one broker, ${rules.length} rules, ${WHY_RUNS} runs each (interleaved)`)
    const read = await raw()
    const seen = await why()
    const whyMs: number[] = []
    const rawMs: number[] = []
    for (let i = 0; i < WHY_RUNS; i++) {
      let t = performance.now()
      await raw()
      rawMs.push(performance.now() - t)
      t = performance.now()
      await why()
      whyMs.push(performance.now() - t)
    }
    whyMs.sort((a, b) => a - b)
    rawMs.sort((a, b) => a - b)
    const [w50, w99, r50, r99] = [percentile(whyMs, 50), percentile(whyMs, 99), percentile(rawMs, 50), percentile(rawMs, 99)]
    console.log(`    raw ZRANGEBYSCORE pipeline  p50 ${fmt(r50, 1)} ms  p99 ${fmt(r99, 1)} ms  (${fmt(read)} members)`)
    console.log(`    why (diagnose)              p50 ${fmt(w50, 1)} ms  p99 ${fmt(w99, 1)} ms  (${fmt(seen)} signals seen)`)
    console.log(`    ratio why/raw               p50 ${fmt(w50 / r50, 2)}x  p99 ${fmt(w99 / r99, 2)}x  (target p99 ≤ 2.5x: ${w99 / r99 <= 2.5 ? 'met' : 'not met'})`)
  } finally {
    await store.close()
    await deleteKeysWithPrefix(redis, prefix)
    redis.disconnect()
  }
}

function benchEvaluation(rules: Rule[]): void {
  console.log(`(3) evaluating ${rules.length} rules over 1x, 10x, 100x the events (best of 3, in memory)`)
  let previous: number | undefined
  // Warm the JIT on the smallest size first, so 1x is not charged for compilation.
  const warm = buildEvalData('bench', '3', brokerSignals(EVAL_BASE, '3'))
  for (let k = 0; k < 3; k++) evaluateRules(rules, { ...warm }, { from: START, to: START + HOUR, now: START + HOUR })
  for (const factor of [1, 10, 100]) {
    const n = EVAL_BASE * factor
    const data = buildEvalData('bench', '3', brokerSignals(n, '3'))
    let best = Infinity
    let matches = 0
    for (let k = 0; k < 3; k++) {
      const t = performance.now()
      // A fresh object per run: the evaluator memoises per data set, and each run must pay in full.
      const results = evaluateRules(rules, { ...data }, { from: START, to: START + HOUR, now: START + HOUR })
      best = Math.min(best, performance.now() - t)
      matches = results.reduce((sum, r) => sum + r.matches.length, 0)
    }
    // The events are packed into the same hour, so pairs (`within 5s of`) grow with the square of
    // the density: the match count is printed to tell output growth from per-event cost.
    const growth = previous ? `  growth ${fmt(best / previous, 1)}x for 10x the events` : ''
    console.log(`    ${String(factor).padStart(3)}x  ${fmt(n).padStart(9)} events  ${fmt(matches).padStart(7)} matches  ${fmt(best, 1).padStart(8)} ms  ${fmt((best * 1000) / n, 2)} µs/event${growth}`)
    previous = best
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rules = benchRules()
  console.log(`kafka-why engine bench against ${url} (${rules.length} rules)`)
  console.log(`(1) ingest: ${fmt(INGEST_SIGNALS)} signals into RedisStore, then redis-benchmark -P 64 -t zadd`)
  const ingest = await benchStoreIngest(url, { signals: INGEST_SIGNALS })
  console.log(`    RedisStore.append           ${fmt(ingest.signalsPerSec)} signals/s (${fmt(ingest.seconds, 2)} s, ${fmt(ingest.nodeCpuMicrosPerSignal, 1)} µs CPU/signal)`)
  if (ingest.redisBenchmarkZaddPerSec === undefined) console.log('    redis-benchmark             could not run (is it on PATH?)')
  else console.log(`    redis-benchmark -P 64 zadd  ${fmt(ingest.redisBenchmarkZaddPerSec)} requests/s  ratio ${fmt(ingest.ratio!, 2)}x  (target 200,000 signals/s: ${ingest.signalsPerSec >= 200_000 ? 'met' : 'not met'})`)
  await benchWhy(rules)
  benchEvaluation(rules)
}
