import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { startLabRedis, type LabRedis } from '../../lab/redis-server.js'

// Redis dying in the middle of `replay`: the command must end with the one line every store outage
// gives and exit 1, never with a driver trace from a query nobody was awaiting any more. The Redis is
// a server of the test's own, killed with SIGKILL at several moments of the replay.

let redis: LabRedis | undefined
afterEach(async () => {
  await redis?.stop()
  redis = undefined
})

type Outcome = { code: number | null; stdout: string; stderr: string }

/** Runs replay against `url`, calling `onFirstOutput` once the ingest summary is printed. */
function replay(url: string, onFirstOutput: () => void): Promise<Outcome> {
  const { REDIS_URL: _ignored, ...env } = process.env
  // A 500 ms step makes the alert steps last about 5 s, so every kill below lands inside them (at 5 s
  // they ended within 1.5 s once reads got cheaper, and the last kill found the replay done).
  const child = spawn('node', ['cli/kafka-why.mjs', 'replay', 'test/incidents/lab-stw', '--step', '500ms', '--store'], {
    env: { ...env, REDIS_URL: url, KAFKA_WHY_REDIS_PREFIX: 'replay-killed:' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let told = false
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString()
    if (!told) {
      told = true
      onFirstOutput()
    }
  })
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    }),
  )
}

describe('replay while Redis is killed', () => {
  it.each([0, 150, 600, 1500])('killed %i ms into the alert steps: one line, exit 1', { timeout: 150_000 }, async (delayMs) => {
    const server = (redis = await startLabRedis())
    const outcome = await replay(server.url, () => setTimeout(() => void server.kill(), delayMs))
    expect(outcome.stderr).not.toMatch(/AbortError|MaxRetriesPerRequestError|Unhandled|^\s+at /m)
    expect(outcome.stdout).not.toMatch(/\d+ fired, \d+ updated, \d+ resolved/)
    expect(outcome.code).toBe(1)
    // Progress lines of a read that took over 5 s (a loaded machine) come before it; the failure is one line.
    const lines = outcome.stderr.trim().split('\n').filter((l) => !/^kafka-why: read \d+\.\d MiB, [\d,]+ lines; /.test(l))
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^kafka-why: cannot reach Redis at ${server.url}: `))])
  })
})
