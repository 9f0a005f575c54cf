import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { sendLargeRecords, type LargeSends } from '../large-sends.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const HEAP_MB = 160
const RECORD_MB = 16
const SENDERS = 14
const LOAD_MS = 25_000
const MAX_MESSAGE_BYTES = String(32 * 1024 * 1024)

/**
 * A broker's heap exhausted for real: a broker with a 160 MiB heap that accepts messages up to
 * 32 MiB receives 16 MiB produce requests on 14 connections at once. Each request's whole body is
 * read into a heap buffer before it is handled, so together they need more heap than there is and
 * the network threads die with OutOfMemoryError: Java heap space.
 */
export const scenario: Scenario = {
  name: 'heap-oom',
  summary: `one broker with a ${HEAP_MB} MiB heap receives ${SENDERS} concurrent ${RECORD_MB} MiB produce requests: OutOfMemoryError: Java heap space`,
  needs: { seconds: 200, memoryMb: 600, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    const sends: LargeSends = { sent: 0, failed: 0 }
    return runFaultScenario(ctx, {
      slug: 'lab-heap-oom',
      title: 'a broker\'s heap exhausted by large produce requests (OutOfMemoryError: Java heap space)',
      brokers: 1,
      cluster: { heapMb: HEAP_MB, brokerConfig: { 'message.max.bytes': MAX_MESSAGE_BYTES, 'replica.fetch.max.bytes': MAX_MESSAGE_BYTES } },
      topic: { name: 'uploads', partitions: 3, replicationFactor: 1, configs: { 'max.message.bytes': MAX_MESSAGE_BYTES } },
      producer: { acks: '1', recordsPerSec: 200, recordBytes: 1_024 },
      warmupMs: 10_000,
      async inject(env) {
        await sendLargeRecords(env.cluster.bootstrap, { topic: 'uploads', senders: SENDERS, recordMb: RECORD_MB, forMs: LOAD_MS }, sends)
      },
      async aftermath() {
        await pause(8_000)
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'broker heap (-Xmx, MiB)': HEAP_MB,
          'produce requests of 16 MiB (concurrent senders)': `${SENDERS} for ${LOAD_MS / 1000} s`,
          'large sends acknowledged / failed': `${sends.sent} / ${sends.failed}`,
          '"OutOfMemoryError: Java heap space" lines': countLines(log, /OutOfMemoryError: Java heap space/) + countLines(join(env.target.logDir, 'stdout.log'), /OutOfMemoryError: Java heap space/),
          '"Processor got uncaught exception" lines': countLines(log, /Processor got uncaught exception/),
          'broker still running': env.target.process.alive() ? 'yes' : 'no',
        }
      },
      whatWasDone: () =>
        `the broker ran with \`-Xmx${HEAP_MB}m\` and \`message.max.bytes=${MAX_MESSAGE_BYTES}\`; ${SENDERS} producers (kafkajs, one connection each) sent ${RECORD_MB} MiB records to topic \`uploads\` in a loop for ${LOAD_MS / 1000} s, so up to ${SENDERS * RECORD_MB} MiB of request bodies were being read into the heap at once.`,
      expect: { topRule: 'heap_oom', absentRules: ['down_conversion_heap_oom', 'kafka_6709_down_conversion_oom'] },
    })
  },
}
