import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteKeysWithPrefix } from '../../engine/store/redis-store.js'
import { startLabRedisCluster, type LabRedisCluster } from '../../lab/redis-cluster.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// The store-backed commands as a user runs them against a Redis Cluster: REDIS_CLUSTER_NODES names
// a few of its nodes, the commands find the rest, and what one command writes the next one reads.
const SEED_000 = 'test/incidents/seed-000-stw-session-expiry'

let cluster: LabRedisCluster
const prefixes: string[] = []
beforeAll(async () => {
  cluster = await startLabRedisCluster()
})
afterAll(async () => {
  if (!cluster) return
  const admin = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })))
  try {
    for (const prefix of prefixes) await deleteKeysWithPrefix(admin, prefix)
  } finally {
    admin.disconnect()
    await cluster.stop()
  }
})

const envFor = () => {
  const prefix = `kafka-why-test:${randomUUID()}:`
  prefixes.push(prefix)
  // Two seeds are enough: the client learns the other nodes from them.
  return { REDIS_CLUSTER_NODES: cluster.nodesEnv.split(',').slice(0, 2).join(','), KAFKA_WHY_REDIS_PREFIX: prefix }
}

describe('store-backed commands on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  it('why writes a recorded incident into the cluster and a later why reads it back', async () => {
    const env = envFor()
    // In-process (REDIS_CLUSTER_NODES is read when the command runs); the one-line errors below go
    // through a process, where everything the command prints is seen.
    const r = await kafkaWhyInProcess(['why', '1', '--replay', SEED_000, '--json', '--store'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')
    const again = await kafkaWhyInProcess(['why', '1', '--at', '2018-08-14T02:17:00Z', '--since', '10m', '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')
  }, 120_000)

  it('digest loads the incident into the cluster and prints the day', async () => {
    const r = await kafkaWhyInProcess(['digest'], { ...envFor(), NO_COLOR: '1' })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Daily Kafka digest: perf-lab/)
    expect(r.stdout).toContain('stw_pause_session_expiry')
  }, 120_000)

  it('serve refuses to start with both REDIS_URL and REDIS_CLUSTER_NODES, in one line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kafka-why-serve-'))
    try {
      writeFileSync(path.join(dir, 'kafka-why.yaml'), 'live:\n  listen: 127.0.0.1:0\n')
      const r = await kafkaWhy(['serve', '--config', path.join(dir, 'kafka-why.yaml')], { ...envFor(), REDIS_URL: 'redis://127.0.0.1:6379' })
      expect(r.code).toBe(1)
      const lines = `${r.stdout}${r.stderr}`.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain('cannot start: REDIS_URL and REDIS_CLUSTER_NODES are both set')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it('says in one line, password hidden, when no node answers or both variables are set', async () => {
    const down = await kafkaWhy(['why', '3'], { REDIS_CLUSTER_NODES: 'redis://:hunter2@127.0.0.1:1,127.0.0.1:2' })
    expect(down.code).toBe(1)
    expect(down.stderr.trim().split('\n')).toEqual(['kafka-why: cannot reach Redis Cluster at redis://:***@127.0.0.1:1,127.0.0.1:2: no cluster node answered'])
    const both = await kafkaWhy(['why', '3'], { ...envFor(), REDIS_URL: 'redis://127.0.0.1:6379' })
    expect(both.code).toBe(1)
    expect(both.stderr.trim().split('\n')).toEqual([
      'kafka-why: REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis or REDIS_CLUSTER_NODES for a Redis Cluster, not both',
    ])
  }, 120_000)
})
