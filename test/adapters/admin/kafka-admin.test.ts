import { readFileSync } from 'node:fs'
import kafkajs from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AdminPoller } from '../../../adapters/admin/admin-poller.js'
import { AdminRequestError, groupPartition, javaStringHash, KafkaAdmin } from '../../../adapters/admin/kafka-admin.js'
import { consumeSignalsTopic, SignalsTopicProducer, type SignalsTopicConsumer } from '../../../adapters/admin/signals-topic.js'
import { MemoryStore } from '../../../engine/store/memory-store.js'
import { startCluster, type LabCluster } from '../../../lab/cluster.js'
import { killAllManaged } from '../../../lab/managed-process.js'
import type { Signal } from '../../../signals/signal.js'

// A real two-broker ZooKeeper-mode Kafka 3.9 cluster from the lab (jars from Maven Central), shared by
// the kafka-admin and admin-poller suites: starting one costs more than both suites together.
let cluster: LabCluster
let admin: KafkaAdmin
const got: Signal[] = []
let poller: AdminPoller
const consumers: kafkajs.Consumer[] = []

beforeAll(async () => {
  cluster = await startCluster({ brokers: 2, mode: 'zk', heapMb: 256, exporter: false })
  admin = new KafkaAdmin({ brokers: cluster.bootstrap.split(','), clientId: 'kafka-why-test' })
  poller = new AdminPoller(admin, { cluster: 'lab', sink: (b) => void got.push(...b), configEveryPolls: 1, pollTimeoutMs: 10_000 })
  const k = new kafkajs.Kafka({ brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const a = k.admin()
  await a.connect()
  await a.createTopics({
    waitForLeaders: true,
    topics: [{ topic: 'orders', numPartitions: 2, replicationFactor: 2, configEntries: [{ name: 'segment.ms', value: '60000' }, { name: 'min.insync.replicas', value: '2' }] }],
  })
  await a.disconnect()
  // a new topic reaches every broker's metadata cache a moment after its leaders are elected
  for (let i = 0; i < 50; i++) {
    const ok = await admin.describeTopic('orders').then((t) => t.partitions.length === 2 && t.partitions.every((p) => p.isr.length === 2), () => false)
    if (ok) break
    await sleep(200)
  }
}, 180_000)

/** kafkajs can wait forever on a consumer whose coordinator died: give each disconnect 5 s. */
async function disconnectConsumers(): Promise<void> {
  await Promise.allSettled(consumers.map((c) => Promise.race([c.disconnect(), sleep(5000)])))
}

afterAll(async () => {
  await disconnectConsumers()
  await admin?.close()
  await cluster?.stop()
  // whatever a failed test left running in this worker goes too
  killAllManaged()
})

const take = (name: string, topic?: string) => got.filter((s) => s.name === name && (!topic || s.labels?.topic === topic))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function joinGroup(groupId: string): Promise<kafkajs.Consumer> {
  const k = new kafkajs.Kafka({ brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const c = k.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500, rebalanceTimeout: 10_000 })
  consumers.push(c)
  await c.connect()
  await c.subscribe({ topic: 'orders' })
  const joined = new Promise<void>((resolve) => c.on(c.events.GROUP_JOIN, () => resolve()))
  await c.run({ eachMessage: async () => {} })
  await joined
  return c
}

async function pollUntil(what: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    await poller.pollOnce()
    if (what()) return
    await sleep(500)
  }
}

describe('adapters/admin/kafka-admin', () => {
  it.each([
    // Kafka's own GroupCoordinator placement: Utils.abs("billing".hashCode) % 50
    ['billing', 50],
    ['console-consumer-12345', 50],
    ['', 50],
  ])('places group %j on the __consumer_offsets partition Kafka does', (group, n) => {
    const h = javaStringHash(group)
    expect(h).toBe(Number(BigInt.asIntN(32, [...group].reduce((acc, ch) => acc * 31n + BigInt(ch.charCodeAt(0)), 0n))))
    expect(groupPartition(group, n)).toBe(Math.abs(h) % n)
  })

  it('describes topics, brokers and configs of the real cluster', async () => {
    const t = await admin.describeTopic('orders')
    expect(t.partitions).toHaveLength(2)
    for (const p of t.partitions) {
      expect(p.replicas.sort()).toEqual([1, 2])
      expect(p.isr.sort()).toEqual([1, 2])
      expect(p.offline).toBe(false)
    }
    expect(t.configs['segment.ms']).toEqual({ value: '60000', isDefault: false, source: 'DYNAMIC_TOPIC_CONFIG' })
    const b = await admin.describeBroker(1)
    expect(b).toMatchObject({ id: 1, host: '127.0.0.1', port: cluster.brokers[0].port })
    expect(b.configs['zookeeper.session.timeout.ms'].value).toBe('18000')
    await expect(admin.describeBroker(9)).rejects.toBeInstanceOf(AdminRequestError)
    await expect(admin.topicConfig('no-such-topic')).rejects.toBeInstanceOf(AdminRequestError)
  })

  it('changes one topic config and keeps the other overrides', async () => {
    await admin.setTopicConfig('orders', 'retention.ms', '3600000')
    let c = await admin.topicConfig('orders')
    expect([c['retention.ms'].value, c['segment.ms'].value, c['min.insync.replicas'].value]).toEqual(['3600000', '60000', '2'])
    await admin.resetTopicConfig('orders', 'retention.ms')
    c = await admin.topicConfig('orders')
    expect(c['retention.ms']).toMatchObject({ isDefault: true })
    expect(c['segment.ms'].value).toBe('60000')
  })
})

describe('adapters/admin/signals-topic', () => {
  it('splits brokers between two engine processes of one group, each broker in order in one of them', { timeout: 90_000 }, async () => {
    const k = new kafkajs.Kafka({ brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
    const a = k.admin()
    await a.connect()
    await a.createTopics({ waitForLeaders: true, topics: [{ topic: 'kafka-why-signals', numPartitions: 4, replicationFactor: 2 }] })
    await a.disconnect()
    const opts = { brokers: cluster.bootstrap.split(','), topic: 'kafka-why-signals' }
    const stores = [new MemoryStore(), new MemoryStore()]
    const engines: SignalsTopicConsumer[] = []
    for (const store of stores) engines.push(await consumeSignalsTopic({ ...opts, groupId: 'engines' }, (b) => store.append(b)))
    const producer = new SignalsTopicProducer(opts)
    try {
      const sent: Signal[] = []
      for (let i = 0; i < 200; i++) sent.push({ name: 'fd.open', at: 1_700_000_000_000 + i * 1000, cluster: 'prod', broker: String(1 + (i % 8)), value: i, source: 'agent:test' })
      await producer.send(sent)
      // a real line from the lab broker's own server.log, shipped raw, and two bad messages
      const started = readFileSync(cluster.brokers[0].serverLog, 'utf8').split('\n').find((l) => / started \(kafka\.server\.KafkaServer\)/.test(l))!
      await producer.sendLines([{ line: started, cluster: 'prod', broker: '1', path: 'server.log' }])
      const raw = new kafkajs.Kafka({ brokers: opts.brokers, logLevel: kafkajs.logLevel.NOTHING }).producer()
      await raw.connect()
      await raw.send({ topic: opts.topic, messages: [{ key: 'prod:1', value: 'not json' }, { key: 'prod:1', value: JSON.stringify({ name: 'fd.open', cluster: 'prod' }) }] })
      await raw.disconnect()

      const total = async () => {
        let n = 0
        for (const st of stores) for (let b = 1; b <= 8; b++) n += (await st.query({ cluster: 'prod', broker: String(b), from: 0, to: 2e12 })).length
        return n
      }
      const invalidCount = () => engines.reduce((acc, c) => acc + Object.values(c.stats.invalid).reduce((p, q) => p + q, 0), 0)
      const end = Date.now() + 60_000
      while (((await total()) < 201 || invalidCount() < 2) && Date.now() < end) await sleep(250)
      expect(await total()).toBe(201)
      const owners = new Map<string, number>()
      for (const [i, st] of stores.entries()) {
        for (let b = 1; b <= 8; b++) {
          const got = await st.query({ cluster: 'prod', broker: String(b), names: ['fd.open'], from: 0, to: 2e12 })
          if (got.length === 0) continue
          expect(owners.has(String(b)), `broker ${b} in both engines`).toBe(false)
          owners.set(String(b), i)
          expect(got.map((s) => s.value)).toEqual(sent.filter((s) => s.broker === String(b)).map((s) => s.value))
        }
      }
      expect(owners.size).toBe(8)
      expect(new Set(owners.values()).size).toBe(2)
      const startSignal = (await Promise.all(stores.map((st) => st.query({ cluster: 'prod', broker: '1', names: ['broker.start'], from: 0, to: 2e12 })))).flat()
      expect(startSignal).toHaveLength(1)
      expect(startSignal[0].text).toBe(started)
      const invalid = engines.map((c) => c.stats.invalid)
      expect(invalid.reduce((acc, x) => acc + Object.values(x).reduce((p, q) => p + q, 0), 0)).toBe(2)
      expect(invalid.some((x) => x['not JSON'] === 1)).toBe(true)
    } finally {
      await producer.close()
      for (const c of engines) await Promise.race([c.stop(), sleep(5000)])
    }
  })
})

describe('adapters/admin/admin-poller', () => {
  it('reports partition gauges and config facts on the first poll', async () => {
    const o = await poller.pollOnce()
    expect(o).toMatchObject({ ok: true })
    expect(take('partitions.under_replicated').map((s) => [s.broker, s.value])).toEqual([
      ['1', 0],
      ['2', 0],
    ])
    expect(take('partitions.offline')).toMatchObject([{ value: 0 }])
    expect(take('config.segment_ms').find((s) => s.labels?.topic === 'orders')).toMatchObject({ value: 60_000, text: 'orders segment.ms=60000' })
    // broker default: log.roll.hours=168
    expect(take('config.segment_ms').filter((s) => s.broker).map((s) => s.value)).toEqual([604_800_000, 604_800_000])
    expect(take('config.zookeeper_session_timeout_ms').map((s) => s.value)).toEqual([18_000, 18_000])
    expect(take('config.log_message_format_version')[0].value).toBeGreaterThanOrEqual(3_000_000)
    // unchanged facts are not sent again on the next poll
    got.length = 0
    await poller.pollOnce()
    expect(take('config.segment_ms')).toEqual([])
  })

  it('sees a consumer group rebalance on the group coordinator', { timeout: 90_000 }, async () => {
    await joinGroup('billing')
    await poller.pollOnce()
    got.length = 0
    const second = await joinGroup('billing')
    await pollUntil(() => take('group.rebalance').length > 0, 20_000)
    const coordinator = (await admin.describeGroup('billing')).coordinator
    expect(coordinator === 1 || coordinator === 2).toBe(true)
    expect(take('group.rebalance')[0]).toMatchObject({ labels: { group: 'billing' }, broker: String(coordinator), cluster: 'lab' })
    // the broker Kafka made coordinator is the one that logs the rebalance
    const logging = cluster.brokers.filter((b) => readFileSync(b.serverLog, 'utf8').includes('Preparing to rebalance group billing')).map((b) => b.id)
    expect(logging).toEqual([coordinator])
    got.length = 0
    await Promise.race([second.disconnect(), sleep(10_000)])
    await pollUntil(() => take('group.member_failed').length > 0, 20_000)
    expect(take('group.member_failed')[0]).toMatchObject({ labels: { group: 'billing' } })
    // a kafkajs consumer left running while its brokers go away spins the CPU in its retry loop
    await disconnectConsumers()
  })

  it('turns a controller broker shutdown into controller, leader and ISR events', { timeout: 90_000 }, async () => {
    const before = await admin.snapshot(['orders'])
    const victim = before.controller!
    const survivor = victim === 1 ? 2 : 1
    got.length = 0
    await poller.pollOnce()
    await cluster.brokers.find((b) => b.id === victim)!.process.stop(30_000)
    await pollUntil(() => take('controller.change').length > 0 && take('isr.shrink', 'orders').length >= 2, 45_000)
    expect(take('controller.change')[0]).toMatchObject({ labels: { controller: String(survivor), from: String(victim) } })
    const shrinks = take('isr.shrink', 'orders')
    expect(shrinks.map((s) => s.labels!.partition).sort()).toEqual(['0', '1'])
    for (const s of shrinks) expect(s.labels!.to).toBe(String(survivor))
    const ledByVictim = before.partitions.filter((p) => p.leader === victim).map((p) => String(p.partition))
    expect(take('leader.change', 'orders').map((s) => s.labels!.partition).sort()).toEqual(ledByVictim.sort())
    for (const s of take('leader.change', 'orders')) expect(s).toMatchObject({ broker: String(victim), labels: { to: String(survivor) } })
    const urp = take('partitions.under_replicated').filter((s) => s.broker === String(survivor)).pop()
    expect(urp?.value).toBeGreaterThanOrEqual(2)
    // min.insync.replicas=2 on a one-replica ISR
    expect(take('partitions.under_min_isr').filter((s) => s.broker === String(survivor)).pop()?.value).toBe(2)
  })

  it('reports a cluster that stopped answering once as source.stale', { timeout: 90_000 }, async () => {
    await disconnectConsumers()
    await cluster.stop()
    got.length = 0
    const first = await poller.pollOnce()
    const second = await poller.pollOnce()
    expect(first.ok).toBe(false)
    expect(second.ok).toBe(false)
    expect(got).toMatchObject([{ name: 'source.stale', cluster: 'lab', labels: { target: cluster.bootstrap } }])
  })
})
