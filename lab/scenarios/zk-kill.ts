import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const SESSION_TIMEOUT_MS = 6_000
const AFTER_MS = 25_000

/**
 * ZooKeeper killed with SIGKILL under three brokers and left down: every broker loses its session
 * within a tick of the others, and nothing in any JVM paused.
 */
export const scenario: Scenario = {
  name: 'zk-kill',
  summary: `ZooKeeper killed (SIGKILL) under 3 brokers and acks=all load, left down for ${AFTER_MS / 1000} s`,
  needs: { seconds: 105, memoryMb: 800, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runFaultScenario(ctx, {
      slug: 'lab-zk-kill',
      title: 'ZooKeeper killed: every broker loses its session at once',
      brokers: 3,
      cluster: { zkSessionTimeoutMs: SESSION_TIMEOUT_MS },
      ...ORDERS_LOAD,
      async inject(env) {
        const zk = env.cluster.zookeeper!.process
        zk.signal('SIGKILL')
        await zk.exited
      },
      async aftermath() {
        await pause(AFTER_MS)
      },
      measure(env) {
        const count = (re: RegExp) => env.cluster.brokers.reduce((n, b) => n + countLines(b.serverLog, re), 0)
        return {
          'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS,
          'ZooKeeper down for (s, until the recording ended)': AFTER_MS / 1000,
          '"Unable to read additional data from server" lines (all brokers)': count(/Unable to read additional data from server/),
          '"Client session timed out" lines (all brokers)': count(/Client session timed out/),
          '"Connection refused" lines (all brokers)': count(/Connection refused/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `the ZooKeeper server (the ensemble's only member) was killed with SIGKILL and not started again; the brokers and the producer ran on for ${AFTER_MS / 1000} s.`,
      expect: { topRule: 'zk_unavailable', absentRules: ['stw_pause_session_expiry', 'gc_pause_session_expiry'] },
    }),
}
