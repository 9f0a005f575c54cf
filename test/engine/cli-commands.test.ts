import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { kafkaWhy } from '../support/kafka-why-cli.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'
import { deletePrefixes } from '../support/redis-prefix.js'

// The why and replay commands end to end, as a user runs them: through the kafka-why entry point,
// over the shipped rule pack and a recorded incident. Each command's exit codes (0, 1 and 2) are held
// through a spawned process; the rest runs the same command line in-process, which spares each call
// the 2.5 s of CPU a process spends loading its modules.
const SEED_000 = 'test/incidents/seed-000-stw-session-expiry'

describe('cli/commands/why', () => {
  it('diagnoses the recorded STW incident on the embedded store', async () => {
    const r = await kafkaWhy(['why', 'broker-1', '--replay', SEED_000, '--json'])
    expect(r.code).toBe(0)
    const d = JSON.parse(r.stdout)
    expect(d.cluster).toBe('perf-lab')
    expect(d.causes[0].ruleId).toBe('stw_pause_session_expiry')
    expect(d.causes[0].evidence.filter((e: { consequence?: boolean }) => !e.consequence).map((e: { signal: string }) => e.signal)).toContain('zk.session_timeout')
  })

  it('reads and writes Redis when REDIS_URL is set and the replay asks for it with --store', async () => {
    const prefix = `test-why-${randomUUID()}:`
    const url = 'redis://127.0.0.1:6379'
    try {
      const r = await kafkaWhyInProcess(['why', '1', '--replay', SEED_000, '--json', '--store'], { REDIS_URL: url, KAFKA_WHY_REDIS_PREFIX: prefix })
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')
      const again = await kafkaWhyInProcess(['why', '1', '--at', '2018-08-14T02:17:00Z', '--since', '10m', '--json'], { REDIS_URL: url, KAFKA_WHY_REDIS_PREFIX: prefix })
      expect(JSON.parse(again.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')
    } finally {
      await deletePrefixes([prefix], url)
    }
  })

  it('says in one line that Redis is unreachable and exits 1', async () => {
    const r = await kafkaWhy(['why', '3'], { REDIS_URL: 'redis://127.0.0.1:1' })
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual(['kafka-why: cannot reach Redis at redis://127.0.0.1:1: connection refused'])
  })

  it.each([
    { args: ['why'], code: 2, message: 'why needs a broker', spawned: true },
    { args: ['why', '3', '--since', 'banana'], code: 2, message: "--since: expected a duration such as 15s, 10m or 1h, got 'banana'" },
    { args: ['why', '3', '--at', 'yesterday'], code: 2, message: '--at: expected an ISO-8601 time' },
    { args: ['why', '3', '--since=-5m'], code: 2, message: "--since: expected a positive duration, got '-5m'" },
    { args: ['replay', 'x', '--step', '0s'], code: 2, message: '--step must be longer than 0' },
    { args: ['why', '3'], code: 1, message: 'no signals stored yet', spawned: true },
    { args: ['why', '7', '--replay', SEED_000], code: 1, message: 'no signals stored for broker 7 (known brokers: perf-lab/1)' },
    { args: ['why', '1', '--rules', 'no/such/dir'], code: 2, message: '--rules: no such file or directory: no/such/dir' },
    { args: ['replay', 'no/such/dir'], code: 2, message: 'no such file or directory: no/such/dir' },
  ])('rejects $args clearly', async ({ args, code, message, spawned }) => {
    const r = spawned ? await kafkaWhy(args) : await kafkaWhyInProcess(args)
    expect(r.code).toBe(code)
    expect(r.stderr).toContain(message)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })
})

describe('cli/commands/replay', () => {
  it('prints the alerts in time order as they would have fired, each resolved later or named as still firing at the end', async () => {
    const r = await kafkaWhy(['replay', SEED_000, '--json'])
    expect(r.code).toBe(0)
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(events[0]).toMatchObject({ type: 'firing', ruleId: 'stw_pause_session_expiry', broker: '1', cluster: 'perf-lab' })
    const times = events.map((e) => (e.type === 'resolved' ? e.resolvedAt : e.type === 'firing' ? e.firedAt : e.lastSeenAt))
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    const endsOpen = /(\d+) still firing when the data ends \(([^)]+)\): (.*)/.exec(r.stderr)
    for (const fired of events.filter((e) => e.type === 'firing')) {
      const resolved = events.some((e) => e.type === 'resolved' && e.fingerprint === fired.fingerprint && e.resolvedAt > fired.firedAt)
      expect(resolved || Boolean(endsOpen?.[3].includes(`${fired.ruleId} ${fired.cluster}/${fired.broker}`))).toBe(true)
    }
  })

  // A recording that ends while its fault is on: the disk of broker 3 filled at 12:03:45 and the
  // data ends at 12:03:55. Ticking on past the data once fired rules whose `not` parts only held
  // because nothing more was recorded (leader_election_storm, advertised_listener_unreachable at 12:09).
  it('evaluates no window past the last recorded signal', async () => {
    const r = await kafkaWhyInProcess(['replay', 'test/incidents/lab-disk-full', '--json'])
    expect(r.code).toBe(0)
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    const last = Date.parse('2026-12-01T12:03:55Z')
    for (const e of events) expect(Math.max(e.firedAt ?? 0, e.resolvedAt ?? 0, e.lastSeenAt ?? 0)).toBeLessThanOrEqual(last + 1000)
    expect(events.filter((e) => e.ruleId === 'leader_election_storm')).toEqual([])
    expect(r.stderr).toMatch(/still firing when the data ends \(2026-12-01 12:03:5\dZ\): .*disk_full lab\/3/)
  })
})
