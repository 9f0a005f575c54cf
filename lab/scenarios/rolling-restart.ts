import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const SETTLE_MS = 12_000

/**
 * The healthy control for the process faults: a planned rolling restart, each broker stopped with
 * SIGTERM (controlled shutdown, clean-shutdown marker written) and started again, one at a time, the
 * next one only after the last is back and has caught up.
 */
export const scenario: Scenario = {
  name: 'rolling-restart',
  summary: 'a planned rolling restart of 3 ZooKeeper-mode brokers (SIGTERM, controlled shutdown, restart) under acks=all load: a healthy control',
  needs: { seconds: 245, memoryMb: 1_050, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    const stoppedMs: number[] = []
    return runFaultScenario(ctx, {
      slug: 'lab-rolling-restart',
      title: 'a planned rolling restart (healthy control)',
      brokers: 3,
      ...ORDERS_LOAD,
      pickTarget: () => 1,
      async inject() {},
      async aftermath(env) {
        // The controller last, as operators do, so control moves once.
        const order = [...env.cluster.brokers].sort((a, b) => Number(a.id === env.controller) - Number(b.id === env.controller))
        for (const b of order) {
          const t = Date.now()
          env.ctx.log(`controlled shutdown of broker ${b.id}`)
          await b.process.stop(60_000)
          await env.cluster.restartBroker(b.id)
          stoppedMs.push(Date.now() - t)
          await pause(SETTLE_MS)
        }
      },
      measure(env) {
        const count = (re: RegExp) => env.cluster.brokers.reduce((n, b) => n + countLines(b.serverLog, re), 0)
        return {
          'brokers restarted (in order)': env.cluster.brokers.length,
          'stop → started again (s, each)': stoppedMs.map((ms) => (ms / 1000).toFixed(1)).join(', '),
          'pause between brokers (s)': SETTLE_MS / 1000,
          '"Controlled shutdown request returned successfully" lines': count(/Controlled shutdown request returned successfully|Controlled shutdown succeeded/),
          'ERROR lines (all brokers)': count(/^\[[^\]]+\] ERROR /),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `each broker in turn (the controller, broker ${env.controller}, last) was stopped with SIGTERM, which runs Kafka's controlled shutdown and writes the clean-shutdown marker, started again with the same command line, and given ${SETTLE_MS / 1000} s to catch up before the next.`,
      expect: { topRule: null, absentRules: ['broker_killed_unclean_restart', 'broker_restart_loop'] },
    })
  },
}
