import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { freePort } from './free-port.js'
import { spawnManaged, type ManagedProcess } from './managed-process.js'
import { waitFor } from './wait-for.js'

const run = promisify(execFile)

/** One redis-server of a lab cluster; `tlsPort` when the cluster was started with TLS. */
export type LabClusterNode = { port: number; tlsPort?: number; process: ManagedProcess }

/**
 * A real Redis Cluster of our own on loopback ports (3 masters, 3 replicas by default), for what a
 * single Redis cannot show: keys spread over shards, MOVED replies, a master killed and a replica
 * promoted. No persistence; every process dies with the one that started it (see spawnManaged), and
 * stop() removes them by PID.
 */
export type LabRedisCluster = {
  /** `127.0.0.1:port,…` of every node, the form REDIS_CLUSTER_NODES takes. */
  nodesEnv: string
  /** With TLS: `rediss://127.0.0.1:tlsPort,…`, the nodes' TLS ports as REDIS_CLUSTER_NODES takes them. */
  tlsNodesEnv?: string
  nodes: LabClusterNode[]
  /** The node serving a key's slot as master now (asked of the cluster, so it follows failovers). */
  masterOf(key: string): Promise<LabClusterNode>
  /** SIGKILL of one node, the way a crashed or OOM-killed shard goes; resolves once it has gone. */
  kill(node: LabClusterNode): Promise<void>
  /** Resolves once every slot is served again (cluster_state:ok on a surviving node); gives the wait in ms. */
  waitHealthy(timeoutMs?: number): Promise<number>
  /** Stops every node still running and removes the directory. */
  stop(): Promise<void>
}

/** Options for {@link startLabRedisCluster}. */
export type LabRedisClusterOptions = {
  masters?: number
  replicasPerMaster?: number
  /** How long a master may be unreachable before its replica takes over (cluster-node-timeout). Default 1000 ms. */
  nodeTimeoutMs?: number
  /** Longest wait for the cluster to form. Default 30 s. */
  startTimeoutMs?: number
  /**
   * Also serve TLS (PEM files): each node gets a TLS port beside its plain one, and the cluster bus
   * and replication run over TLS; clients connecting over TLS are told the TLS ports.
   */
  tls?: { certFile: string; keyFile: string; caFile: string }
}

type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]]

/** Runs one question against one node over a connection of its own; undefined when it cannot answer. */
async function ask<T>(port: number, question: (r: Redis) => Promise<T>): Promise<T | undefined> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false, connectTimeout: 500, commandTimeout: 1000 })
  r.on('error', () => undefined)
  try {
    await r.connect()
    return await question(r)
  } catch {
    return undefined
  } finally {
    r.disconnect()
  }
}

async function clusterInfo(port: number): Promise<Record<string, string>> {
  const text = await ask(port, (r) => r.cluster('INFO') as Promise<string>)
  if (text === undefined) return {}
  return Object.fromEntries(text.split(/\r?\n/).filter((l) => l.includes(':')).map((l) => l.split(':', 2) as [string, string]))
}

/** Starts the nodes, joins them with `redis-cli --cluster create` and resolves once cluster_state is ok. */
export async function startLabRedisCluster(options: LabRedisClusterOptions = {}): Promise<LabRedisCluster> {
  const masters = options.masters ?? 3
  const replicas = options.replicasPerMaster ?? 1
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000
  const startTimeoutMs = options.startTimeoutMs ?? 30_000
  const dir = await mkdtemp(path.join(tmpdir(), 'kafka-why-redis-cluster-'))
  const nodes: LabClusterNode[] = []
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.process.stop(2000)))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freePort()
      // The bus port defaults to port + 10000, which may be taken or beyond 65535: pick it too.
      const busPort = await freePort()
      const tlsPort = options.tls ? await freePort() : undefined
      const nodeDir = path.join(dir, String(port))
      await mkdir(nodeDir)
      const args = [
        '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', nodeDir,
        '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeoutMs), '--cluster-port', String(busPort),
        // A replica only takes over once it has synced; by default the first sync waits 5 s.
        '--repl-diskless-sync-delay', '0',
      ]
      if (options.tls && tlsPort !== undefined) {
        args.push('--tls-port', String(tlsPort), '--tls-cert-file', options.tls.certFile, '--tls-key-file', options.tls.keyFile, '--tls-ca-cert-file', options.tls.caFile)
        args.push('--tls-cluster', 'yes', '--tls-replication', 'yes', '--tls-auth-clients', 'no')
      }
      nodes.push({ port, tlsPort, process: spawnManaged('redis-server', args, { stdoutFile: path.join(nodeDir, 'redis.log') }) })
    }
    const deadline = Date.now() + startTimeoutMs
    for (const n of nodes) {
      await waitFor(async () => Object.keys(await clusterInfo(n.port)).length > 0, {
        timeoutMs: Math.max(1, deadline - Date.now()),
        intervalMs: 50,
        what: `redis-server on ${n.port}`,
        abortIf: () => (n.process.alive() ? undefined : 'exited'),
      })
    }
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`)
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: Math.max(1000, deadline - Date.now()) })
    await waitFor(async () => (await Promise.all(nodes.map((n) => clusterInfo(n.port)))).every((info) => info.cluster_state === 'ok' && info.cluster_slots_ok === '16384'), {
      timeoutMs: Math.max(1, deadline - Date.now()),
      intervalMs: 100,
      what: 'Redis Cluster cluster_state:ok',
    })
    // A master killed before its replica synced would leave its slots unserved for good.
    const linkUp = async (n: LabClusterNode) => {
      const info = await ask(n.port, (r) => r.info('replication'))
      return info !== undefined && (/role:master/.test(info) || /master_link_status:up/.test(info))
    }
    await waitFor(async () => (await Promise.all(nodes.map(linkUp))).every(Boolean), {
      timeoutMs: Math.max(1, deadline - Date.now()),
      intervalMs: 100,
      what: 'Redis Cluster replicas in sync',
    })
  } catch (err) {
    await stop()
    throw err
  }
  const byPort = (port: number) => {
    const node = nodes.find((n) => n.port === port)
    if (!node) throw new Error(`no lab node on port ${port}`)
    return node
  }
  return {
    nodesEnv: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    tlsNodesEnv: options.tls ? nodes.map((n) => `rediss://127.0.0.1:${n.tlsPort}`).join(',') : undefined,
    nodes,
    async masterOf(key) {
      for (const n of nodes) {
        if (!n.process.alive()) continue
        const port = await ask(n.port, async (r) => {
          const slot = (await r.cluster('KEYSLOT', key)) as number
          const ranges = (await r.cluster('SLOTS')) as unknown as SlotRange[]
          return ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1]
        })
        if (port !== undefined) return byPort(port)
      }
      throw new Error(`no live node knows the master of '${key}'`)
    },
    async kill(node) {
      node.process.signal('SIGKILL')
      await node.process.exited
    },
    async waitHealthy(timeoutMs = 30_000) {
      const started = Date.now()
      // Healthy means every live node says ok and names only live masters for the 16384 slots: a
      // node that has not yet noticed a dead master still says ok, so the slot owners are checked too.
      const healthy = async (n: LabClusterNode) => {
        if ((await clusterInfo(n.port)).cluster_state !== 'ok') return false
        const ranges = await ask(n.port, (r) => r.cluster('SLOTS') as unknown as Promise<SlotRange[]>)
        if (!ranges) return false
        let covered = 0
        for (const [from, to, master] of ranges) {
          if (!nodes.some((m) => m.port === master[1] && m.process.alive())) return false
          covered += to - from + 1
        }
        return covered === 16384
      }
      await waitFor(async () => (await Promise.all(nodes.filter((n) => n.process.alive()).map(healthy))).every(Boolean), {
        timeoutMs,
        intervalMs: 50,
        what: 'Redis Cluster failover',
      })
      return Date.now() - started
    },
    stop,
  }
}
