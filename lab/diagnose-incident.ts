import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { LAB_CLUSTER_NAME } from './incident-recorder.js'
import { REPO_DIR } from './kafka-runtime.js'
import type { ScenarioExpectation } from './scenario.js'

/** The part of the engine's Diagnosis the lab checks and reports. */
export type LabVerdict = {
  /** Rule ids of the causes, best first. */
  ruleIds: string[]
  /** Cause texts, best first. */
  causes: string[]
  /** Each cause's severity, in the same order. */
  severities: string[]
  /** Epoch ms of the top cause's match (when its condition became true). */
  matchedAt?: number
  /** Near-miss messages, for the README of a negative control. */
  nearMisses: string[]
  /** How the diagnosis was obtained, e.g. "kafka-why why 2 --replay … --json". */
  via: string
  /** Wall time the diagnosis took (ms). */
  tookMs: number
}

type DiagnosisJson = {
  causes?: { ruleId: string; severity: string; cause: string; matchedAt?: number }[]
  nearMisses?: { ruleId: string; message: string }[]
}

/** Why the verdict could not be had: the `why` command is not in this build, or it failed. */
export class DiagnosisUnavailable extends Error {}

/** Runs a kafka-why command line and gives what it printed and its exit code. */
export type CliRunner = (args: string[], timeoutMs: number) => Promise<{ code: number | null; stdout: string; stderr: string }>

/** The kafka-why entry point in a process of its own, as a user runs it. */
const runCli: CliRunner = (args, timeoutMs) => {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_DIR, 'cli', 'kafka-why.mjs'), ...args], { cwd: REPO_DIR, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * Runs the product on a recorded incident exactly as a user would: `kafka-why why <broker> --replay
 * <dir> --json`, and reads the ranked causes from its JSON. Throws DiagnosisUnavailable when the
 * command is missing from this build or does not answer with a diagnosis. `run` runs the command line
 * (tests run it in their own process, where the modules are already loaded).
 */
export async function diagnoseIncident(dir: string, broker: string, timeoutMs = 120_000, run: CliRunner = runCli): Promise<LabVerdict> {
  const args = ['why', broker, '--replay', dir, '--json']
  const started = Date.now()
  const r = await run(args, timeoutMs)
  const tookMs = Date.now() - started
  if (/is not available in this build|unknown command/.test(r.stderr)) return diagnoseInProcess(dir, broker)
  let parsed: DiagnosisJson
  try {
    parsed = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as DiagnosisJson
  } catch {
    throw new DiagnosisUnavailable(`kafka-why ${args.join(' ')} exited ${r.code} without a JSON diagnosis:\n${r.stderr.slice(0, 2000)}${r.stdout.slice(0, 2000)}`)
  }
  const causes = parsed.causes ?? []
  return {
    ruleIds: causes.map((c) => c.ruleId),
    causes: causes.map((c) => c.cause),
    severities: causes.map((c) => c.severity),
    matchedAt: causes[0]?.matchedAt,
    nearMisses: (parsed.nearMisses ?? []).map((n) => `${n.ruleId}: ${n.message}`),
    via: `kafka-why ${args.map((a) => (a === dir ? dir.replace(`${REPO_DIR}/`, '') : a)).join(' ')}`,
    tookMs,
  }
}

/**
 * The same diagnosis without the CLI, for builds where `why` is not wired yet: the incident loaded
 * into the embedded store by the incident reader, the shipped rule pack, the engine's diagnose over
 * everything recorded, evaluated as of one second after the last signal.
 */
async function diagnoseInProcess(dir: string, broker: string): Promise<LabVerdict> {
  const started = Date.now()
  const { diagnoseBroker, loadIncident, loadRuleSet } = await import('../bot/engine-bridge.js')
  const { openStore } = await import('../engine/store/open-store.js')
  const store = openStore({})
  try {
    const loaded = await loadIncident(store, dir)
    if (loaded.lastAt === undefined) throw new DiagnosisUnavailable(`no signals read from ${dir}`)
    const rules = await loadRuleSet([join(REPO_DIR, 'rules')])
    if (rules.problems.length) throw new DiagnosisUnavailable(`rule pack does not load: ${rules.problems.join('; ')}`)
    const now = loaded.lastAt + 1_000
    // As `why`: a broker whose own data stops before the recording's end is answered at its last record.
    const to = loaded.ends.clamp(LAB_CLUSTER_NAME, broker, now)
    const d = await diagnoseBroker(rules.rules, store, { cluster: LAB_CLUSTER_NAME, broker, from: now - 86_400_000, to, now: to, dataEnds: loaded.ends })
    return {
      ruleIds: d.causes.map((c) => c.ruleId),
      causes: d.causes.map((c) => c.cause),
      severities: d.causes.map((c) => c.severity),
      matchedAt: d.causes[0]?.matchedAt,
      nearMisses: d.nearMisses.map((n) => `${n.ruleId}: ${n.message}`),
      via: 'engine diagnose over the incident reader and rules/ (in process; the why command is not in this build)',
      tookMs: Date.now() - started,
    }
  } finally {
    await store.close()
  }
}

/** The ways a verdict can disagree with a scenario's expectation; empty when it agrees. */
export function verdictProblems(verdict: LabVerdict, expect: ScenarioExpectation): string[] {
  const problems: string[] = []
  if (expect.topRule === null) {
    const loud = verdict.ruleIds.filter((_, i) => verdict.severities[i] !== 'info')
    if (loud.length) problems.push(`a healthy control, yet causes above info fired: ${loud.join(', ')}`)
  } else if (![expect.topRule, ...(expect.alsoTop ?? [])].includes(verdict.ruleIds[0])) {
    problems.push(`top cause is ${verdict.ruleIds[0] ?? 'nothing'}, expected ${expect.topRule} (causes: ${verdict.ruleIds.join(', ') || 'none'})`)
  }
  for (const r of expect.absentRules) if (verdict.ruleIds.includes(r)) problems.push(`${r} fired but must not`)
  return problems
}
