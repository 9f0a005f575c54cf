import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { sendLargeRecords, type LargeSends } from '../large-sends.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const DIRECT_MB = 8
const RECORD_MB = 16
const SENDERS = 4
const LOAD_MS = 25_000
const MAX_MESSAGE_BYTES = String(32 * 1024 * 1024)

/**
 * A broker's direct memory exhausted for real: a broker started with -XX:MaxDirectMemorySize=8m that
 * accepts messages up to 32 MiB receives 16 MiB produce requests. Kafka reads a request into a heap
 * buffer, but the JDK reads a socket into a heap buffer through a temporary direct buffer as large as
 * what is left to read (sun.nio.ch.IOUtil), so each read of a large request asks for more direct
 * memory than the limit and fails with OutOfMemoryError: Cannot reserve … bytes of direct buffer
 * memory, the JDK 16+ wording of "Direct buffer memory".
 */
export const scenario: Scenario = {
  name: 'direct-memory-oom',
  summary: `one broker with -XX:MaxDirectMemorySize=${DIRECT_MB}m receives ${RECORD_MB} MiB produce requests on ${SENDERS} connections: OutOfMemoryError, direct buffer memory`,
  needs: { seconds: 120, memoryMb: 700, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    const sends: LargeSends = { sent: 0, failed: 0 }
    return runFaultScenario(ctx, {
      slug: 'lab-direct-memory-oom',
      title: 'a broker\'s direct memory exhausted by large produce requests (OutOfMemoryError: Cannot reserve … bytes of direct buffer memory)',
      brokers: 1,
      cluster: { jvmArgs: [`-XX:MaxDirectMemorySize=${DIRECT_MB}m`], brokerConfig: { 'message.max.bytes': MAX_MESSAGE_BYTES, 'replica.fetch.max.bytes': MAX_MESSAGE_BYTES } },
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
          '-XX:MaxDirectMemorySize (MiB)': DIRECT_MB,
          'broker heap (-Xmx, MiB)': 320,
          'produce requests of 16 MiB (concurrent senders)': `${SENDERS} for ${LOAD_MS / 1000} s`,
          'large sends acknowledged / failed': `${sends.sent} / ${sends.failed}`,
          '"OutOfMemoryError" lines about direct buffer memory (server.log)': countLines(log, /OutOfMemoryError: (?:Direct buffer memory|Cannot reserve \d+ bytes of direct buffer memory)/),
          'the same in the broker\'s stdout (not recorded)': countLines(join(env.target.logDir, 'stdout.log'), /OutOfMemoryError: (?:Direct buffer memory|Cannot reserve)/),
          '"OutOfMemoryError: Java heap space" lines': countLines(log, /OutOfMemoryError: Java heap space/),
          '"Processor got uncaught exception" lines': countLines(log, /Processor got uncaught exception/),
          'broker still running': env.target.process.alive() ? 'yes' : 'no',
        }
      },
      whatWasDone: () =>
        `the broker ran with \`-XX:MaxDirectMemorySize=${DIRECT_MB}m\` (heap 320 MiB) and \`message.max.bytes=${MAX_MESSAGE_BYTES}\`; ${SENDERS} producers (kafkajs, one connection each) sent ${RECORD_MB} MiB records to topic \`uploads\` in a loop for ${LOAD_MS / 1000} s. The JDK reads a socket into Kafka's heap buffer through a temporary direct buffer the size of what is left to read, so a ${RECORD_MB} MiB request needs ${RECORD_MB} MiB of direct memory at once.`,
      expect: { topRule: 'direct_buffer_oom', absentRules: ['heap_oom'] },
    })
  },
}
