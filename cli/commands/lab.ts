import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCluster, type LabMode } from '../../lab/cluster.js'
import { LAB_DIR, labUnavailableReason } from '../../lab/kafka-runtime.js'
import { LATENCY_FAULTS, measureLiveLatency, median, type LiveLatencyOptions } from '../../lab/live-latency.js'
import { runScenario, SCENARIOS } from '../../lab/run-scenario.js'
import { parseInterval } from '../../adapters/agent/parse-interval.js'

const USAGE = `usage: kafka-why lab <scenario> [--out <dir>] [--keep] [--no-diagnose]
       kafka-why lab list
       kafka-why lab fetch
       kafka-why lab cluster [--brokers N] [--kraft] [--session-timeout-ms MS] [--keep]
       kafka-why lab live-latency [--runs N] [--faults zk-freeze,disk-full,kill] [--tick D] [--lag D] [--settle D] [--build DIR] [--timeout D] [--keep]

Runs a fault scenario on a real Kafka cluster on 127.0.0.1, records it under
test/incidents/lab-<scenario>/ and checks the product's diagnosis of the recording.
  list      scenarios, with the time, memory and ports each needs
  fetch     fetch Kafka's jars and the JMX exporter with Maven (lab/fetch-kafka.sh)
  cluster   start a cluster and keep it until Ctrl-C (prints bootstrap and exporter ports);
            --keep leaves its directory (configs, data, logs) in place after it stops
  live-latency  fault → alert on a real 3-broker cluster watched by serve (needs Redis on
            REDIS_URL or 127.0.0.1:6379, and root for disk-full); prints each leg of the delay
Exit codes: 0 diagnosis as expected (or recorded with --no-diagnose), 1 wrong diagnosis, 2 usage or lab error.`

/** `kafka-why lab`: reproduce an incident on real Kafka and diagnose the recording. */
export async function run(argv: string[]): Promise<number> {
  const [first, ...rest] = argv
  if (!first || first === '--help' || first === '-h') {
    console.log(USAGE)
    return first ? 0 : 2
  }
  if (first === 'list') return list()
  if (first === 'fetch') return spawnSync(join(LAB_DIR, 'fetch-kafka.sh'), [], { stdio: 'inherit' }).status ?? 2
  const unavailable = labUnavailableReason()
  if (unavailable) {
    console.error(`kafka-why lab: ${unavailable}`)
    return 2
  }
  if (first === 'cluster') return cluster(rest)
  if (first === 'live-latency') return liveLatency(rest)
  if (!SCENARIOS[first]) {
    console.error(`kafka-why lab: unknown scenario '${first}'\n\n${USAGE}`)
    return 2
  }
  let outDir: string | undefined
  let keep = false
  let diagnose = true
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]
    if (a === '--out' && rest[i + 1]) outDir = rest[++i]
    else if (a === '--keep') keep = true
    else if (a === '--no-diagnose') diagnose = false
    else {
      console.error(`kafka-why lab: unknown option '${a}'\n\n${USAGE}`)
      return 2
    }
  }
  try {
    const report = await runScenario(first, { outDir, keepWorkDir: keep, diagnose })
    for (const [k, v] of Object.entries(report.outcome.facts)) console.log(`  ${k}: ${v}`)
    if (report.unavailable) {
      console.log(`recorded; diagnosis not run: ${report.unavailable}`)
      return 0
    }
    if (!report.verdict) return 0
    console.log(`diagnosis of broker ${report.outcome.broker}: ${report.verdict.ruleIds.join(', ') || 'no cause'}`)
    console.log(`fault → top cause's evidence ${fmt(report.faultToMatchMs)}, fault → diagnosis in hand ${fmt(report.faultToDiagnosisMs)}`)
    if (report.problems.length) {
      console.error(`expectation not met: ${report.problems.join('; ')}`)
      return 1
    }
    console.log(`expected top cause ${report.outcome.expect.topRule}: ok`)
    return 0
  } catch (err) {
    console.error(`kafka-why lab ${first}: ${(err as Error).message}`)
    return 2
  }
}

function fmt(ms: number | undefined): string {
  return ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`
}

async function list(): Promise<number> {
  for (const [name, load] of Object.entries(SCENARIOS)) {
    try {
      const { scenario } = await load()
      console.log(`${name.padEnd(16)} ~${scenario.needs.seconds} s, ~${scenario.needs.memoryMb} MB, ports: ${scenario.needs.ports}\n${''.padEnd(16)} ${scenario.summary}`)
    } catch {
      console.log(`${name.padEnd(16)} (not available in this build)`)
    }
  }
  return 0
}

async function cluster(argv: string[]): Promise<number> {
  let brokers = 1
  let mode: LabMode = 'zk'
  let zkSessionTimeoutMs: number | undefined
  let keep = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--brokers') brokers = Number(argv[++i])
    else if (a === '--kraft') mode = 'kraft'
    else if (a === '--session-timeout-ms') zkSessionTimeoutMs = Number(argv[++i])
    else if (a === '--keep') keep = true
    else {
      console.error(`kafka-why lab cluster: unknown option '${a}'`)
      return 2
    }
  }
  if (!Number.isInteger(brokers) || brokers < 1 || brokers > 5) {
    console.error(`kafka-why lab cluster: --brokers must be 1..5, got '${brokers}'`)
    return 2
  }
  if (zkSessionTimeoutMs !== undefined && !(Number.isInteger(zkSessionTimeoutMs) && zkSessionTimeoutMs > 0)) {
    console.error('kafka-why lab cluster: --session-timeout-ms must be a positive number of milliseconds')
    return 2
  }
  // A directory of our own is left in place by stop(); the cluster's default temporary one is not.
  const dir = keep ? mkdtempSync(join(tmpdir(), 'kafka-why-lab-')) : undefined
  const c = await startCluster({ brokers, mode, zkSessionTimeoutMs, dir })
  console.log(`bootstrap ${c.bootstrap}${c.zkConnect ? `  zookeeper ${c.zkConnect}` : ''}`)
  for (const b of c.brokers) console.log(`broker ${b.id}: port ${b.port}, exporter ${b.exporterPort ?? '–'}, pid ${b.pid}, logs ${b.logDir}`)
  console.log(keep ? `Ctrl-C stops it; ${c.dir} is kept.` : 'Ctrl-C stops it.')
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
  await c.stop()
  if (keep) console.log(`kept ${c.dir}`)
  return 0
}

async function liveLatency(argv: string[]): Promise<number> {
  const opts: LiveLatencyOptions = { runs: 3, faults: LATENCY_FAULTS, log: (l) => console.log(l) }
  const engine: NonNullable<LiveLatencyOptions['engine']> = {}
  const fail = (m: string) => {
    console.error(`kafka-why lab live-latency: ${m}`)
    return 2
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = argv[i + 1]
    if (a === '--runs') {
      opts.runs = Number(v)
      if (!Number.isInteger(opts.runs) || opts.runs < 1) return fail(`--runs must be a positive whole number, got '${v}'`)
      i++
    } else if (a === '--faults') {
      const list = (v ?? '').split(',').filter(Boolean)
      const bad = list.filter((f) => !(LATENCY_FAULTS as readonly string[]).includes(f))
      if (!list.length || bad.length) return fail(`--faults takes a list of ${LATENCY_FAULTS.join(', ')}; got '${v ?? ''}'`)
      opts.faults = LATENCY_FAULTS.filter((f) => list.includes(f))
      i++
    } else if (a === '--tick' || a === '--lag' || a === '--settle') {
      if (v === undefined || parseInterval(v) === undefined) return fail(`${a} takes a duration (e.g. 1s, 15s), got '${v ?? ''}'`)
      engine[a.slice(2) as 'tick' | 'lag' | 'settle'] = v
      i++
    } else if (a === '--build') {
      if (!v || !existsSync(join(v, 'cli', 'kafka-why.mjs'))) return fail(`--build takes a kafka-why checkout (with cli/kafka-why.mjs), got '${v ?? ''}'`)
      opts.build = v
      i++
    } else if (a === '--keep') opts.keepDir = true
    else if (a === '--timeout') {
      const ms = v === undefined ? undefined : parseInterval(v)
      if (ms === undefined) return fail(`--timeout takes a duration, got '${v ?? ''}'`)
      opts.alertTimeoutMs = ms
      i++
    } else return fail(`unknown option '${a}'\n\n${USAGE}`)
  }
  if (Object.keys(engine).length) opts.engine = engine
  opts.redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  try {
    const results = await measureLiveLatency(opts)
    console.log('\nfault       run  rule                          fault→evidence  evidence→stored  stored→alert  evidence→alert  fault→alert  tick')
    for (const r of results) {
      const d = (a?: number, b?: number) => (a === undefined || b === undefined ? '–' : `${((a - b) / 1000).toFixed(2)} s`)
      console.log(
        [r.fault.padEnd(11), String(r.run).padEnd(4), (r.rule ?? r.note ?? '').padEnd(29), d(r.evidenceAt, r.injectedAt).padEnd(15), d(r.storedAt, r.evidenceAt).padEnd(16), d(r.alertAt, r.storedAt).padEnd(13), d(r.alertAt, r.evidenceAt).padEnd(15), d(r.alertAt, r.injectedAt).padEnd(12), r.tickMeanMs === undefined ? '–' : `${r.tickMeanMs.toFixed(0)} ms`].join(' '),
      )
    }
    for (const f of opts.faults) {
      const rs = results.filter((r) => r.fault === f)
      const med = (xs: (number | undefined)[]) => {
        const m = median(xs)
        return m === undefined ? '–' : `${(m / 1000).toFixed(2)} s`
      }
      console.log(`${f}: median evidence → alert ${med(rs.map((r) => (r.alertAt === undefined || r.evidenceAt === undefined ? undefined : r.alertAt - r.evidenceAt)))}, fault → alert ${med(rs.map((r) => (r.alertAt === undefined ? undefined : r.alertAt - r.injectedAt)))} (${rs.filter((r) => r.alertAt !== undefined).length} of ${rs.length} alerted)`)
    }
    return results.every((r) => r.alertAt !== undefined) ? 0 : 1
  } catch (err) {
    return fail((err as Error).message)
  }
}
