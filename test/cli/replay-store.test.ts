import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisStore } from '../../engine/store/redis-store.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'

// With REDIS_URL set (a team's shared store), the quickstart's replays must not write the demo
// incident or anyone's logs into it: they replay in memory and say so. `--store` writes the replay
// there on purpose, and everything it created expires after 24 h; the team's own keys keep no expiry.
// Needs Redis on 127.0.0.1:6379. The command lines run in-process (REDIS_URL is read when a command
// runs); the commands' exit codes through a process are held by test/engine/cli-commands.test.ts.

const SEED_000 = 'test/incidents/seed-000-stw-session-expiry'
const DAY_MS = 24 * 3_600_000

describe('replays and the team store', () => {
  const prefixes: string[] = []
  const redis = new Redis(TEST_REDIS_URL)
  afterAll(async () => {
    await deletePrefixes(prefixes)
    redis.disconnect()
  })
  const fresh = () => {
    const p = `test-replay-store-${randomUUID()}:`
    prefixes.push(p)
    return p
  }
  const keysOf = async (prefix: string) => {
    const out: string[] = []
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      cursor = next
      out.push(...keys)
    } while (cursor !== '0')
    return out
  }

  it.each([
    [['why', '1', '--replay', SEED_000]],
    [['replay', SEED_000]],
    [['console', '-c', 'why 1']],
  ])('%j writes nothing into the store REDIS_URL names', { timeout: 90_000 }, async (argv) => {
    const prefix = fresh()
    const r = await kafkaWhyInProcess(argv, { REDIS_URL: TEST_REDIS_URL, KAFKA_WHY_REDIS_PREFIX: prefix })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('stw_pause_session_expiry')
    expect(await keysOf(prefix)).toEqual([])
    if (argv[0] !== 'console') expect(r.stderr).toContain('kafka-why: replaying into memory; REDIS_URL is not written (--store writes the replay there, kept for 24 h)')
  })

  it('with --store writes the replay there, every key it created expiring within 24 h, and leaves the team keys alone', { timeout: 90_000 }, async () => {
    const prefix = fresh()
    const team = new RedisStore({ url: TEST_REDIS_URL, prefix })
    await team.append([{ name: 'isr.shrink', kind: 'event', at: Date.now(), cluster: 'prod', broker: '2', labels: {}, source: 'log:server.log' }] as never)
    await team.close()
    const teamKeys = await keysOf(prefix)
    expect(teamKeys.length).toBeGreaterThan(0)

    const r = await kafkaWhyInProcess(['why', '1', '--replay', SEED_000, '--store'], { REDIS_URL: TEST_REDIS_URL, KAFKA_WHY_REDIS_PREFIX: prefix })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('kafka-why: the replay is kept in REDIS_URL for 24 h (1 broker(s) it created there expire then)')
    const replayed = (await keysOf(prefix)).filter((k) => k.includes('{perf-lab:'))
    expect(replayed.some((k) => k.includes(':sig:') || k.includes('sig:{perf-lab:1}'))).toBe(true)
    for (const k of replayed) {
      const ttl = await redis.pttl(k)
      expect(ttl, k).toBeGreaterThan(DAY_MS - 120_000)
      expect(ttl, k).toBeLessThanOrEqual(DAY_MS)
    }
    for (const k of teamKeys) expect(await redis.pttl(k), k).toBe(-1)
  })

  it('refuses --store when no store is configured', { timeout: 60_000 }, async () => {
    const r = await kafkaWhyInProcess(['why', '1', '--replay', SEED_000, '--store'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--store writes the replay into the configured store: set REDIS_URL or REDIS_CLUSTER_NODES')
  })
})
