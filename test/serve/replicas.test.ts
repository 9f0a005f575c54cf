import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import kafkajs from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignalsTopicProducer, signalKey } from '../../adapters/admin/signals-topic.js'
import { HostAgent } from '../../adapters/agent/host-agent.js'
import type { Health } from '../../adapters/live/live-service.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { startCluster, type LabCluster } from '../../lab/cluster.js'
import { killAllManaged } from '../../lab/managed-process.js'
import type { Signal } from '../../signals/signal.js'
import { freePort } from '../adapters/prometheus/jmx-jvm.js'
import { SlackStandIn, type RecordedCall } from '../bot/support/slack-stand-in.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'

// Three `serve` processes, one consumer group on a 6-partition signals topic of a real lab broker, one
// Redis, one Slack stand-in. Agents' readings stream in for a dozen brokers; one broker runs out of file
// descriptors (fd_exhaustion, a shipped rule). Mid-incident the replica reading the most partitions is
// SIGKILLed: its partitions must reach the survivors within the group's session timeout, nothing
// produced may be missing from the store, and Slack must see the incident once, its updates after the
// kill, one resolved notice, and one digest per scheduled minute.

const TOPIC = 'kafka-why-signals'
const GROUP = 'kafka-why-replicas'
const PARTITIONS = 6
const SESSION_TIMEOUT_MS = 10_000
/** Survivors notice the rebalance at their next heartbeat or after a fetch's long poll (5 s): the margin. */
const REASSIGN_MARGIN_MS = 15_000
const KEEP_FIRING = '30s'
const CLUSTER = 'lab'
const CHANNEL = 'C0LAB'
const S = 1000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: () => Promise<T | undefined> | T | undefined, timeoutMs: number, label: string): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await what()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`${label}: not reached in ${timeoutMs} ms`)
    await sleep(200)
  }
}

/** The partition kafkajs' default partitioner (Java's murmur2) puts a key in, as the agents' producer does. */
const partitioner = kafkajs.Partitioners.DefaultPartitioner()
const partitionOf = (key: string) =>
  partitioner({
    topic: TOPIC,
    partitionMetadata: Array.from({ length: PARTITIONS }, (_, i) => ({ partitionId: i, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0 })),
    message: { key, value: '' },
  })

type Replica = { name: string; child: ChildProcess; url: string; lines: Record<string, any>[]; exited: Promise<number | null> }

async function health(r: Replica): Promise<Health | undefined> {
  try {
    const res = await fetch(`${r.url}/healthz`, { signal: AbortSignal.timeout(2000) })
    return (await res.json()) as Health
  } catch {
    return undefined
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-replicas-'))
const prefix = `kafka-why-test:replicas:${randomUUID()}:`
let cluster: LabCluster
let slack: SlackStandIn
const replicas: Replica[] = []

beforeAll(async () => {
  cluster = await startCluster({ brokers: 1, mode: 'zk', heapMb: 256, exporter: false, brokerConfig: { 'group.initial.rebalance.delay.ms': '0' } })
  const admin = new kafkajs.Kafka({ brokers: [cluster.bootstrap], logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1 }] })
  await admin.disconnect()
  slack = await new SlackStandIn().start()
}, 180_000)

afterAll(async () => {
  for (const r of replicas) r.child.kill('SIGKILL')
  await Promise.all(replicas.map((r) => r.exited))
  await slack?.stop()
  await cluster?.stop()
  killAllManaged()
  await deletePrefixes([prefix])
  rmSync(dir, { recursive: true, force: true })
})

async function startReplica(name: string, config: string): Promise<Replica> {
  const port = await freePort()
  const { REDIS_CLUSTER_NODES: _none, ...base } = process.env
  const env = {
    ...base,
    REDIS_URL: TEST_REDIS_URL,
    KAFKA_WHY_REDIS_PREFIX: prefix,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_SIGNING_SECRET: 'replicas-secret',
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    HOST: '127.0.0.1',
  }
  const child = spawn('node', ['cli/kafka-why.mjs', 'serve', '--config', config, '--listen', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: Record<string, any>[] = []
  let rest = ''
  const onData = (d: Buffer) => {
    rest += d.toString('utf8')
    const parts = rest.split('\n')
    rest = parts.pop()!
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l) as Record<string, any>)
      } catch {
        lines.push({ level: 'raw', msg: l })
      }
    }
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  const r: Replica = { name, child, url: `http://127.0.0.1:${port}`, lines, exited }
  replicas.push(r)
  await until(async () => ((await health(r))?.topic?.up ? true : undefined), 60_000, `${name} up`)
  return r
}

describe('serve replicas on one consumer group, one Redis, one Slack', () => {
  it('a replica SIGKILLed mid-incident: its partitions move within the session timeout, nothing is lost, Slack hears each thing once', { timeout: 600_000 }, async () => {
    const config = path.join(dir, 'kafka-why.yaml')
    writeFileSync(
      config,
      `clusters:
  ${CLUSTER}: { brokers: [${JSON.stringify(cluster.bootstrap)}], channel: ${CHANNEL} }
time_zone: UTC
digest: { schedule: "* * * * *" }
live:
  engine: { tick: 1s, keep_firing: ${KEEP_FIRING} }
  signals_topic: { brokers: [${JSON.stringify(cluster.bootstrap)}], topic: ${TOPIC}, group: ${GROUP}, session_timeout: ${SESSION_TIMEOUT_MS / S}s }
`,
    )
    for (const name of ['a', 'b', 'c']) await startReplica(name, config)

    // The group settles: every partition read by exactly one of the three.
    const assignment = async (rs: Replica[]) => {
      const parts = await Promise.all(rs.map(async (r) => (await health(r))?.topic?.partitions ?? []))
      const all = parts.flat()
      return { parts, complete: all.length === PARTITIONS && new Set(all).size === PARTITIONS }
    }
    const settled = await until(
      async () => {
        const a = await assignment(replicas)
        return a.complete && a.parts.every((p) => p.length > 0) ? a.parts : undefined
      },
      60_000,
      'three-way assignment',
    )
    const allUpAt = Date.now()

    // Agents' readings for brokers that cover every partition, through the agents' producer.
    const brokers: string[] = []
    const covered = new Set<number>()
    for (let b = 1; covered.size < PARTITIONS || brokers.length < 12; b++) {
      brokers.push(String(b))
      covered.add(partitionOf(signalKey({ cluster: CLUSTER, broker: String(b) })))
    }
    const producer = new SignalsTopicProducer({ brokers: [cluster.bootstrap], topic: TOPIC, clientId: 'kafka-why-agent-test' })
    const agents = brokers.map((broker) => new HostAgent({ cluster: CLUSTER, broker, pid: '1', sink: () => undefined, host: 'lab-host' }))
    const produced = new Map<string, number>()
    const count = (signals: Signal[]) => {
      for (const s of signals) produced.set(`${s.broker}\u0000${s.name}`, (produced.get(`${s.broker}\u0000${s.name}`) ?? 0) + 1)
    }
    let feeding = true
    let reading = 0
    const feed = (async () => {
      while (feeding) {
        const at = Date.now()
        reading++
        const signals = agents.flatMap((a, i) => a.toSignals({ pid: 4000 + i, fdOpen: 900 + (reading % 50), fdMax: 4096, mmapCount: 2000 + reading, mmapMax: 65530 }, at))
        await producer.send(signals)
        count(signals)
        await sleep(500)
      }
    })()

    // The victim reads the most partitions; the incident is on a broker whose partition it reads.
    const victimIndex = settled.reduce((best, p, i) => (p.length > settled[best].length ? i : best), 0)
    const victim = replicas[victimIndex]
    const survivors = replicas.filter((r) => r !== victim)
    const sick = brokers.find((b) => settled[victimIndex].includes(partitionOf(signalKey({ cluster: CLUSTER, broker: b }))))!
    let incident = true
    let line = 4000
    const evidence = (async () => {
      while (incident) {
        const at = Date.now()
        const signal: Signal = {
          name: 'fd.exhausted',
          at,
          cluster: CLUSTER,
          broker: sick,
          source: `log:/var/log/kafka/server.log:${++line}`,
          text: `[${new Date(at).toISOString().replace('T', ' ').replace('Z', '').replace('.', ',')}] ERROR Error while accepting connection (kafka.network.Acceptor)\njava.io.IOException: Too many open files`,
        }
        await producer.send([signal])
        count([signal])
        await sleep(1000)
      }
    })()

    const topLevel = (c: RecordedCall) => c.method === 'chat.postMessage' && c.status === 200 && c.args.thread_ts === undefined
    const firingPosts = () => slack.calls.filter((c) => topLevel(c) && /^Firing: /.test(String(c.args.text)))
    await slack.waitFor(() => firingPosts().length > 0, 60_000)
    const firedSeenAt = Date.now()
    expect(String(firingPosts()[0].args.text)).toMatch(new RegExp(`^Firing: Broker ${sick} ran out of file descriptors`))

    // Mid-incident: the victim dies without a word to the group.
    await sleep(10_000)
    const kafka = new kafkajs.Kafka({ brokers: [cluster.bootstrap], logLevel: kafkajs.logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    victim.child.kill('SIGKILL')
    const killedAt = Date.now()
    expect(await victim.exited).toBe(null)
    // What the victim's partitions held beyond their committed offsets at the kill: the new owner must read it.
    const [committed] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] })
    const ends = await admin.fetchTopicOffsets(TOPIC)
    const uncommittedAtKill = settled[victimIndex].reduce((n, p) => {
      const c = Number(committed.partitions.find((x) => x.partition === p)?.offset ?? 0)
      const e = Number(ends.find((x) => x.partition === p)!.high)
      return n + (e - Math.max(0, c))
    }, 0)

    // The survivors take every partition over.
    const reassigned = await until(
      async () => {
        const a = await assignment(survivors)
        return a.complete ? { parts: a.parts, at: Date.now() } : undefined
      },
      SESSION_TIMEOUT_MS + REASSIGN_MARGIN_MS + 30_000,
      'reassignment to the survivors',
    )
    const reassignMs = reassigned.at - killedAt
    const group = await admin.describeGroups([GROUP])
    expect(group.groups[0].members).toHaveLength(2)

    // The incident goes on; its message is updated after the kill (updates are paced to one a minute).
    const updatesAfterKill = () => slack.calls.filter((c) => c.method === 'chat.update' && c.status === 200 && c.at > killedAt && /^Firing: /.test(String(c.args.text)))
    await slack.waitFor(() => updatesAfterKill().length > 0, 120_000)
    await sleep(3000)
    incident = false
    await evidence
    const evidenceEndedAt = Date.now()

    // The evidence stops: the alert resolves once keep_firing has passed.
    const resolvedNotices = () => slack.calls.filter((c) => c.method === 'chat.postMessage' && c.status === 200 && c.args.reply_broadcast && /^Resolved: /.test(String(c.args.text)))
    await slack.waitFor(() => resolvedNotices().length > 0, 120_000)
    const resolvedSeenAt = Date.now()
    // Late duplicates would come within a few ticks.
    await sleep(5000)

    // Every reading produced is in the store, once.
    feeding = false
    await feed
    await producer.close()
    const store = new RedisStore({ url: TEST_REDIS_URL, prefix })
    const stored = async () => {
      const out = new Map<string, number>()
      for (const b of brokers) {
        for (const s of await store.query({ cluster: CLUSTER, broker: b, from: 0, to: Date.now() + 60_000 })) {
          if (s.name === 'fd.open' || s.name === 'fd.max' || s.name === 'mmap.count' || s.name === 'mmap.max' || s.name === 'fd.exhausted') {
            out.set(`${b}\u0000${s.name}`, (out.get(`${b}\u0000${s.name}`) ?? 0) + 1)
          }
        }
      }
      return out
    }
    let have = new Map<string, number>()
    try {
      await until(
        async () => {
          have = await stored()
          return [...produced].every(([k, n]) => have.get(k) === n) ? true : undefined
        },
        30_000,
        'every produced signal stored',
      )
    } catch {
      // fall through to the assertion, which names the differences
    }
    const producedTotal = [...produced.values()].reduce((a, b) => a + b, 0)
    const missing = [...produced].filter(([k, n]) => have.get(k) !== n).map(([k, n]) => `${k.replace('\u0000', ' ')}: produced ${n}, stored ${have.get(k) ?? 0}`)
    await store.close()

    const digests = slack.calls.filter((c) => topLevel(c) && !/^(Firing|Resolved): /.test(String(c.args.text)))
    const digestMinutes = digests.map((c) => new Date(c.at).toISOString().slice(0, 16))
    // Each minute boundary from the group settling to 20 s before now had the cron fire in every live replica.
    const firstMinute = Math.ceil(allUpAt / 60_000) * 60_000
    const expectedMinutes: string[] = []
    for (let m = firstMinute; m < Date.now() - 20_000; m += 60_000) expectedMinutes.push(new Date(m).toISOString().slice(0, 16))
    const digestRuns = replicas.flatMap((r) =>
      r.lines.filter((l) => l.msg === 'digest').flatMap((l) => (l.runs as { posted: boolean; reason?: string }[]).map((run) => ({ replica: r.name, minute: new Date(Number(l.time)).toISOString().slice(0, 16), ...run }))),
    )

    const load = os.loadavg().map((x) => x.toFixed(2)).join(' ')
    console.log(
      `replicas: victim ${victim.name} read partitions [${settled[victimIndex].join(',')}] (of ${settled.map((p) => `[${p.join(',')}]`).join(' ')}); incident on broker ${sick} (partition ${partitionOf(signalKey({ cluster: CLUSTER, broker: sick }))}); ` +
        `firing seen ${firedSeenAt - allUpAt} ms after the group settled; killed ${killedAt - firedSeenAt} ms after; ${uncommittedAtKill} messages beyond its committed offsets at the kill; ` +
        `survivors read every partition ${reassignMs} ms after SIGKILL (session timeout ${SESSION_TIMEOUT_MS} ms) -> ${reassigned.parts.map((p) => `[${p.join(',')}]`).join(' ')}; ` +
        `first update after the kill ${updatesAfterKill()[0].at - killedAt} ms after it; resolved notice ${resolvedSeenAt - evidenceEndedAt} ms after the last evidence (keep_firing ${KEEP_FIRING}); ` +
        `${producedTotal} signals produced, ${missing.length} keys short; digests in minutes ${digestMinutes.join(', ')} (expected ${expectedMinutes.join(', ')}); ` +
        `digest runs: ${digestRuns.filter((r) => r.posted).length} posted, ${digestRuns.filter((r) => !r.posted).length} skipped; load average ${load}`,
    )

    expect(reassignMs).toBeLessThanOrEqual(SESSION_TIMEOUT_MS + REASSIGN_MARGIN_MS)
    expect(missing).toEqual([])
    expect(firingPosts()).toHaveLength(1)
    expect(updatesAfterKill().length).toBeGreaterThanOrEqual(1)
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage' && c.status === 200 && /^New evidence: /.test(String(c.args.text)) && c.at > killedAt).length).toBeGreaterThanOrEqual(1)
    expect(resolvedNotices()).toHaveLength(1)
    expect(new Set(digestMinutes).size).toBe(digestMinutes.length)
    expect(digestMinutes).toEqual(expect.arrayContaining(expectedMinutes))
    expect(slack.allProblems()).toEqual([])
    // Every replica alive ran the job at each minute; the lock let exactly one of them post.
    expect(digestRuns.filter((r) => r.posted)).toHaveLength(digests.length)
    expect(digestRuns.filter((r) => !r.posted).every((r) => r.reason === 'another replica holds the lock')).toBe(true)
    for (const minute of expectedMinutes) {
      const runs = digestRuns.filter((r) => r.minute === minute)
      expect(runs.filter((r) => r.posted), minute).toHaveLength(1)
      expect(runs.map((r) => r.replica), minute).toEqual(expect.arrayContaining(survivors.map((r) => r.name)))
    }
    // The survivors saw nothing go wrong on their side.
    for (const r of survivors) expect(r.child.exitCode).toBe(null)
    await admin.disconnect()
  })
})
