import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import { startJavaTool } from '../java-tool.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BYTE_RATE = 100 * 1024
const THROTTLED_MS = 240_000

/**
 * A client quota below what a producer sends: producer_byte_rate for the perf producer's client id set
 * to 100 KiB/s while it sends 500 KiB/s. Every broker delays its responses to hold the client to its
 * share (throttle-time in the Produce quota metrics) for four minutes. Nothing is broken: the cluster
 * does what it was told.
 */
export const scenario: Scenario = {
  name: 'quota-throttled',
  summary: `producer_byte_rate=${BYTE_RATE} B/s set for the producer's client id (it sends ~500 KiB/s) for ${THROTTLED_MS / 60_000} minutes: throttled by every broker`,
  needs: { seconds: 320, memoryMb: 1_450, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    let configOut = ''
    return runFaultScenario(ctx, {
      slug: 'lab-quota-throttled',
      title: 'a producer held to a client quota below its rate: throttled by the brokers, nothing broken',
      brokers: 3,
      ...ORDERS_LOAD,
      async inject(env) {
        const out = join(env.clientsDir, 'kafka-configs.out')
        const tool = startJavaTool(
          env.ctx.runtime,
          'kafka.admin.ConfigCommand',
          ['--bootstrap-server', env.cluster.bootstrap, '--alter', '--add-config', `producer_byte_rate=${BYTE_RATE}`, '--entity-type', 'clients', '--entity-name', 'perf-1'],
          { stdoutFile: out, logFile: join(env.clientsDir, 'kafka-configs.log') },
        )
        const code = await tool.exited
        configOut = countLines(out, /Completed updating config/) > 0 ? 'Completed updating config for client perf-1.' : `kafka-configs exited ${code}`
        if (code !== 0) throw new Error(`kafka-configs --alter failed (${code}); see ${out}`)
      },
      async aftermath() {
        await pause(THROTTLED_MS)
      },
      measure(env) {
        return {
          'producer_byte_rate (B/s)': BYTE_RATE,
          'offered load (B/s)': 500 * 1_024,
          'kafka-configs said': configOut,
          'throttled for (s)': THROTTLED_MS / 1000,
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `\`kafka-configs --bootstrap-server … --alter --add-config producer_byte_rate=${BYTE_RATE} --entity-type clients --entity-name perf-1\` set a produce quota of ${BYTE_RATE / 1024} KiB/s for the producer's client id while it offered about 500 KiB/s; it was left in force for ${THROTTLED_MS / 60_000} minutes. Nothing else was changed.`,
      expect: { topRule: 'client_quota_throttling', absentRules: ['produce_latency_high', 'request_handler_saturation', 'network_processor_saturation'] },
    })
  },
}
