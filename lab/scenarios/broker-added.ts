import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const NEW_BROKER = 4
const AFTER_MS = 40_000

/**
 * Control: a fourth broker joins a running 3-broker cluster under load. It registers, gets the cluster
 * metadata and no partitions (nothing is reassigned to it), and serves. Nothing is wrong.
 */
export const scenario: Scenario = {
  name: 'broker-added',
  summary: `control: a 4th broker started into a running 3-broker cluster under load, observed ${AFTER_MS / 1000} s`,
  needs: { seconds: 130, memoryMb: 1_600, ports: 'ZooKeeper 1, brokers 4, exporters 4 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    let joinedInMs = 0
    return runFaultScenario(ctx, {
      slug: 'lab-broker-added',
      title: 'control: a fourth broker joins a running cluster',
      brokers: 4,
      cluster: { startLater: [NEW_BROKER] },
      ...ORDERS_LOAD,
      pickTarget: () => NEW_BROKER,
      async inject(env) {
        const t0 = Date.now()
        await env.cluster.restartBroker(NEW_BROKER)
        joinedInMs = Date.now() - t0
      },
      async aftermath() {
        await pause(AFTER_MS)
      },
      measure(env) {
        const controllerLogs = env.cluster.brokers.map((b) => join(b.logDir, 'controller.log'))
        return {
          'new broker started and registered in (ms)': joinedInMs,
          '"Newly added brokers" lines naming it (controller)': controllerLogs.reduce((n, f) => n + countLines(f, new RegExp(`Newly added brokers: ${NEW_BROKER}\\b`)), 0),
          'ERROR lines (new broker)': countLines(env.target.serverLog, / ERROR /),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${NEW_BROKER} was configured with the others but not started; after the warm-up it was started with the same kind of command line, registered in ZooKeeper and joined the cluster. No partition was reassigned to it; it was observed for ${AFTER_MS / 1000} s.`,
      expect: { topRule: null, absentRules: ['broker_killed_unclean_restart', 'controller_flapping', 'advertised_listener_unreachable'] },
    })
  },
}
