import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import { dropUserTraffic, USER_TRAFFIC_FAULT } from '../faults/network.js'
import { UNPRIVILEGED } from '../faults/requirements.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const LAG_TIME_MS = 10_000
const CUT_MS = 45_000

/**
 * One broker cut off from its peers (not from ZooKeeper): every packet it sends to the other brokers'
 * ports is dropped (iptables, matched on the broker's user), so its replica fetchers get no answer and
 * the leaders drop it from their ISRs, while it keeps its ZooKeeper session and stays registered.
 * Then the path heals and it catches up.
 */
export const scenario: Scenario = {
  name: 'broker-partitioned',
  summary: `broker ${BROKER}'s packets to the other brokers' ports dropped for ${CUT_MS / 1000} s (its ZooKeeper traffic untouched), then healed: its fetchers fail and it falls out of the ISRs`,
  needs: { seconds: 120, memoryMb: 1_450, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  ...USER_TRAFFIC_FAULT,
  run: (ctx) => {
    let cutForMs = 0
    return runFaultScenario(ctx, {
      slug: 'lab-broker-partitioned',
      title: 'one broker cut off from its peers by the network (not from ZooKeeper): its fetchers fail, it leaves the ISRs',
      brokers: 3,
      cluster: { runAsById: { [BROKER]: UNPRIVILEGED }, brokerConfig: { 'replica.lag.time.max.ms': String(LAG_TIME_MS) } },
      ...ORDERS_LOAD,
      pickTarget: () => BROKER,
      async inject(env) {
        const peers = env.cluster.brokers.filter((b) => b.id !== BROKER)
        const heal = dropUserTraffic(UNPRIVILEGED.uid, peers.map((b) => b.port))
        await pause(CUT_MS)
        heal()
        cutForMs = Date.now() - env.faultAt
        return heal
      },
      async aftermath() {
        await pause(20_000)
      },
      measure(env) {
        const peers = env.cluster.brokers.filter((b) => b.id !== BROKER)
        const log = env.target.serverLog
        return {
          'packets to the other brokers dropped for (ms)': cutForMs,
          'replica.lag.time.max.ms': LAG_TIME_MS,
          '"Error in response for fetch request" lines (cut-off broker)': countLines(log, /Error in response for fetch request/),
          '"Shrinking ISR" lines naming the cut-off broker (other brokers)': peers.reduce((n, b) => n + countLines(b.serverLog, new RegExp(`Shrinking ISR from .*Out of sync replicas: \\(brokerId: ${BROKER},`)), 0),
          '"Expanding ISR" lines (other brokers)': peers.reduce((n, b) => n + countLines(b.serverLog, /Expanding ISR from/), 0),
          'ZooKeeper session expiries (cut-off broker)': countLines(log, /Session expired|has expired/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: (env) =>
        `broker ${BROKER} ran as \`nobody\` (uid ${UNPRIVILEGED.uid}); every TCP packet that user sent to the other brokers' ports (${env.cluster.brokers.filter((b) => b.id !== BROKER).map((b) => b.port).join(', ')}) on the loopback interface was dropped (\`iptables -A OUTPUT -o lo -p tcp --dport … -m owner --uid-owner ${UNPRIVILEGED.uid} -j DROP\`) for ${CUT_MS / 1000} s, then the rules were deleted. Its packets to ZooKeeper were not touched, and the other brokers' connections to it (their fetches from the partitions it leads, the controller's requests) went through: it was cut off from its peers in one direction, as by a firewall rule or a broken route on its side. \`replica.lag.time.max.ms=${LAG_TIME_MS}\`.`,
      expect: { topRule: 'broker_cut_off_from_peers', absentRules: ['zk_session_expiry_no_pause', 'isr_flapping_slow_follower'] },
    })
  },
}
