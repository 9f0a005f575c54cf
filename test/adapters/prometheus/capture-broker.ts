/**
 * Regenerates the real-broker captures in fixtures/: starts a lab Kafka 3.9 broker (ZooKeeper mode)
 * with the JMX exporter agent of a given version and config attached, makes a topic with traffic, and
 * saves one scrape (the exporter configs are ours: fixtures/*.yml). Run: npx tsx test/adapters/prometheus/capture-broker.ts [one output file name]
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import kafkajs from 'kafkajs'
import { startCluster } from '../../../lab/cluster.js'
import { agentJar, FIXTURES, freePort, type ExporterVersion } from './jmx-jvm.js'

const CAPTURES: { version: ExporterVersion; config: string; out: string }[] = [
  { version: '0.20.0', config: 'default-format.yml', out: 'kafka-3.9.1-zk-jmx-0.20.0-default.prom' },
  { version: '0.20.0', config: 'kafka-lowercase-naming-app-info.yml', out: 'kafka-3.9.1-zk-jmx-0.20.0-kafka-lowercase-naming.prom' },
  { version: '1.0.1', config: 'kafka-lowercase-naming-app-info.yml', out: 'kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom' },
]
const only = process.argv[2]

for (const c of CAPTURES.filter((x) => !only || x.out === only)) {
  const port = await freePort()
  const agent = `-javaagent:${agentJar(c.version)}=127.0.0.1:${port}:${path.join(FIXTURES, c.config)}`
  const cluster = await startCluster({ brokers: 1, mode: 'zk', exporter: false, jvmArgs: [agent] })
  try {
    const kafka = new kafkajs.Kafka({ brokers: [cluster.bootstrap], logLevel: kafkajs.logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'orders', numPartitions: 2, replicationFactor: 1 }] })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    for (let i = 0; i < 50; i++) await producer.send({ topic: 'orders', messages: [{ value: `order-${i}` }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'billing' })
    await consumer.connect()
    await consumer.subscribe({ topic: 'orders', fromBeginning: true })
    let seen = 0
    await new Promise<void>((resolve) => void consumer.run({ eachMessage: async () => void (++seen >= 50 && resolve()) }))
    await consumer.disconnect()
    // A Yammer meter's one-minute rate stays 0 until its first tick, 5 s after it is created.
    await new Promise((r) => setTimeout(r, 6000))
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    writeFileSync(path.join(FIXTURES, c.out), text)
    console.log(`${c.out}: ${text.split('\n').length} lines`)
  } finally {
    await cluster.stop()
  }
}
