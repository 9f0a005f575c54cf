import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** What a run of the kafka-why command printed and how it exited. */
export type CliResult = { code: number; stdout: string; stderr: string }

/**
 * Runs the kafka-why entry point as a user does, without the caller's REDIS_URL or REDIS_CLUSTER_NODES (the embedded store
 * unless `env` sets one). Never throws for a non-zero exit: the code is part of what tests assert.
 */
export async function kafkaWhy(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  const { REDIS_URL: _ignored, REDIS_CLUSTER_NODES: _ignoredToo, ...base } = process.env
  const entry = new URL('../../cli/kafka-why.mjs', import.meta.url).pathname
  try {
    const r = await run('node', [entry, ...args], { env: { ...base, ...env }, timeout: 90_000, cwd })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}
