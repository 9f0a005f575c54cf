/**
 * Regenerates fixtures/kafka-3.9.1-zk-jmx-1.0.1-lab-quota.prom: a lab Kafka 3.9 broker (ZooKeeper mode)
 * with the lab's own exporter config (lab/kafka-exporter.yaml), a produce quota on one client-id and a
 * fetch quota on another (kafka-configs), traffic past both, then one scrape: the real names and values
 * of the quota throttle times and the request latency percentiles. Run: npx tsx test/adapters/prometheus/capture-quota.ts
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import kafkajs from 'kafkajs'
import { startCluster } from '../../../lab/cluster.js'
import { REPO_DIR } from '../../../lab/kafka-runtime.js'
import { FIXTURES } from './jmx-jvm.js'

const OUT = 'kafka-3.9.1-zk-jmx-1.0.1-lab-quota.prom'
const cluster = await startCluster({ brokers: 1, mode: 'zk' })
console.log('cluster up')
try {
  const configs = (entity: string, config: string) =>
    execFileSync('java', ['-cp', path.join(REPO_DIR, '.cache/kafka/lib/*'), 'kafka.admin.ConfigCommand', '--bootstrap-server', cluster.bootstrap, '--alter', '--entity-type', 'clients', '--entity-name', entity, '--add-config', config], { stdio: 'pipe' })
  configs('perf-producer', 'producer_byte_rate=2048')
  configs('analytics', 'consumer_byte_rate=2048')
  const kafka = (clientId: string) => new kafkajs.Kafka({ clientId, brokers: [cluster.bootstrap], logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka('setup').admin()
  await admin.connect()
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'orders', numPartitions: 1, replicationFactor: 1 }] })
  await admin.disconnect()
  const producer = kafka('perf-producer').producer()
  await producer.connect()
  // 24 KiB against 2 KiB/s: throttled from the second request on, for about ten seconds in all.
  const value = 'x'.repeat(4096)
  for (let i = 0; i < 6; i++) await producer.send({ topic: 'orders', messages: [{ value }] })
  await producer.disconnect()
  console.log('produced')
  const consumer = kafka('analytics').consumer({ groupId: 'analytics' })
  await consumer.connect()
  await consumer.subscribe({ topic: 'orders', fromBeginning: true })
  let seen = 0
  // The consumer quota holds the fetches back; a few throttled fetches are enough.
  await Promise.race([new Promise<void>((resolve) => void consumer.run({ eachMessage: async () => void (++seen >= 6 && resolve()) })), new Promise((r) => setTimeout(r, 30_000))])
  await consumer.disconnect()
  console.log(`consumed ${seen}`)
  const port = cluster.brokers[0].exporterPort!
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  writeFileSync(path.join(FIXTURES, OUT), text)
  console.log(`${OUT}: ${text.split('\n').length} lines`)
} finally {
  await cluster.stop()
}
