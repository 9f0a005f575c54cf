/**
 * Consumer-lag evaluation at scale: 10,000 groups × 20 partitions, one commit per group-partition
 * per 30 s interval (what __consumer_offsets carries when every consumer commits every 30 s), log
 * ends polled every 30 s.
 *
 *   npm run bench -- consumer-lag [--groups 10000] [--partitions 20] [--ticks 18]
 *
 * Per tick it measures, in CPU time (process.cpuUsage):
 *   - baseline: the raw read of that interval's offset records: decoding every key and value
 *     (adapters/consumer-lag/offsets-codec.ts), nothing kept;
 *   - adapter: the same records through the LagTracker (decode, keep the latest commit) and its tick
 *     (log ends recorded, lag in messages and in time computed, signals built);
 *   - evaluation: Burrow's status of every group-partition at the tick, derived from the last 10
 *     commits and the log ends exactly as a rule's load derives it (engine/consumer-lag-series.ts).
 * Each is printed as a share of one core over the 30 s interval and as a ratio to the baseline. The
 * first ticks fill the window and are not counted. It also states the tracker's heap: per group, and
 * per partition of log-end history.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { DEFAULT_HISTORY_POINTS, LagTracker, type LogEnd } from '../adapters/consumer-lag/lag-tracker.js'
import { decodeRecord } from '../adapters/consumer-lag/offsets-codec.js'
import { deriveConsumerLagStatus } from '../engine/consumer-lag-series.js'
import type { Signal } from '../signals/signal.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const INTERVAL_MS = 30_000
const GROUPS_PER_TOPIC = 10

function readArgs(argv: string[]): { groups: number; partitions: number; ticks: number } {
  const out = { groups: 10_000, partitions: 20, ticks: 18 }
  for (let i = 0; i < argv.length; i += 2) {
    const v = Number(argv[i + 1])
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${argv[i]} needs a positive whole number`)
    if (argv[i] === '--groups') out.groups = v
    else if (argv[i] === '--partitions') out.partitions = v
    else if (argv[i] === '--ticks') out.ticks = v
    else throw new Error(`unknown option ${argv[i]} (--groups N, --partitions N, --ticks N)`)
  }
  return out
}

/** Key (version 1) and value (version 3) bytes as Kafka writes them (layout of OffsetCommitKey/OffsetCommitValue). */
function encodeKey(group: string, topic: string, partition: number): Buffer {
  const g = Buffer.from(group)
  const t = Buffer.from(topic)
  const b = Buffer.alloc(2 + 2 + g.length + 2 + t.length + 4)
  let o = b.writeInt16BE(1, 0)
  o = b.writeInt16BE(g.length, o)
  o += g.copy(b, o)
  o = b.writeInt16BE(t.length, o)
  o += t.copy(b, o)
  b.writeInt32BE(partition, o)
  return b
}
function encodeValue(offset: number, at: number): Buffer {
  const b = Buffer.alloc(2 + 8 + 4 + 2 + 8)
  let o = b.writeInt16BE(3, 0)
  o = b.writeBigInt64BE(BigInt(offset), o)
  o = b.writeInt32BE(0, o)
  o = b.writeInt16BE(0, o)
  b.writeBigInt64BE(BigInt(at), o)
  return b
}

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const pct = (ms: number) => `${((ms / INTERVAL_MS) * 100).toFixed(1)}%`

function main(): void {
  const { groups, partitions, ticks } = readArgs(process.argv.slice(2))
  const topics = Math.ceil(groups / GROUPS_PER_TOPIC)
  const t0 = Date.UTC(2026, 0, 1)
  const keys: Buffer[] = []
  const keyOf: { group: string; topic: string; partition: number; rate: number; stall: boolean }[] = []
  for (let g = 0; g < groups; g++) {
    const topic = `topic-${g % topics}`
    for (let p = 0; p < partitions; p++) {
      keys.push(encodeKey(`group-${g}`, topic, p))
      // Most groups keep up; one in ten falls behind (WARNING once its window is full), one in a hundred stalls from the 4th interval (STALLED): the evaluation's branches all run.
      keyOf.push({ group: `group-${g}`, topic, partition: p, rate: g % 10 === 0 ? 0.8 : 1, stall: g % 100 === 1 })
    }
  }
  console.log(`${groups.toLocaleString('en-US')} groups × ${partitions} partitions = ${keys.length.toLocaleString('en-US')} group-partitions on ${topics.toLocaleString('en-US')} topics; one commit each per ${INTERVAL_MS / 1000} s interval, ${ticks} intervals`)
  const tracker = new LagTracker({ cluster: 'bench', maxGroups: groups, maxPartitionsPerGroup: partitions })
  const commits: Signal[][] = []
  const logEndSignals: Signal[][] = []
  const rows: { base: number; adapter: number; evaluation: number }[] = []
  const WRITE_PER_INTERVAL = 3_000
  for (let tick = 1; tick <= ticks; tick++) {
    const at = t0 + tick * INTERVAL_MS
    const values = keyOf.map((k) => encodeValue(Math.floor((k.stall && tick > 4 ? 4 : tick) * WRITE_PER_INTERVAL * k.rate), at - 1_000))
    // Baseline: the raw read of this interval's records.
    let c = cpuMs()
    let sum = 0
    for (let i = 0; i < keys.length; i++) {
      const r = decodeRecord(keys[i], values[i])
      if (r.kind === 'offset') sum += r.value!.offset
    }
    const base = cpuMs() - c
    if (sum < 0) console.log('unreachable')
    // Adapter: the same records into the tracker, then its poll.
    c = cpuMs()
    for (let i = 0; i < keys.length; i++) tracker.applyRecord(decodeRecord(keys[i], values[i]), 0)
    const logEnds: LogEnd[] = []
    for (let t = 0; t < topics; t++) for (let p = 0; p < partitions; p++) logEnds.push({ topic: `topic-${t}`, partition: p, offset: tick * WRITE_PER_INTERVAL, leader: (t + p) % 6 })
    const signals = tracker.tick(at, logEnds, new Map([[0, 1]]))
    const adapter = cpuMs() - c
    commits.push(signals.filter((s) => s.name === 'group.commit'))
    logEndSignals.push(signals.filter((s) => s.name === 'partition.log_end'))
    // The window needs the last 10 commits: older intervals are dropped as the store's read would not return them.
    if (commits.length > 11) commits.shift()
    if (logEndSignals.length > 11) logEndSignals.shift()
    // Evaluation: every group-partition's status at this tick.
    c = cpuMs()
    const { partitions: statuses, groups: groupStatuses } = deriveConsumerLagStatus('bench', commits.flat(), logEndSignals.flat(), at, at)
    const evaluation = cpuMs() - c
    if (tick === ticks) {
      const count = (st: string) => groupStatuses.filter((g) => g.labels!.status === st).length
      console.log(`statuses at the last tick: ${statuses.length.toLocaleString('en-US')} partitions; groups OK ${count('OK')}, WARNING ${count('WARNING')}, STALLED ${count('STALLED')}, STOPPED ${count('STOPPED')}`)
    }
    if (tick > 11) rows.push({ base, adapter, evaluation })
    console.log(`  interval ${tick}: decode ${base.toFixed(0)} ms, adapter ${adapter.toFixed(0)} ms, evaluation ${evaluation.toFixed(0)} ms CPU${tick > 11 ? '' : ' (window filling, not counted)'}`)
  }
  const stats = tracker.stats()
  const avg = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0) / rows.length
  const base = avg((r) => r.base)
  const adapter = avg((r) => r.adapter)
  const evaluation = avg((r) => r.evaluation)
  console.log(`\nCPU per ${INTERVAL_MS / 1000} s interval, mean of the last ${rows.length} (window full):`)
  console.log(`  baseline: raw decode of ${keys.length.toLocaleString('en-US')} records   ${base.toFixed(0).padStart(6)} ms  ${pct(base).padStart(6)} of a core`)
  console.log(`  adapter: tracker + its poll's signals        ${adapter.toFixed(0).padStart(6)} ms  ${pct(adapter).padStart(6)} of a core  ${(adapter / base).toFixed(1)}x baseline`)
  console.log(`  evaluation: Burrow status of every partition ${evaluation.toFixed(0).padStart(6)} ms  ${pct(evaluation).padStart(6)} of a core  ${(evaluation / base).toFixed(1)}x baseline`)
  console.log(`  adapter + evaluation                         ${(adapter + evaluation).toFixed(0).padStart(6)} ms  ${pct(adapter + evaluation).padStart(6)} of a core (target: within 25%)`)
  // The heap is per group and per partition of history: measured on at most 1,000 groups (a tenth as many topics) to keep the run short.
  const heapGroups = Math.min(groups, 1_000)
  measureHeap(heapGroups, partitions, Math.ceil(heapGroups / GROUPS_PER_TOPIC), stats.groups)
}

/**
 * The tracker's heap, apart from the bench's own arrays: its commit state for every group-partition
 * (fed through the admin path, no buffers alive), then its log-end history filled to the default
 * length on every topic-partition.
 */
function measureHeap(groups: number, partitions: number, topics: number, tracked: number): void {
  gc()
  gc()
  const before = process.memoryUsage().heapUsed
  const t = new LagTracker({ cluster: 'bench', maxGroups: groups, maxPartitionsPerGroup: partitions })
  for (let g = 0; g < groups; g++) for (let p = 0; p < partitions; p++) t.applyCommitted(`group-${g}`, `topic-${g % topics}`, p, 1_000 + g, 1)
  gc()
  gc()
  const commits = process.memoryUsage().heapUsed - before
  const full = DEFAULT_HISTORY_POINTS
  for (let tick = 1; tick <= full; tick++) {
    const ends: LogEnd[] = []
    for (let x = 0; x < topics; x++) for (let p = 0; p < partitions; p++) ends.push({ topic: `topic-${x}`, partition: p, offset: tick * 100, leader: 1 })
    t.tick(tick * INTERVAL_MS, ends)
  }
  gc()
  gc()
  const all = process.memoryUsage().heapUsed - before
  const st = t.stats()
  const kib = (b: number) => `${(b / 1024).toFixed(2)} KiB`
  console.log(`\ntracker heap: ${(all / 1024 / 1024).toFixed(1)} MiB for ${st.groups.toLocaleString('en-US')} groups (${st.partitions.toLocaleString('en-US')} group-partitions) and ${st.historyPoints.toLocaleString('en-US')} log-end samples (${full} on each of ${st.logEndPartitions.toLocaleString('en-US')} partitions)`)
  console.log(`  commit state: ${kib(commits / st.groups)} per group of ${partitions} partitions (${((commits / st.partitions)).toFixed(0)} B per group-partition)`)
  console.log(`  log-end history: ${(((all - commits) / st.historyPoints)).toFixed(0)} B per sample, ${kib((all - commits) / st.logEndPartitions)} per partition at ${full} samples`)
  if (tracked !== st.groups) console.log(`  (measured on ${st.groups.toLocaleString('en-US')} groups; the timed run tracked ${tracked.toLocaleString('en-US')})`)
}

main()
