import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCluster, type LabCluster, type LabMode } from '../../lab/cluster.js'
import { LAB_DIR, labUnavailableReason } from '../../lab/kafka-runtime.js'
import { checkKafkaVersion, kafkaVersionProfile } from '../../lab/kafka-versions.js'
import { LATENCY_FAULTS, measureLiveLatency, median, type LiveLatencyOptions } from '../../lab/live-latency.js'
import { liveSlackTable, measureLiveSlack, watchableScenarios } from '../../lab/live-slack.js'
import { runScenario, SCENARIOS } from '../../lab/run-scenario.js'
import { parseInterval } from '../../adapters/agent/parse-interval.js'
import { catalogueTable, runCatalogue } from '../../lab/run-all.js'
import type { LAB_ALL_OPTIONS, LAB_CLUSTER_OPTIONS, LAB_LATENCY_OPTIONS, LAB_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('lab', argv)

/** `kafka-why lab <scenario>`: reproduce an incident on real Kafka and diagnose the recording. */
export async function execute({ args: [scenario], options }: CommandInput<typeof LAB_OPTIONS>): Promise<number> {
  const unavailable = labUnavailable()
  if (unavailable !== undefined) return unavailable
  if (!SCENARIOS[scenario]) {
    console.error(`kafka-why lab: unknown scenario '${scenario}' (kafka-why lab list shows them)`)
    return 2
  }
  const { out: outDir, keep, diagnose, kafkaVersion } = options
  const badVersion = versionProblem(kafkaVersion)
  if (badVersion) {
    console.error(`kafka-why lab: ${badVersion}`)
    return 2
  }
  if (options.live) return live(scenario, options)
  if (options.runs !== '1') {
    console.error('kafka-why lab: --runs needs --live')
    return 2
  }
  try {
    const report = await runScenario(scenario, { outDir, keepWorkDir: keep, diagnose, kafkaVersion })
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
    console.log(report.outcome.expect.topRule === null ? 'a healthy control, and nothing above info fired: ok' : `expected top cause ${report.outcome.expect.topRule}: ok`)
    return 0
  } catch (err) {
    console.error(`kafka-why lab ${scenario}: ${(err as Error).message}`)
    return 2
  }
}

/** `kafka-why lab <scenario> --live`: fault → Slack through serve, over --runs runs, and the table. */
async function live(scenario: string, options: CommandInput<typeof LAB_OPTIONS>['options']): Promise<number> {
  const fail = (m: string) => {
    console.error(`kafka-why lab ${scenario} --live: ${m}`)
    return 2
  }
  const runs = Number(options.runs)
  if (!Number.isInteger(runs) || runs < 1) return fail(`--runs must be a positive whole number, got '${options.runs}'`)
  const timeoutMs = parseInterval(options.timeout)
  if (timeoutMs === undefined) return fail(`--timeout takes a duration (e.g. 60s), got '${options.timeout}'`)
  const watchable = await watchableScenarios()
  if (!watchable.includes(scenario)) return fail(`this scenario does not start serve before its fault; --live runs ${watchable.join(', ')}`)
  try {
    const results = await measureLiveSlack(scenario, runs, { timeoutMs, outDir: options.out, kafkaVersion: options.kafkaVersion, keepDir: options.keep, log: (l) => console.log(l) })
    console.log(`\n${liveSlackTable(results)}`)
    for (const r of results) if (r.dir) console.log(`run ${r.run}: serve.log, alerts.jsonl and slack.jsonl kept in ${r.dir}`)
    const invalid = results.flatMap((r) => r.problems)
    if (invalid.length) console.error(`Slack would have refused: ${[...new Set(invalid)].slice(0, 5).join('; ')}`)
    return results.every((r) => r.postedAt !== undefined) && invalid.length === 0 ? 0 : 1
  } catch (err) {
    return fail((err as Error).message)
  }
}

/** `kafka-why lab all`: every scenario in turn, then the catalogue table. */
export async function all({ options }: CommandInput<typeof LAB_ALL_OPTIONS>): Promise<number> {
  const unavailable = labUnavailable()
  if (unavailable !== undefined) return unavailable
  const only = options.only === undefined ? undefined : options.only.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = (only ?? []).filter((n) => !SCENARIOS[n])
  if (only && (only.length === 0 || unknown.length > 0)) {
    console.error(`kafka-why lab all: --only takes scenarios from kafka-why lab list; unknown: '${unknown.join(', ') || options.only}'`)
    return 2
  }
  const rows = await runCatalogue({ outRoot: options.out, only, log: (m) => console.log(m) })
  console.log(`\n${catalogueTable(rows)}`)
  return rows.every((r) => r.ok || r.top === 'skipped') ? 0 : 1
}

function fmt(ms: number | undefined): string {
  return ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`
}

/** Why the lab cannot run here (no Java, no Kafka jars) as one line and exit 2; undefined when it can. */
function labUnavailable(): number | undefined {
  const reason = labUnavailableReason()
  if (!reason) return undefined
  console.error(`kafka-why lab: ${reason}`)
  return 2
}

/** A one-line reason why `version` is not a release the lab can run, or undefined. */
function versionProblem(version: string): string | undefined {
  try {
    checkKafkaVersion(version)
    return undefined
  } catch (err) {
    return `--kafka-version: ${(err as Error).message}`
  }
}

/** `kafka-why lab fetch [version]`: Kafka's jars and the JMX exporter, fetched with Maven. */
export async function fetchKafka({ args: [version] }: CommandInput<Record<string, never>>): Promise<number> {
  return spawnSync(join(LAB_DIR, 'fetch-kafka.sh'), version ? [version] : [], { stdio: 'inherit' }).status ?? 2
}

/** `kafka-why lab list`: the scenarios and what each needs. */
export async function list(): Promise<number> {
  for (const [name, load] of Object.entries(SCENARIOS)) {
    try {
      const { scenario } = await load()
      const cannot = scenario.unavailable?.()
      const needs = scenario.requires ? `; needs ${scenario.requires}${cannot ? ` (not here: ${cannot})` : ''}` : ''
      console.log(`${name.padEnd(18)} ~${scenario.needs.seconds} s, ~${scenario.needs.memoryMb} MB, ports: ${scenario.needs.ports}${needs}\n${''.padEnd(18)} ${scenario.summary}`)
    } catch {
      console.log(`${name.padEnd(18)} (not available in this build)`)
    }
  }
  return 0
}

/** `kafka-why lab cluster`: a cluster kept until Ctrl-C. */
export async function cluster({ options }: CommandInput<typeof LAB_CLUSTER_OPTIONS>): Promise<number> {
  const unavailable = labUnavailable()
  if (unavailable !== undefined) return unavailable
  const brokers = Number(options.brokers)
  const mode: LabMode = options.kraft ? 'kraft' : 'zk'
  const zkSessionTimeoutMs = options.sessionTimeoutMs === undefined ? undefined : Number(options.sessionTimeoutMs)
  const kafkaVersion = options.kafkaVersion
  const badVersion = versionProblem(kafkaVersion)
  if (badVersion) {
    console.error(`kafka-why lab cluster: ${badVersion}`)
    return 2
  }
  const profile = kafkaVersionProfile(kafkaVersion)
  if (!profile.modes.includes(mode)) {
    console.error(`kafka-why lab cluster: Kafka ${kafkaVersion} runs in ${profile.modes.map((m) => (m === 'zk' ? 'ZooKeeper' : 'KRaft')).join(' or ')} mode only${mode === 'zk' ? ' (add --kraft)' : ''}`)
    return 2
  }
  const keep = options.keep
  if (!Number.isInteger(brokers) || brokers < 1 || brokers > 5) {
    console.error(`kafka-why lab cluster: --brokers must be 1..5, got '${options.brokers}'`)
    return 2
  }
  if (zkSessionTimeoutMs !== undefined && !(Number.isInteger(zkSessionTimeoutMs) && zkSessionTimeoutMs > 0)) {
    console.error('kafka-why lab cluster: --session-timeout-ms must be a positive number of milliseconds')
    return 2
  }
  // A directory of our own is left in place by stop(); the cluster's default temporary one is not.
  const dir = keep ? mkdtempSync(join(tmpdir(), 'kafka-why-lab-')) : undefined
  let c: LabCluster
  try {
    c = await startCluster({ brokers, mode, zkSessionTimeoutMs, dir, kafkaVersion })
  } catch (err) {
    console.error(`kafka-why lab cluster: ${(err as Error).message}`)
    return 2
  }
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

/** `kafka-why lab live-latency`: fault → alert delays on a real cluster watched by serve. */
export async function liveLatency({ options }: CommandInput<typeof LAB_LATENCY_OPTIONS>): Promise<number> {
  const unavailable = labUnavailable()
  if (unavailable !== undefined) return unavailable
  const opts: LiveLatencyOptions = { runs: Number(options.runs), faults: LATENCY_FAULTS, log: (l) => console.log(l), keepDir: options.keep }
  const engine: NonNullable<LiveLatencyOptions['engine']> = {}
  const fail = (m: string) => {
    console.error(`kafka-why lab live-latency: ${m}`)
    return 2
  }
  if (!Number.isInteger(opts.runs) || opts.runs < 1) return fail(`--runs must be a positive whole number, got '${options.runs}'`)
  if (options.faults !== undefined) {
    const wanted = options.faults.split(',').filter(Boolean)
    const bad = wanted.filter((f) => !(LATENCY_FAULTS as readonly string[]).includes(f))
    if (!wanted.length || bad.length) return fail(`--faults takes a list of ${LATENCY_FAULTS.join(', ')}; got '${options.faults}'`)
    opts.faults = LATENCY_FAULTS.filter((f) => wanted.includes(f))
  }
  for (const key of ['tick', 'lag', 'settle'] as const) {
    const v = options[key]
    if (v === undefined) continue
    if (parseInterval(v) === undefined) return fail(`--${key} takes a duration (e.g. 1s, 15s), got '${v}'`)
    engine[key] = v
  }
  if (options.build !== undefined) {
    if (!existsSync(join(options.build, 'cli', 'kafka-why.mjs'))) return fail(`--build takes a kafka-why checkout (with cli/kafka-why.mjs), got '${options.build}'`)
    opts.build = options.build
  }
  if (options.timeout !== undefined) {
    const ms = parseInterval(options.timeout)
    if (ms === undefined) return fail(`--timeout takes a duration, got '${options.timeout}'`)
    opts.alertTimeoutMs = ms
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
