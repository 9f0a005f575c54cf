import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { Redis } from 'ioredis'
import kafkajs from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignalsTopicProducer } from '../../adapters/admin/signals-topic.js'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, STORE_OUTAGE_REREAD_MS } from '../../adapters/live/live-service.js'
import { createKeys } from '../../engine/store/keys.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { startCluster, type LabCluster } from '../../lab/cluster.js'
import { killAllManaged } from '../../lab/managed-process.js'
import { startLabRedisCluster, type LabClusterNode, type LabRedisCluster } from '../../lab/redis-cluster.js'
import type { Signal } from '../../signals/signal.js'

// A Redis Cluster master acknowledges writes its replica never gets: the replica is stopped (SIGSTOP)
// and its replication link closed while `serve` stores readings from the signals topic and commits
// their offsets, then the master is SIGKILLed and the replica, let go, takes over without them. serve sees the store go down and come
// back, reads the topic again from shortly before the outage, and the store ends up holding every
// reading produced.

const TOPIC = 'kafka-why-signals'
const S = 1000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: () => Promise<T | undefined>, timeoutMs: number, label: string): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await what()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`${label}: not reached in ${timeoutMs} ms`)
    await sleep(100)
  }
}

/** ZCARD of one key asked of one node directly (READONLY, so a replica answers too). */
async function zcardOn(node: LabClusterNode, key: string): Promise<number> {
  const r = new Redis({ port: node.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  r.on('error', () => undefined)
  try {
    await r.connect()
    await r.call('READONLY')
    return await r.zcard(key)
  } finally {
    r.disconnect()
  }
}

let kafka: LabCluster
let redis: LabRedisCluster
beforeAll(async () => {
  ;[kafka, redis] = await Promise.all([startCluster({ brokers: 1, mode: 'zk', heapMb: 256, exporter: false }), startLabRedisCluster({ nodeTimeoutMs: 1000 })])
  const admin = new kafkajs.Kafka({ brokers: [kafka.bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: TOPIC, numPartitions: 2, replicationFactor: 1 }] })
  await admin.disconnect()
}, 180_000)

afterAll(async () => {
  await redis?.stop()
  await kafka?.stop()
  killAllManaged()
})

describe('serve on a Redis Cluster whose master dies with writes its replica never got', () => {
  it('reads the signals topic again from before the outage, so the store ends up with every reading', { timeout: 180_000 }, async () => {
    const prefix = `kafka-why-test:${randomUUID()}:`
    const store = new RedisStore({ clusterNodes: redis.nodesEnv, prefix, connectTimeoutMs: 1000, commandTimeoutMs: 2000 })
    const config = parseLiveConfig(`
live:
  listen: 127.0.0.1:0
  engine: { enabled: false }
  signals_topic: { brokers: [${JSON.stringify(kafka.bootstrap)}], topic: ${TOPIC}, group: failover-engines, session_timeout: 10s }
`)
    const lines: { msg: string; fields: Record<string, unknown> }[] = []
    const keep =
      (level: string) =>
      (...args: unknown[]) => {
        const fields = typeof args[0] === 'object' && args[0] !== null ? (args[0] as Record<string, unknown>) : {}
        const msg = String(args.find((a) => typeof a === 'string') ?? '')
        lines.push({ msg: `${level} ${msg}`, fields })
      }
    const log = { info: keep('info'), warn: keep('warn'), error: keep('error') }
    const service = await startLiveService({ config, store, log, env: {} })
    const producer = new SignalsTopicProducer({ brokers: [kafka.bootstrap], topic: TOPIC, clientId: 'kafka-why-agent-1' })
    const key = createKeys(prefix).signal('c', '1', 'fd.open')
    const produced: Signal[] = []
    let feeding = true
    let n = 0
    const feed = (async () => {
      while (feeding) {
        const s: Signal = { name: 'fd.open', at: Date.now(), cluster: 'c', broker: '1', value: 1000 + (n++ % 100), source: 'agent:lab-host:/proc/4242' }
        await producer.send([s])
        produced.push(s)
        await sleep(50)
      }
    })()
    try {
      const stored = async () => (await store.query({ cluster: 'c', broker: '1', names: ['fd.open'], from: 0, to: Date.now() + 60_000 })).length
      await until(async () => ((await stored()) >= 20 ? true : undefined), 60_000, 'readings flowing into the store')

      const master = await redis.masterOf(key)
      const replicaPort = await (async () => {
        const r = new Redis({ port: master.port, host: '127.0.0.1' })
        try {
          const info = (await r.info('replication')) as string
          return Number(/slave0:ip=[^,]+,port=(\d+)/.exec(info)![1])
        } finally {
          r.disconnect()
        }
      })()
      const replica = redis.nodes.find((x) => x.port === replicaPort)!

      // The replica stops and its link is cut (what the kernel had buffered for it still arrives); the
      // master goes on acknowledging into its backlog, serve goes on committing.
      replica.process.signal('SIGSTOP')
      const stoppedAt = Date.now()
      const m = new Redis({ port: master.port, host: '127.0.0.1' })
      try {
        expect(await m.client('KILL', 'TYPE', 'replica')).toBe(1)
      } finally {
        m.disconnect()
      }
      await sleep(2000)
      const onMaster = await zcardOn(master, key)
      await redis.kill(master)
      const killedAt = Date.now()
      replica.process.signal('SIGCONT')
      // What the replica holds once it has applied what reached it: its master is dead, nothing more can.
      await sleep(500)
      const onReplica = await zcardOn(replica, key)
      const failoverMs = await redis.waitHealthy(30_000)
      await sleep(3000)
      feeding = false
      await feed

      const missing = await until(
        async () => {
          const have = new Set((await store.query({ cluster: 'c', broker: '1', names: ['fd.open'], from: 0, to: Date.now() + 60_000 })).map((s) => s.at))
          const gone = produced.filter((s) => !have.has(s.at))
          return gone.length === 0 ? gone : undefined
        },
        30_000,
        'every reading in the store',
      ).catch(async () => {
        const have = new Set((await store.query({ cluster: 'c', broker: '1', names: ['fd.open'], from: 0, to: Date.now() + 60_000 })).map((s) => s.at))
        return produced.filter((s) => !have.has(s.at))
      })
      // serve saw the outage end and read the topic again from before it.
      const reread = lines.find((l) => /signals topic: reading \d+ messages of partitions/.test(l.msg)) ?? { msg: 'no re-read', fields: {} }
      const load = os.loadavg().map((x) => x.toFixed(2)).join(' ')
      console.log(
        `store failover: replica stopped ${killedAt - stoppedAt} ms before the master's SIGKILL; master held ${onMaster} readings, the replica ${onReplica}; ` +
          `slots served again ${failoverMs} ms after the kill; ${reread.msg.replace(/^info (\{[^}]*\} )?/, '')}; ${produced.length} produced, ${missing.length} missing at the end; load average ${load}`,
      )
      // The loss was real: the master had acknowledged readings the replica never got...
      expect(onReplica).toBeLessThan(onMaster)
      expect(lines.some((l) => l.msg.startsWith('error store: append failed'))).toBe(true)
      // ...and reading the topic again from before the outage brought them all back (without it, 31
      // of 133 stayed missing in a run with the re-read switched off).
      expect(missing).toEqual([])
      expect(reread.msg).toMatch(/signals topic: reading \d+ messages/)
      expect(Number(/reading (\d+) messages/.exec(reread.msg)?.[1])).toBeGreaterThanOrEqual(onMaster - onReplica)
      expect(STORE_OUTAGE_REREAD_MS).toBeGreaterThan(killedAt - stoppedAt)
    } finally {
      feeding = false
      await feed
      await producer.close()
      await service.stop()
      await store.close()
    }
  })
})
