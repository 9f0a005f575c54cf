import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

// What `npm pack` ships must run on its own: installed into an empty prefix (dependencies from the
// registry, or npm's cache), outside this checkout, on a bare directory of a broker's real logs
// (seed 000's server.log and gc.log), with the rule pack it carries.
const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '../..')
let dir: string | undefined

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('npm pack', () => {
  it('installs into an empty prefix and diagnoses a log directory there', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-pack-'))
    const { stdout } = await run('npm', ['pack', ROOT, '--silent'], { cwd: dir, timeout: 120_000 })
    const tarball = stdout.trim().split('\n').pop()!
    const listing = await run('tar', ['tzf', path.join(dir, tarball)])
    // The package carries the code, rules and docs, not the test recordings.
    expect(listing.stdout).toContain('package/rules/jvm.rules')
    expect(listing.stdout).toContain('package/kafka-why.example.yaml')
    expect(listing.stdout).not.toContain('package/test/')
    const prefix = path.join(dir, 'prefix')
    await run('npm', ['install', '-g', '--prefix', prefix, path.join(dir, tarball), '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeout: 400_000 })
    const logs = path.join(dir, 'logs', 'broker-1')
    await mkdir(logs, { recursive: true })
    for (const f of ['server.log', 'gc.log']) await copyFile(path.join(ROOT, 'test/incidents/seed-000-stw-session-expiry/broker-1', f), path.join(logs, f))
    const { REDIS_URL: _r, ...env } = process.env
    const why = await run(path.join(prefix, 'bin', 'kafka-why'), ['why', '--replay', 'logs/broker-1', '--json'], { cwd: dir, env, timeout: 120_000 })
    const d = JSON.parse(why.stdout)
    expect(d.broker).toBe('1')
    expect(d.causes[0].ruleId).toBe('stw_pause_session_expiry')
    expect(await readdir(dir)).not.toContain('rules')
    // The digest chart renders from the installed package: vega, resvg's native binary and the font file it ships.
    const digest = await run(path.join(prefix, 'bin', 'kafka-why'), ['digest', '--replay', 'logs/broker-1', '--out', 'chart.png', '--spec', 'chart.json'], { cwd: dir, env, timeout: 120_000 })
    expect(digest.stdout).toMatch(/chart: chart\.png \(\d+ bytes\)/)
    const png = await readFile(path.join(dir, 'chart.png'))
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(JSON.parse(await readFile(path.join(dir, 'chart.json'), 'utf8')).$schema).toMatch(/vega-lite\/v5/)
  }, 600_000)
})
