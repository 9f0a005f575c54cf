import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'
import { waitFor } from '../wait-for.js'

const DOWN_MS = 15_000
const SESSION_TIMEOUT_MS = 6_000

/**
 * kill -9 of the active controller under load, then a restart into log recovery: the process never
 * writes its clean-shutdown marker, the other brokers elect a new controller and leaders, and the
 * restarted broker recovers its unflushed segments before it rejoins.
 */
export const scenario: Scenario = {
  name: 'broker-kill',
  summary: `kill -9 of the active controller of 3 ZooKeeper-mode brokers under acks=all load, restarted ${DOWN_MS / 1000} s later into log recovery`,
  needs: { seconds: 160, memoryMb: 1_000, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  watchable: true,
  run: (ctx) => {
    let downForMs = 0
    return runFaultScenario(ctx, {
      slug: 'lab-broker-kill',
      title: 'the active controller killed with SIGKILL and restarted into log recovery',
      brokers: 3,
      cluster: { zkSessionTimeoutMs: SESSION_TIMEOUT_MS },
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 12_000,
      pickTarget: (cluster, controller) => (controller > 0 ? controller : cluster.brokers[0].id),
      async inject(env) {
        env.target.process.signal('SIGKILL')
        await env.target.process.exited
      },
      async aftermath(env) {
        await pause(DOWN_MS)
        downForMs = Date.now() - env.faultAt
        env.ctx.log(`restarting broker ${env.target.id} after ${downForMs} ms`)
        await env.cluster.restartBroker(env.target.id)
        // Back in the ISR of every partition: the restarted follower caught up.
        await waitFor(() => countLines(env.target.serverLog, /Recovering unflushed segment|Loading producer state/) > 0, { timeoutMs: 5_000, what: 'log recovery lines' }).catch(() => undefined)
        await pause(15_000)
      },
      measure(env) {
        const log = env.target.serverLog
        const peers = env.cluster.brokers.filter((b) => b.id !== env.target.id)
        return {
          'signal': 'SIGKILL to the broker\'s process group',
          'down for (ms)': downForMs,
          'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS,
          '"Recovering unflushed segment" lines (restarted broker)': countLines(log, /Recovering unflushed segment/),
          '"clean shutdown file" lines (restarted broker)': countLines(log, /clean shutdown file|unclean shutdown|Skipping recovery of|Found no clean/i),
          'controller elections on the other brokers ("successfully elected as the controller")': peers.reduce(
            (n, b) => n + countLines(join(b.logDir, 'controller.log'), /successfully elected as the controller/),
            0,
          ),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `the active controller, broker ${env.target.id}, was killed with SIGKILL (\`kill -9\` of its process group), so it wrote no clean-shutdown marker. After ${DOWN_MS / 1000} s (its ZooKeeper session, ${SESSION_TIMEOUT_MS / 1000} s, had expired and another broker had become controller) it was started again with the same command line and recovered its logs.`,
      expect: { topRule: 'broker_killed_unclean_restart', absentRules: ['disk_full', 'log_dir_failure'] },
    })
  },
}
