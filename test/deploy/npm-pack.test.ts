import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

// The first hour from `npm pack`, outside this checkout: the tarball installed into an empty prefix
// (dependencies from the registry, or npm's cache), then, in an empty directory, every first-hour
// command with its defaults: `console -c "why 1"` and `digest` over the shipped demo incident, `why`
// on that incident and on a bare directory of a broker's real logs (seed 000's server.log and gc.log),
// and `kafka-why test` on the rule pack and rule tests the package carries, all passing.
const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '../..')
const DEMO = 'test/incidents/seed-000-stw-session-expiry'
let dir: string | undefined

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('npm pack: the first hour without a checkout', () => {
  it('installs into an empty prefix; console, digest, why and test pass there', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-pack-'))
    const { stdout } = await run('npm', ['pack', ROOT, '--silent'], { cwd: dir, timeout: 120_000 })
    const tarball = stdout.trim().split('\n').pop()!
    const listing = (await run('tar', ['tzf', path.join(dir, tarball)], { maxBuffer: 16 << 20 })).stdout
    // The code, rules, docs and the recordings the shipped rule tests replay; not the lab's 90 MB.
    expect(listing).toContain('package/rules/jvm.rules')
    expect(listing).toContain('package/kafka-why.example.yaml')
    expect(listing).toContain(`package/${DEMO}/broker-1/server.log`)
    expect(listing).not.toContain('package/rules/tests/fault-lab.yaml')
    expect(listing).not.toContain('package/test/incidents/lab-stw/')
    expect(listing).not.toMatch(/\.test\.ts$/m)

    const prefix = path.join(dir, 'prefix')
    await run('npm', ['install', '-g', '--prefix', prefix, path.join(dir, tarball), '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeout: 400_000 })
    const bin = path.join(prefix, 'bin', 'kafka-why')
    const work = path.join(dir, 'work')
    await mkdir(work)
    const { REDIS_URL: _r, REDIS_CLUSTER_NODES: _c, ...env } = process.env
    const kafkaWhy = (args: string[]) => run(bin, args, { cwd: work, env, timeout: 180_000, maxBuffer: 16 << 20 })

    const consoleWhy = await kafkaWhy(['console', '-c', 'why 1'])
    expect(consoleWhy.stdout).toContain('Broker 1 (perf-lab)')
    expect(consoleWhy.stdout).toContain('stop-the-world')

    const digest = await kafkaWhy(['digest', '--out', 'chart.png', '--spec', 'chart.json'])
    expect(digest.stdout).toContain('Daily Kafka digest: perf-lab')
    expect(digest.stdout).toMatch(/chart: chart\.png \(\d+ bytes\)/)
    const png = await readFile(path.join(work, 'chart.png'))
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(JSON.parse(await readFile(path.join(work, 'chart.json'), 'utf8')).$schema).toMatch(/vega-lite\/v5/)

    const installed = path.join(prefix, 'lib', 'node_modules', 'kafka-why')
    const demo = JSON.parse((await kafkaWhy(['why', '1', '--replay', path.join(installed, DEMO), '--json'])).stdout)
    expect(demo.causes[0].ruleId).toBe('stw_pause_session_expiry')

    const logs = path.join(work, 'logs', 'broker-1')
    await mkdir(logs, { recursive: true })
    for (const f of ['server.log', 'gc.log']) await copyFile(path.join(ROOT, DEMO, 'broker-1', f), path.join(logs, f))
    const own = JSON.parse((await kafkaWhy(['why', '--replay', 'logs/broker-1', '--json'])).stdout)
    expect(own.broker).toBe('1')
    expect(own.causes[0].ruleId).toBe('stw_pause_session_expiry')

    const tests = await kafkaWhy(['test'])
    expect(tests.stdout).toMatch(/^ok: \d+ passed, 0 failed$/m)
    expect(Number(/ok: (\d+) passed/.exec(tests.stdout)![1])).toBeGreaterThan(200)
    // Every command ran on the shipped pack: nothing was written into the working directory's rules.
    expect(await readdir(work)).not.toContain('rules')
  }, 900_000)
})
