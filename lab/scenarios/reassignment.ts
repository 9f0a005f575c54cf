import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { pause, runFaultScenario } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'
import { waitFor } from '../wait-for.js'

const TOPIC = 'payments'
const PARTITIONS = 6

/**
 * The healthy control for replication: a partition reassignment under load. Every partition of an
 * RF-2 topic gets a new replica set (kafka-reassign-partitions through the admin API), the new
 * replicas catch up and join the ISR, the old ones are deleted, and leadership moves with them.
 */
export const scenario: Scenario = {
  name: 'reassignment',
  summary: `a partition reassignment of a ${PARTITIONS}-partition RF-2 topic under acks=all load on 3 brokers: a healthy control`,
  needs: { seconds: 115, memoryMb: 1_000, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    let moved = 0
    let tookMs = 0
    return runFaultScenario(ctx, {
      slug: 'lab-reassignment',
      title: 'a partition reassignment under load (healthy control)',
      brokers: 3,
      topic: { name: TOPIC, partitions: PARTITIONS, replicationFactor: 2, configs: { 'min.insync.replicas': '1' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 15_000,
      pickTarget: () => 1,
      async inject(env) {
        const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: env.cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
        const admin = kafka.admin()
        try {
          await admin.connect()
          const md = await admin.fetchTopicMetadata({ topics: [TOPIC] })
          const ids = env.cluster.brokers.map((b) => b.id)
          // Each partition's replica set shifted by one broker: every partition moves one replica.
          const partitions = md.topics[0].partitions.map((p) => ({
            partition: p.partitionId,
            replicas: p.replicas.map((r) => ids[(ids.indexOf(r) + 1) % ids.length]),
          }))
          moved = partitions.length
          await admin.alterPartitionReassignments({ topics: [{ topic: TOPIC, partitionAssignment: partitions }] })
          await waitFor(async () => (await admin.listPartitionReassignments({})).topics.length === 0, { timeoutMs: 60_000, intervalMs: 1_000, what: 'the reassignment to finish' })
          tookMs = Date.now() - env.faultAt
        } finally {
          await admin.disconnect().catch(() => undefined)
        }
      },
      async aftermath() {
        await pause(20_000)
      },
      measure(env) {
        const count = (re: RegExp) => env.cluster.brokers.reduce((n, b) => n + countLines(b.serverLog, re), 0)
        return {
          'partitions reassigned': moved,
          'reassignment finished after (s)': (tookMs / 1000).toFixed(1),
          '"Deleted log for partition" lines (all brokers)': count(/Deleted log for partition/),
          'ERROR lines (all brokers)': count(/^\[[^\]]+\] ERROR /),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `nothing was broken: every partition of \`${TOPIC}\` was given a new replica set (each replica shifted to the next broker) with \`alterPartitionReassignments\`, what \`kafka-reassign-partitions --execute\` sends; the lab waited until no reassignment was in progress and watched 20 s more.`,
      expect: { topRule: null, absentRules: ['offline_partitions', 'under_min_isr_writes_failing', 'leader_election_storm'] },
    })
  },
}
