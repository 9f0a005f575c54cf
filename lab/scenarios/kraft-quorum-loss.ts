import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const AFTER_MS = 45_000

/**
 * A KRaft controller quorum losing its majority: 3 combined broker+controller nodes, two of them killed
 * (SIGKILL). The survivor cannot win an election with one vote of three, so the quorum has no leader:
 * no metadata change (leadership, ISR, topic) can be made while it runs on.
 */
export const scenario: Scenario = {
  name: 'kraft-quorum-loss',
  summary: `two of 3 KRaft combined nodes killed (SIGKILL) under load and left down ${AFTER_MS / 1000} s: the controller quorum has lost its majority`,
  needs: { seconds: 90, memoryMb: 750, ports: 'nodes 3 (+3 controller listeners), exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    let killed: number[] = []
    return runFaultScenario(ctx, {
      slug: 'lab-kraft-quorum-loss',
      title: 'two of three KRaft voters killed: the controller quorum has lost its majority',
      mode: 'kraft',
      brokers: 3,
      ...ORDERS_LOAD,
      // The survivor is not the active controller, so the quorum's leader is among the dead.
      pickTarget: (cluster, controller) => cluster.brokers.find((b) => b.id !== controller)!.id,
      async inject(env) {
        const others = env.cluster.brokers.filter((b) => b.id !== env.target.id)
        killed = others.map((b) => b.id)
        for (const b of others) b.process.signal('SIGKILL')
        await Promise.all(others.map((b) => b.process.exited))
      },
      async aftermath() {
        await pause(AFTER_MS)
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'voters killed': killed.join(', '),
          'observed after the kill (s)': AFTER_MS / 1000,
          '"Completed transition to CandidateState" lines (survivor)': countLines(log, /Completed transition to CandidateState/),
          '"Completed transition to Leader" lines after the kill (survivor)': countLines(log, /Completed transition to Leader/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `the active controller (node ${env.controller}) and the other node besides ${env.target.id} were killed with SIGKILL, leaving node ${env.target.id} as the only one of the three voters in \`controller.quorum.voters\`; they stayed down for ${AFTER_MS / 1000} s while the producer kept sending.`,
      expect: { topRule: 'kraft_quorum_no_leader', absentRules: ['stw_pause_kraft_fencing'] },
    })
  },
}
