import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { startCluster, type LabMode } from '../../lab/cluster.js'
import { LAB_DIR, labUnavailableReason } from '../../lab/kafka-runtime.js'
import { runScenario, SCENARIOS } from '../../lab/run-scenario.js'

const USAGE = `usage: kafka-why lab <scenario> [--out <dir>] [--keep] [--no-diagnose]
       kafka-why lab list
       kafka-why lab fetch
       kafka-why lab cluster [--brokers N] [--kraft] [--session-timeout-ms MS]

Runs a fault scenario on a real Kafka cluster on 127.0.0.1, records it under
test/incidents/lab-<scenario>/ and checks the product's diagnosis of the recording.
  list      scenarios, with the time, memory and ports each needs
  fetch     fetch Kafka's jars and the JMX exporter with Maven (lab/fetch-kafka.sh)
  cluster   start a cluster and keep it until Ctrl-C (prints bootstrap and exporter ports)
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
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--brokers') brokers = Number(argv[++i])
    else if (a === '--kraft') mode = 'kraft'
    else if (a === '--session-timeout-ms') zkSessionTimeoutMs = Number(argv[++i])
    else {
      console.error(`kafka-why lab cluster: unknown option '${a}'`)
      return 2
    }
  }
  const c = await startCluster({ brokers, mode, zkSessionTimeoutMs })
  console.log(`bootstrap ${c.bootstrap}${c.zkConnect ? `  zookeeper ${c.zkConnect}` : ''}`)
  for (const b of c.brokers) console.log(`broker ${b.id}: port ${b.port}, exporter ${b.exporterPort ?? '–'}, pid ${b.pid}, logs ${b.logDir}`)
  console.log('Ctrl-C stops it.')
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()))
  await c.stop()
  return 0
}
