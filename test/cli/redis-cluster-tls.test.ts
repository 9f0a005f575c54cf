import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLabRedisCluster, type LabRedisCluster } from '../../lab/redis-cluster.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// REDIS_CLUSTER_NODES with rediss:// entries: the store talks TLS to every node of a real cluster
// whose certificate comes from a CA of this test's own, trusted the way Node trusts a private CA
// (NODE_EXTRA_CA_CERTS). The cluster bus and replication run over TLS too.
const SEED_000 = 'test/incidents/seed-000-stw-session-expiry'

let dir: string
let cluster: LabRedisCluster
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kafka-why-tls-'))
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=kafka-why test CA')
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'node.key', '-out', 'node.csr', '-subj', '/CN=127.0.0.1')
  writeFileSync(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n')
  openssl('x509', '-req', '-in', 'node.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'node.crt', '-days', '2', '-extfile', 'san.cnf')
  cluster = await startLabRedisCluster({ tls: { certFile: path.join(dir, 'node.crt'), keyFile: path.join(dir, 'node.key'), caFile: path.join(dir, 'ca.crt') } })
})
afterAll(async () => {
  await cluster?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('store on a Redis Cluster over TLS (rediss:// in REDIS_CLUSTER_NODES)', () => {
  it('why writes and reads the incident over TLS when the CA is trusted, and says why in one line when it is not', async () => {
    const seeds = cluster.tlsNodesEnv!.split(',').slice(0, 2).join(',')
    const env = { REDIS_CLUSTER_NODES: seeds, KAFKA_WHY_REDIS_PREFIX: `kafka-why-test:${randomUUID()}:` }
    const trusted = await kafkaWhy(['why', '1', '--replay', SEED_000, '--json', '--store'], { ...env, NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.crt') })
    expect(trusted.code, trusted.stderr).toBe(0)
    expect(JSON.parse(trusted.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')
    const again = await kafkaWhy(['why', '1', '--at', '2018-08-14T02:17:00Z', '--since', '10m', '--json'], { ...env, NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.crt') })
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout).causes[0].ruleId).toBe('stw_pause_session_expiry')

    const untrusted = await kafkaWhy(['why', '1', '--at', '2018-08-14T02:17:00Z', '--since', '10m'], env)
    expect(untrusted.code).toBe(1)
    const lines = untrusted.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(new RegExp(`^kafka-why: cannot reach Redis Cluster at ${seeds.replace(/[.:/]/g, '\\$&')}: `))
  }, 180_000)
})
