import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { diagnoseIncident, DiagnosisUnavailable, verdictProblems, type LabVerdict } from './diagnose-incident.js'
import { ensureKafkaRuntime, REPO_DIR } from './kafka-runtime.js'
import { incidentSlug } from './kafka-versions.js'
import { FaultUnavailable } from './faults/requirements.js'
import type { Scenario, ScenarioContext, ScenarioExpectation, ScenarioOutcome } from './scenario.js'

/** Scenario names → their modules, loaded only when run. */
export const SCENARIOS: Record<string, () => Promise<{ scenario: Scenario }>> = {
  stw: () => import('./scenarios/stw.js'),
  'stw-sigstop': () => import('./scenarios/stw-sigstop.js'),
  'stw-kraft': () => import('./scenarios/stw-kraft.js'),
  'stw-survived': () => import('./scenarios/stw-survived.js'),
  'roll-storm': () => import('./scenarios/roll-storm.js'),
  'group-churn': () => import('./scenarios/group-churn.js'),
  'down-conversion': () => import('./scenarios/down-conversion.js'),
  'disk-full': () => import('./scenarios/disk-full.js'),
  'log-dir-unreadable': () => import('./scenarios/log-dir-unreadable.js'),
  'disk-io-error': () => import('./scenarios/disk-io-error.js'),
  'broker-kill': () => import('./scenarios/broker-kill.js'),
  'under-min-isr': () => import('./scenarios/under-min-isr.js'),
  'zk-kill': () => import('./scenarios/zk-kill.js'),
  'rolling-restart': () => import('./scenarios/rolling-restart.js'),
  'zk-partition': () => import('./scenarios/zk-partition.js'),
  'heap-oom': () => import('./scenarios/heap-oom.js'),
  'retention-deletes': () => import('./scenarios/retention-deletes.js'),
  'reassignment': () => import('./scenarios/reassignment.js'),
  'partition-dir-removed': () => import('./scenarios/partition-dir-removed.js'),
  'cpu-starved': () => import('./scenarios/cpu-starved.js'),
  'direct-memory-oom': () => import('./scenarios/direct-memory-oom.js'),
  'threads-exhausted': () => import('./scenarios/threads-exhausted.js'),
  'oom-killed': () => import('./scenarios/oom-killed.js'),
  'slow-disk': () => import('./scenarios/slow-disk.js'),
  'unclean-election': () => import('./scenarios/unclean-election.js'),
  'broker-partitioned': () => import('./scenarios/broker-partitioned.js'),
  'follower-slowed': () => import('./scenarios/follower-slowed.js'),
  'quota-throttled': () => import('./scenarios/quota-throttled.js'),
  'sasl-auth-failure': () => import('./scenarios/sasl-auth-failure.js'),
  'tls-handshake-failure': () => import('./scenarios/tls-handshake-failure.js'),
  'tls-cert-expired': () => import('./scenarios/tls-cert-expired.js'),
  'kraft-quorum-loss': () => import('./scenarios/kraft-quorum-loss.js'),
  'broker-added': () => import('./scenarios/broker-added.js'),
  'group-scale-out': () => import('./scenarios/group-scale-out.js'),
  'stuck-consumer': () => import('./scenarios/stuck-consumer.js'),
  'consumer-paused': () => import('./scenarios/consumer-paused.js'),
  'consumer-stopped': () => import('./scenarios/consumer-stopped.js'),
  'consumer-stalled': () => import('./scenarios/consumer-stalled.js'),
  'consumer-slow-burst': () => import('./scenarios/consumer-slow-burst.js'),
  'handler-saturation': () => import('./scenarios/handler-saturation.js'),
  'disk-filling': () => import('./scenarios/disk-filling.js'),
  'log-dir-offline': () => import('./scenarios/log-dir-offline.js'),
  'kraft-no-controller': () => import('./scenarios/kraft-no-controller.js'),
}

/** The file in a lab incident that says which broker to diagnose and what the diagnosis must be. */
export const LAB_EXPECTATION_FILE = 'lab.json'

/** A lab incident's lab.json: read by the replay test. */
export type LabExpectationFile = {
  scenario: string
  /** The broker release it was recorded on; absent in recordings from before the lab ran several. */
  kafkaVersion?: string
  broker: string
  faultAt: string
  expect: ScenarioExpectation
}

/** Reads a recorded lab incident's expectation. */
export function readLabExpectation(dir: string): LabExpectationFile {
  return JSON.parse(readFileSync(join(dir, LAB_EXPECTATION_FILE), 'utf8')) as LabExpectationFile
}

/** Options for {@link runScenario}. */
export type RunOptions = {
  /** Incident directory; default test/incidents/lab-<name>, or lab-<name>-<version> on another release. */
  outDir?: string
  /** The broker release to run on (lab/kafka-versions.ts); default 3.9.1. */
  kafkaVersion?: string
  /** Keep the cluster's scratch directory (configs, data, full logs). */
  keepWorkDir?: boolean
  /** Skip the diagnosis step (record only). */
  diagnose?: boolean
  log?: (message: string) => void
  /** serve and its bot watching the cluster from before the fault (`--live`); only for a scenario that is `watchable`. */
  watch?: ScenarioContext['watch']
  /** Awaited once the scenario has recorded, before its scratch directory (the logs serve follows) is removed. */
  afterRun?: (outcome: ScenarioOutcome) => Promise<void>
}

/** A scenario run from start to verdict, with its timings. */
export type ScenarioReport = {
  outcome: ScenarioOutcome
  verdict?: LabVerdict
  /** Why there is no verdict (the `why` command is not in this build yet). */
  unavailable?: string
  /** Disagreements with the expectation; empty means the product named the right cause. */
  problems: string[]
  /** From fault injection to the verdict in hand (wall ms), recording and replay included. */
  faultToDiagnosisMs?: number
  /** From fault injection to the top cause's match time in the signals (ms). */
  faultToMatchMs?: number
  totalMs: number
  /** The cluster's scratch directory (gone afterwards unless kept). */
  workDir: string
}

/**
 * Runs one scenario on a fresh cluster, records its incident, then asks the product for its
 * diagnosis of the recorded incident and compares it with the scenario's expectation. The verdict and
 * timings are appended to the incident's README.
 */
export async function runScenario(name: string, options: RunOptions = {}): Promise<ScenarioReport> {
  const load = SCENARIOS[name]
  if (!load) throw new Error(`unknown scenario '${name}' (known: ${Object.keys(SCENARIOS).join(', ')})`)
  const { scenario } = await load()
  const cannot = scenario.unavailable?.()
  if (cannot) throw new FaultUnavailable(`${name} cannot run on this machine: ${cannot}`)
  if (options.watch && !scenario.watchable) throw new Error(`${name} does not start serve before its fault, so it cannot run live`)
  const log = options.log ?? ((m: string) => console.log(`[lab ${name}] ${m}`))
  const started = Date.now()
  const runtime = ensureKafkaRuntime(options.kafkaVersion)
  // A neutral name: brokers print their directories, and no log line may name the scenario.
  const workDir = mkdtempSync(join(tmpdir(), 'kafka-why-lab-'))
  const outDir = options.outDir ?? join(REPO_DIR, 'test', 'incidents', incidentSlug(name, runtime.version))
  let outcome: ScenarioOutcome
  try {
    outcome = await scenario.run({ runtime, outDir, workDir, log, watch: options.watch })
    await options.afterRun?.(outcome)
  } finally {
    if (!options.keepWorkDir) rmSync(workDir, { recursive: true, force: true })
    else log(`scratch directory kept: ${workDir}`)
  }
  log(`incident recorded in ${outDir}`)
  writeFileSync(join(outDir, LAB_EXPECTATION_FILE), JSON.stringify({ scenario: name, kafkaVersion: runtime.version, broker: outcome.broker, faultAt: new Date(outcome.faultAt).toISOString(), expect: outcome.expect }, null, 2) + '\n')
  if (options.diagnose === false) return { outcome, problems: [], totalMs: Date.now() - started, workDir }

  let verdict: LabVerdict | undefined
  let unavailable: string | undefined
  try {
    verdict = await diagnoseIncident(outDir, outcome.broker)
  } catch (err) {
    if (!(err instanceof DiagnosisUnavailable)) throw err
    unavailable = err.message
  }
  const diagnosedAt = Date.now()
  const problems = verdict ? verdictProblems(verdict, outcome.expect) : []
  const report: ScenarioReport = {
    outcome,
    verdict,
    unavailable,
    problems,
    faultToDiagnosisMs: verdict ? diagnosedAt - outcome.faultAt : undefined,
    faultToMatchMs: verdict?.matchedAt !== undefined ? verdict.matchedAt - outcome.faultAt : undefined,
    totalMs: diagnosedAt - started,
    workDir,
  }
  appendFileSync(join(outDir, 'README.md'), verdictSection(report))
  return report
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`
}

function verdictSection(r: ScenarioReport): string {
  if (!r.verdict) return `\n## Diagnosis at recording time\n\nNot run: ${r.unavailable ?? 'skipped'}.\n`
  const v = r.verdict
  return `
## Diagnosis at recording time

\`${v.via}\` (took ${seconds(v.tookMs)}):

${v.ruleIds.length ? v.ruleIds.map((id, i) => `${i + 1}. \`${id}\`: ${v.causes[i]}`).join('\n') : 'no cause matched'}
${v.nearMisses.length ? `\nNear misses:\n\n${v.nearMisses.map((n) => `- ${n}`).join('\n')}\n` : ''}
Expectation ${r.problems.length ? `NOT met: ${r.problems.join('; ')}` : 'met'}. Time from fault to the top cause's matching
evidence: ${seconds(r.faultToMatchMs)}; from fault to the diagnosis in hand (recording and replay included): ${seconds(r.faultToDiagnosisMs)}.
`
}
