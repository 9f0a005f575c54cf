import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD, startOrdersConsumer } from '../fault-scenario.js'
import type { ManagedProcess } from '../managed-process.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const GROUP = 'billing'
const ALONE_MS = 20_000
const AFTER_MS = 40_000

/**
 * Control: a consumer group scaled out once, from one member to three, under load. The coordinator
 * rebalances the group (once per joining member at most) and the partitions are spread; nothing is wrong.
 */
export const scenario: Scenario = {
  name: 'group-scale-out',
  summary: `control: consumer group ${GROUP} grows from 1 to 3 members once (kafka-consumer-perf-test), observed ${AFTER_MS / 1000} s`,
  needs: { seconds: 110, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    const consumers: ManagedProcess[] = []
    return runFaultScenario(ctx, {
      slug: 'lab-group-scale-out',
      title: 'control: a consumer group scaled out from one member to three',
      brokers: 3,
      ...ORDERS_LOAD,
      // The group's coordinator is not known before the run; broker 1 is asked, and the rule test checks every broker.
      pickTarget: () => 1,
      async inject(env) {
        const start = (n: number) => startOrdersConsumer(env, GROUP, n)
        consumers.push(start(1))
        await pause(ALONE_MS)
        consumers.push(start(2), start(3))
        return () => {
          for (const c of consumers) c.signal('SIGKILL')
        }
      },
      async aftermath() {
        await pause(AFTER_MS)
        await Promise.all(consumers.map((c) => c.stop(3_000)))
      },
      extraFiles: () => [1, 2, 3].map((n) => ({ from: join(ctx.workDir, 'clients', `consumer-${n}.log`), to: `clients/consumer-${n}.log`, format: 'client' as const })),
      measure(env) {
        const logs = env.cluster.brokers.map((b) => b.serverLog)
        return {
          'members': '1, then 3 after ' + ALONE_MS / 1000 + ' s',
          '"Preparing to rebalance group billing" lines (all brokers)': logs.reduce((n, f) => n + countLines(f, new RegExp(`Preparing to rebalance group ${GROUP}\\b`)), 0),
          '"Stabilized group billing" lines (all brokers)': logs.reduce((n, f) => n + countLines(f, new RegExp(`Stabilized group ${GROUP}\\b`)), 0),
          'consumer error lines': [1, 2, 3].reduce((n, k) => n + countLines(join(env.clientsDir, `consumer-${k}.log`), / (?:WARN|ERROR) /), 0),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `\`kafka-consumer-perf-test --group ${GROUP}\` was started against topic orders; ${ALONE_MS / 1000} s later two more instances joined the same group, so it went from one member to three once. The three kept consuming for ${AFTER_MS / 1000} s and were then stopped.`,
      expect: { topRule: null, absentRules: ['group_rebalance_storm', 'group_member_heartbeat_expired'] },
    })
  },
}
