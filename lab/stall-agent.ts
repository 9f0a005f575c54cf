import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { KafkaRuntime } from './kafka-runtime.js'
import { LAB_DIR } from './kafka-runtime.js'
import { waitFor } from './wait-for.js'

const SOURCE = join(LAB_DIR, 'java', 'kafkawhy', 'lab', 'SafepointStall.java')

/**
 * JVM options that make one broker stallable: the agent (compiled from lab/java on first use) and the
 * flags that drop safepoint polls from counted loops, which is what lets one thread hold up safepoint
 * synchronisation. Only the broker under test gets them.
 */
export function stallAgentJvmArgs(runtime: KafkaRuntime, triggerFile: string): string[] {
  return ['-XX:-UseCountedLoopSafepoints', '-XX:LoopStripMiningIter=0', `-javaagent:${buildStallAgent(runtime)}=${triggerFile}`]
}

/** Compiles lab/java/…/SafepointStall.java into an agent jar in the cache; rebuilt when the source is newer. */
export function buildStallAgent(runtime: KafkaRuntime): string {
  const out = join(runtime.cacheDir, 'stall-agent')
  const jar = join(out, 'safepoint-stall-agent.jar')
  if (existsSync(jar) && statSync(jar).mtimeMs >= statSync(SOURCE).mtimeMs) return jar
  rmSync(out, { recursive: true, force: true })
  mkdirSync(join(out, 'classes'), { recursive: true })
  const javac = spawnSync(runtime.javac, ['--release', '11', '-d', join(out, 'classes'), SOURCE], { encoding: 'utf8' })
  if (javac.status !== 0) throw new Error(`javac failed:\n${javac.stdout}${javac.stderr}`)
  writeFileSync(join(out, 'MANIFEST.MF'), 'Premain-Class: kafkawhy.lab.SafepointStall\n')
  const jarRun = spawnSync(runtime.jar, ['cfm', jar, join(out, 'MANIFEST.MF'), '-C', join(out, 'classes'), '.'], { encoding: 'utf8' })
  if (jarRun.status !== 0) throw new Error(`jar failed:\n${jarRun.stdout}${jarRun.stderr}`)
  return jar
}

/**
 * Asks the agent for one stall of `ms` and resolves with how long its loop really ran, once the
 * broker runs again.
 */
export async function triggerStall(triggerFile: string, ms: number, timeoutMs = ms + 30_000): Promise<number> {
  const done = `${triggerFile}.done`
  rmSync(done, { force: true })
  writeFileSync(`${triggerFile}.tmp`, String(ms))
  // A rename, so the agent never reads a half-written number.
  renameSync(`${triggerFile}.tmp`, triggerFile)
  await waitFor(() => existsSync(done), { timeoutMs, intervalMs: 200, what: 'safepoint stall' })
  const [, spun] = readFileSync(done, 'utf8').trim().split(/\s+/)
  return Number(spun)
}
