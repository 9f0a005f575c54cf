import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// `why --replay` on a bare directory of a broker's own logs, as a new user tries it: no incident.yaml,
// no broker id in the lines. Seed 000's real server.log and gc.log; healthy-day's real logs.
const SEED_000 = 'test/incidents/seed-000-stw-session-expiry/broker-1'
const HEALTHY = 'test/incidents/healthy-day/broker-2'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-why-'))
  for (const [from, to] of [
    [SEED_000, 'mylogs'],
    [SEED_000, 'kafka-broker-4'],
    [HEALTHY, 'healthy'],
  ]) {
    await mkdir(path.join(dir, to))
    for (const f of ['server.log', 'gc.log']) await copyFile(path.join(from, f), path.join(dir, to, f))
  }
  await writeFile(path.join(dir, 'core.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

// The command line runs in-process, one case after another (a process of its own would cost each case
// 2.5 s of CPU loading modules); why's exit codes through a process are held by
// test/engine/cli-commands.test.ts.
describe('cli/commands/why own logs', { timeout: 180_000 }, () => {
  it('diagnoses a bare log directory for the asked broker, saying how it read it', async () => {
    const r = await kafkaWhyInProcess(['why', '1', '--replay', path.join(dir, 'mylogs')])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^\d+ signals came from records that name no broker: read \d+ as broker 1$/m)
    expect(r.stderr).toContain('timestamps without an offset read as -04:00 (the offset gc.log carries)')
    expect(r.stdout).toMatch(/^1\. CRITICAL {2}JVM stop-the-world pause on broker 1/m)
    expect(r.stdout).not.toContain('no signals stored')
  })

  it('finds the one broker of a directory named after it when no broker is asked', async () => {
    const r = await kafkaWhyInProcess(['why', '--replay', path.join(dir, 'kafka-broker-4'), '--json'])
    expect(r.code).toBe(0)
    const d = JSON.parse(r.stdout)
    expect(d.broker).toBe('4')
    expect(d.causes[0].ruleId).toBe('stw_pause_session_expiry')
  })

  it('takes a broker per path with --broker ID=PATH and answers for the cluster when several are found', async () => {
    const r = await kafkaWhyInProcess(['why', '--broker', `2=${path.join(dir, 'mylogs')}`, '--broker', `3=${path.join(dir, 'healthy')}`])
    expect(r.code).toBe(0)
    // Broker 2's logs hold the stall, broker 3's a quiet day: 2 is the origin, 3 is told as quiet.
    expect(r.stdout).toMatch(/^origin: broker 2 \(CRITICAL stw_pause_session_expiry\)$/m)
    expect(r.stdout).toMatch(/^broker 3: nothing above info$/m)
    const one = await kafkaWhyInProcess(['why', '2', '--broker', `2=${path.join(dir, 'mylogs')}`, '--broker', `3=${path.join(dir, 'healthy')}`, '--json'])
    expect(JSON.parse(one.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')
  })

  // One code path attributes for both: replay once left records naming no broker unattributed, so no
  // per-broker rule saw them and it said "no alert would have fired" where why found a critical.
  it('replay attributes logs that name no broker as why does, and fires what why finds', async () => {
    const r = await kafkaWhyInProcess(['replay', path.join(dir, 'mylogs')])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/FIRING +critical stw_pause_session_expiry +default\/unnamed/)
    expect(r.stdout).not.toContain('no alert would have fired')
    const why = await kafkaWhyInProcess(['why', '--replay', path.join(dir, 'mylogs'), '--json'])
    expect(JSON.parse(why.stdout)).toMatchObject({ broker: 'unnamed', causes: [{ ruleId: 'stw_pause_session_expiry' }] })
  })

  it('answers healthy logs with exit 0 and what it read', async () => {
    const r = await kafkaWhyInProcess(['why', '2', '--replay', path.join(dir, 'healthy')])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^nothing abnormal in \d+ lines from 2 files \(span 2019-03-12 00:00:03Z → 2019-03-12 23:59:21Z\)$/m)
  })

  it('names input that is not a log and reads the rest', async () => {
    const r = await kafkaWhyInProcess(['why', '1', '--replay', path.join(dir, 'mylogs'), '--replay', path.join(dir, 'core.bin')])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(`skipped ${path.join(dir, 'core.bin')}: not a log: binary content`)
  })

  it.each([
    { args: ['why', '--broker', 'x'], message: "--broker: expected ID=PATH (e.g. --broker 3=/var/log/kafka-3), got 'x'" },
    { args: ['why', '1', '--replay', 'test/incidents', '--tz', 'Mars/Olympus'], message: "--tz: unknown zone 'Mars/Olympus'" },
  ])('refuses $args with one line', async ({ args, message }) => {
    const r = await kafkaWhyInProcess(args)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(message)
  })
})
