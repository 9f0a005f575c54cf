import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const SESSION_TIMEOUT_MS = 6_000
const AFTER_MS = 35_000

/**
 * Under min ISR: two of a topic's three replicas killed while acks=all producers write to a topic
 * with min.insync.replicas=2. The survivor leads every partition and refuses every write with
 * NotEnoughReplicasException.
 */
export const scenario: Scenario = {
  name: 'under-min-isr',
  summary: 'two of 3 ZooKeeper-mode brokers killed (SIGKILL) under acks=all load on a topic with min.insync.replicas=2: NOT_ENOUGH_REPLICAS on every write',
  needs: { seconds: 105, memoryMb: 800, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runFaultScenario(ctx, {
      slug: 'lab-under-min-isr',
      title: 'two replicas down under acks=all: writes refused for too few in-sync replicas',
      brokers: 3,
      cluster: { zkSessionTimeoutMs: SESSION_TIMEOUT_MS },
      ...ORDERS_LOAD,
      // The survivor is the controller, so leadership moves to it without a controller election.
      pickTarget: (cluster, controller) => (controller > 0 ? controller : cluster.brokers[0].id),
      async inject(env) {
        const others = env.cluster.brokers.filter((b) => b.id !== env.target.id)
        for (const b of others) b.process.signal('SIGKILL')
        await Promise.all(others.map((b) => b.process.exited))
      },
      async aftermath() {
        await pause(AFTER_MS)
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'brokers killed': env.cluster.brokers.filter((b) => b.id !== env.target.id).map((b) => b.id).join(', '),
          'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS,
          'observed after the kill (s)': AFTER_MS / 1000,
          '"NotEnoughReplicasException" lines (survivor)': countLines(log, /NotEnoughReplicasException/),
          '"Shrinking ISR" lines (survivor)': countLines(log, /Shrinking ISR from/),
          'producer NOT_ENOUGH_REPLICAS lines': countLines(join(env.clientsDir, 'producer.log'), /NOT_ENOUGH_REPLICAS|NotEnoughReplicas/),
        }
      },
      whatWasDone: (env) =>
        `brokers ${env.cluster.brokers.filter((b) => b.id !== env.target.id).map((b) => b.id).join(' and ')} were killed with SIGKILL, leaving broker ${env.target.id} (the controller) as the only replica of every partition, below \`min.insync.replicas=2\`; the producer kept sending with \`acks=all\` for ${AFTER_MS / 1000} s.`,
      expect: { topRule: 'under_min_isr_writes_failing', absentRules: ['disk_full', 'log_dir_failure'] },
    }),
}
