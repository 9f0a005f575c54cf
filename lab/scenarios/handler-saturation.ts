import { join } from 'node:path'
import { pause, runFaultScenario, startOrdersConsumer } from '../fault-scenario.js'
import type { ManagedProcess } from '../managed-process.js'
import { startJavaTool } from '../java-tool.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const RECORDS_PER_SEC = 5_000
const CONSUMERS = 3
const RECORD_BYTES = 1_024
const SATURATED_MS = 450_000

/**
 * Request handlers saturated: one broker takes a heavy produce load on a topic that makes every append
 * expensive on the broker (compression.type=gzip at level 9 while the producer sends uncompressed
 * batches, so the handler thread recompresses each one), then its request handler pool is cut to a
 * single thread (num.io.threads=1, a dynamic broker config) and three consumers start reading. The
 * handler pool's idle share falls, and the requests of every connection wait in the request queue
 * behind the recompressions (a broker serves one request of a connection at a time, so one producer
 * alone never queues; the consumers' fetches do).
 */
export const scenario: Scenario = {
  name: 'handler-saturation',
  summary: `1 broker, ${RECORDS_PER_SEC} × ${RECORD_BYTES} B/s uncompressed into a gzip-9 topic of 12 partitions; num.io.threads set to 1 and ${CONSUMERS} consumers reading for ${SATURATED_MS / 1000} s`,
  needs: { seconds: SATURATED_MS / 1000 + 50, memoryMb: 900, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    let configOut = ''
    return runFaultScenario(ctx, {
      slug: 'lab-handler-saturation',
      title: 'request handler threads saturated: one handler thread recompressing a heavy produce load',
      brokers: 1,
      topic: { name: 'orders', partitions: 12, replicationFactor: 1, configs: { 'compression.type': 'gzip', 'compression.gzip.level': '9' } },
      producer: { acks: '1', recordsPerSec: RECORDS_PER_SEC, recordBytes: RECORD_BYTES },
      warmupMs: 15_000,
      async inject(env) {
        const out = join(env.clientsDir, 'kafka-configs.out')
        const tool = startJavaTool(
          env.ctx.runtime,
          'kafka.admin.ConfigCommand',
          ['--bootstrap-server', env.cluster.bootstrap, '--alter', '--add-config', 'num.io.threads=1', '--entity-type', 'brokers', '--entity-name', String(env.target.id)],
          { stdoutFile: out, logFile: join(env.clientsDir, 'kafka-configs.log') },
        )
        const code = await tool.exited
        configOut = countLines(out, /Completed updating config/) > 0 ? `Completed updating config for broker ${env.target.id}.` : `kafka-configs exited ${code}`
        if (code !== 0) throw new Error(`kafka-configs --alter failed (${code}); see ${out}`)
        const consumers: ManagedProcess[] = []
        for (let n = 1; n <= CONSUMERS; n++) consumers.push(startOrdersConsumer(env, `readers-${n}`, n))
        return () => consumers.forEach((c) => void c.stop(1_000))
      },
      async aftermath() {
        await pause(SATURATED_MS)
      },
      measure(env) {
        return {
          'offered load (records/s × B)': `${RECORDS_PER_SEC} × ${RECORD_BYTES}`,
          'kafka-configs said': configOut,
          'one handler thread for (s)': SATURATED_MS / 1000,
          'consumers (one group each)': CONSUMERS,
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `Topic \`orders\` (12 partitions) was created with \`compression.type=gzip\` and \`compression.gzip.level=9\`, so the broker recompresses every uncompressed batch the producer sends in its request handler thread. After the warm-up, \`kafka-configs --bootstrap-server … --alter --add-config num.io.threads=1 --entity-type brokers --entity-name ${env.target.id}\` cut broker ${env.target.id}'s request handler pool from 8 threads to one, and ${CONSUMERS} \`kafka-consumer-perf-test\` consumers (groups \`readers-1\` to \`readers-${CONSUMERS}\`) started reading the topic; it was left so for ${SATURATED_MS / 1000} s under the same produce load. Nothing else was changed.`,
      expect: {
        topRule: 'request_handler_saturation.requests_waiting',
        absentRules: ['network_processor_saturation', 'network_processor_saturation.responses_waiting', 'produce_latency_high.local', 'produce_latency_high.remote', 'client_quota_throttling'],
      },
    })
  },
}
