import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeBigServerLog } from '../support/big-server-log.js'

// Every replay path keeps memory bounded, whatever the size of the logs: `why <broker> --replay`,
// `why --replay` (the cluster's answer, whose unnamed records wait for the end of their input) and
// `replay` (alerts over the recording). Each runs as the real command in a child process with a V8 heap
// of 96 MiB and a bound of 5,000 held signals (KAFKA_WHY_REPLAY_MAX_SIGNALS, the knob that scales the
// 200,000 default down with the input): a 16 MiB server.log of real broker lines (test/support/
// big-server-log.ts, 56 k signals) must be answered with exit 0 and a peak RSS under 320 MiB. Before,
// all three died of heap exhaustion (exit 134) on the same file and heap: `replay` and the cluster
// answer held every signal, the cluster answer also every unnamed one until the file's end. The 1 GiB
// figures at the default bound are in docs/security.md.

const MIB = Number(process.env.BIG_REPLAY_RSS_MIB ?? 24)
const HEAP_MIB = 128
const MAX_RSS_MIB = 352
const ROOT = path.join(import.meta.dirname, '..', '..')
let dir = ''
let file = ''

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'big-replay-rss-'))
  file = path.join(dir, 'server.log')
  await writeBigServerLog(file, MIB * 1024 ** 2)
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

type Run = { code: number | null; stdout: string; stderr: string; maxRssMiB: number; ms: number }

/** The CLI in a child with a small heap; its peak RSS as it reported it at exit (test/support/report-max-rss.mjs). */
function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, '--import', path.join(ROOT, 'test/support/report-max-rss.mjs'), path.join(ROOT, 'cli/kafka-why.mjs'), ...args], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: '', REDIS_CLUSTER_NODES: '', NO_COLOR: '1', TMPDIR: dir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 280_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      const kib = /max-rss-kib (\d+)/.exec(stderr)
      resolve({ code, stdout, stderr, maxRssMiB: kib ? Number(kib[1]) / 1024 : NaN, ms: performance.now() - t0 })
    })
  })
}

describe('adversarial/big-replay-rss', () => {
  it(`answers a ${MIB} MiB server.log on every replay path within ${MAX_RSS_MIB} MiB of RSS on a ${HEAP_MIB} MiB heap`, async () => {
    const env = { KAFKA_WHY_REPLAY_MAX_SIGNALS: '2000' }
    const [broker, cluster, replay] = await Promise.all([
      runCli(['why', '1', '--replay', file], env),
      runCli(['why', '--replay', file], env),
      runCli(['replay', file], env),
    ])
    for (const [name, r] of Object.entries({ broker, cluster, replay })) {
      expect(r.code, `${name}: ${r.stderr.slice(-600)}`).toBe(0)
      expect(r.maxRssMiB, name).toBeLessThan(MAX_RSS_MIB)
      // What was not kept is said, with the knob that keeps more.
      expect(r.stderr, name).toMatch(/these logs hold more than the 2,000 signals one replay keeps in memory: .* from \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ on \([\d,]+ older signals not kept; .*KAFKA_WHY_REPLAY_MAX_SIGNALS raises the bound/)
      // A read that takes more than the 5 s between progress lines says how far it got.
      if (r.ms > 8000) expect(r.stderr, name).toMatch(/^kafka-why: read \d+\.\d MiB, [\d,]+ lines; [\d,]+ signals held \(from /m)
    }
    expect(broker.stdout).toMatch(/^broker 1 of default/)
    expect(cluster.stdout).toMatch(/^cluster default/)
    expect(replay.stdout).toMatch(/^ingested \d+ signals from 1 files/)
    // The unnamed records' temporary file is gone once the answer is given.
    expect((await readdir(dir)).filter((f) => f.startsWith('kafka-why-spill-'))).toEqual([])
  }, 300_000)

  it('refuses a bound that is not a whole number of at least 1000 (exit 2, one line)', async () => {
    const r = await runCli(['replay', file], { KAFKA_WHY_REPLAY_MAX_SIGNALS: '12k' })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/KAFKA_WHY_REPLAY_MAX_SIGNALS: expected a whole number of signals of at least 1000, got '12k'/)
  }, 120_000)
})
