import { join } from 'node:path'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { dropUserTraffic, USER_TRAFFIC_FAULT } from '../faults/network.js'
import { UNPRIVILEGED } from '../faults/requirements.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'
import { waitFor } from '../wait-for.js'

const LEADER = 1
const LAGGING = 2
const SESSION_TIMEOUT_MS = 6_000
const LAG_TIME_MS = 10_000
const LAGGING_FOR_MS = 8_000

/**
 * Unclean leader election: on a 2-broker cluster a topic with unclean.leader.election.enable=true and
 * RF 2 takes acks=1 writes. Broker 2 (run as nobody) has its packets to broker 1 dropped, so its
 * fetchers fail and broker 1 shrinks every ISR to itself and goes on taking writes alone. Broker 1 is
 * then killed: no replica in the ISR is alive, and the controller elects the lagging broker 2 leader,
 * losing what only broker 1 had. The path heals and broker 1 restarts as a follower, truncating its
 * log to the new leader's.
 */
export const scenario: Scenario = {
  name: 'unclean-election',
  summary: `broker ${LAGGING} cut off from broker ${LEADER}'s port until it left every ISR, then broker ${LEADER} killed: the lagging broker ${LAGGING} elected leader uncleanly (unclean.leader.election.enable=true, acks=1), broker ${LEADER} restarted into truncation`,
  needs: { seconds: 110, memoryMb: 1_000, ports: 'ZooKeeper 1, brokers 2, exporters 2 (dynamic, 127.0.0.1)' },
  ...USER_TRAFFIC_FAULT,
  run: (ctx) => {
    let shrinks = 0
    let cutForMs = 0
    return runFaultScenario(ctx, {
      slug: 'lab-unclean-election',
      title: 'the only in-sync replica killed while the other lagged: an out-of-sync replica elected leader, records lost',
      brokers: 2,
      cluster: {
        zkSessionTimeoutMs: SESSION_TIMEOUT_MS,
        runAsById: { [LAGGING]: UNPRIVILEGED },
        brokerConfig: { 'replica.lag.time.max.ms': String(LAG_TIME_MS) },
      },
      topic: { name: 'orders', partitions: 6, replicationFactor: 2, configs: { 'unclean.leader.election.enable': 'true', 'min.insync.replicas': '1' } },
      producer: { acks: '1', recordsPerSec: 500, recordBytes: 1_024 },
      warmupMs: 10_000,
      pickTarget: () => LAGGING,
      async inject(env) {
        const leader = env.cluster.brokers.find((b) => b.id === LEADER)!
        const heal = dropUserTraffic(UNPRIVILEGED.uid, [leader.port])
        try {
          // Broker 1 drops broker 2 from the ISR of every partition it leads.
          await waitFor(() => countLines(leader.serverLog, /Shrinking ISR from/) >= 3, { timeoutMs: 45_000, intervalMs: 500, what: `broker ${LEADER} shrinking its ISRs` })
          shrinks = countLines(leader.serverLog, /Shrinking ISR from/)
          // Records only broker 1 has.
          await pause(LAGGING_FOR_MS)
          env.ctx.log(`killing broker ${LEADER}, the only in-sync replica of its partitions`)
          leader.process.signal('SIGKILL')
          await leader.process.exited
          // The controller notices the dead broker once its ZooKeeper session expires.
          await waitFor(() => countLines(join(env.target.logDir, 'state-change.log'), /OnlinePartition/) > 0 || countLines(env.target.serverLog, /starts at leader epoch/) > 0, {
            timeoutMs: 30_000,
            intervalMs: 500,
            what: `broker ${LAGGING} taking over the leaderships`,
          }).catch(() => env.ctx.log('no leadership change seen on the lagging broker'))
          await pause(5_000)
        } finally {
          heal()
          cutForMs = Date.now() - env.faultAt
        }
        return heal
      },
      async aftermath(env) {
        env.ctx.log(`restarting broker ${LEADER}`)
        await env.cluster.restartBroker(LEADER)
        await pause(20_000)
      },
      measure(env) {
        const leader = env.cluster.brokers.find((b) => b.id === LEADER)!
        const stateChange = (b: typeof leader) => join(b.logDir, 'state-change.log')
        return {
          'replica.lag.time.max.ms': LAG_TIME_MS,
          'packets of broker 2 to broker 1 dropped for (ms)': cutForMs,
          '"Shrinking ISR" lines (broker 1, before the kill)': shrinks,
          'ZooKeeper session of the killed broker (ms)': SESSION_TIMEOUT_MS,
          '"leaderRecoveryState=RECOVERING" lines (state-change logs)': env.cluster.brokers.reduce((n, b) => n + countLines(stateChange(b), /leaderRecoveryState=RECOVERING/), 0),
          '"Truncating" lines (restarted broker 1)': countLines(leader.serverLog, /Truncating/),
          '"Error in response for fetch request" lines (broker 2)': countLines(env.target.serverLog, /Error in response for fetch request/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `broker ${LAGGING} ran as \`nobody\` (uid ${UNPRIVILEGED.uid}); every TCP packet it sent to broker ${LEADER}'s port on the loopback interface was dropped (\`iptables -A OUTPUT -o lo -p tcp --dport ${env.cluster.brokers.find((b) => b.id === LEADER)!.port} -m owner --uid-owner ${UNPRIVILEGED.uid} -j DROP\`), so its fetchers from broker ${LEADER} failed and, after \`replica.lag.time.max.ms=${LAG_TIME_MS}\`, broker ${LEADER} shrank the ISR of every partition it led to itself and went on taking \`acks=1\` writes alone. ${LAGGING_FOR_MS / 1000} s later broker ${LEADER} was killed with SIGKILL; once its ZooKeeper session (${SESSION_TIMEOUT_MS / 1000} s) expired, the controller elected the out-of-sync broker ${LAGGING} leader of those partitions (the topic allows unclean election). The drop rule was then deleted and broker ${LEADER} restarted with the same command line, rejoining as a follower of the new leaders.`,
      expect: { topRule: 'unclean_leader_election', absentRules: ['disk_full', 'log_dir_failure'] },
    })
  },
}
