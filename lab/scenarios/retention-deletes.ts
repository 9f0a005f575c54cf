import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const OBSERVE_MS = 60_000
const SEGMENT_BYTES = String(1024 * 1024)
const RETENTION_BYTES = String(3 * 1024 * 1024)

/**
 * The healthy control for the storage faults: retention doing its job. A topic with 1 MiB segments
 * and 3 MiB of retention per partition under steady load rolls segments and deletes the oldest ones
 * every few seconds, with every log line that goes with it, and nothing is wrong.
 */
export const scenario: Scenario = {
  name: 'retention-deletes',
  summary: 'size-based retention deleting segments every few seconds under load on 3 brokers: a healthy control',
  needs: { seconds: 155, memoryMb: 1_200, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runFaultScenario(ctx, {
      slug: 'lab-retention-deletes',
      title: 'retention deleting segments under load (healthy control)',
      brokers: 3,
      cluster: { brokerConfig: { 'log.retention.check.interval.ms': '5000', 'log.segment.delete.delay.ms': '1000' } },
      topic: { name: 'clicks', partitions: 3, replicationFactor: 3, configs: { 'segment.bytes': SEGMENT_BYTES, 'retention.bytes': RETENTION_BYTES, 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 10_000,
      pickTarget: () => 1,
      async inject() {},
      async aftermath() {
        await pause(OBSERVE_MS)
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'observed (s)': OBSERVE_MS / 1000,
          '"Rolled new log segment" lines (broker 1)': countLines(log, /Rolled new log segment/),
          '"due to log size retention" / "Deleting segment" lines (broker 1)': countLines(log, /retention size|Deleting segment|Deleting segments/),
          'ERROR lines (broker 1)': countLines(log, /^\[[^\]]+\] ERROR /),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `nothing was broken: the topic's \`segment.bytes=${SEGMENT_BYTES}\` and \`retention.bytes=${RETENTION_BYTES}\` (brokers with \`log.retention.check.interval.ms=5000\`) made every broker roll and delete segments every few seconds for ${OBSERVE_MS / 1000} s.`,
      expect: { topRule: null, absentRules: ['roll_storm_segment_bytes', 'segment_roll_storm', 'disk_full', 'log_dir_failure'] },
    }),
}
