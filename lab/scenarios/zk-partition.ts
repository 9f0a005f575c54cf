import { pause, runFaultScenario, ORDERS_LOAD } from '../fault-scenario.js'
import { dropUserTraffic, USER_TRAFFIC_FAULT } from '../faults/network.js'
import { UNPRIVILEGED } from '../faults/requirements.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const SESSION_TIMEOUT_MS = 6_000
const CUT_MS = 15_000

/**
 * One broker cut off from ZooKeeper by the network while it keeps running: its packets to
 * ZooKeeper's port are dropped (iptables, matched on the broker's user) for longer than its session,
 * then the path heals. ZooKeeper expires the session, the controller moves its leaderships, and the
 * broker learns of the expiry only once it reaches ZooKeeper again. No JVM paused.
 */
export const scenario: Scenario = {
  name: 'zk-partition',
  summary: `broker ${BROKER}'s packets to ZooKeeper dropped for ${CUT_MS / 1000} s (longer than its ${SESSION_TIMEOUT_MS / 1000} s session), then healed: a session expiry from the network, no pause`,
  needs: { seconds: 140, memoryMb: 900, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  watchable: true,
  ...USER_TRAFFIC_FAULT,
  run: (ctx) => {
    let cutForMs = 0
    return runFaultScenario(ctx, {
      slug: 'lab-zk-partition',
      title: 'one broker cut off from ZooKeeper by the network: its session expires, no pause',
      brokers: 3,
      cluster: { zkSessionTimeoutMs: SESSION_TIMEOUT_MS, runAsById: { [BROKER]: UNPRIVILEGED } },
      ...ORDERS_LOAD,
      pickTarget: () => BROKER,
      async inject(env) {
        const heal = dropUserTraffic(UNPRIVILEGED.uid, [env.cluster.zookeeper!.port])
        await pause(CUT_MS)
        heal()
        cutForMs = Date.now() - env.faultAt
        return heal
      },
      async aftermath() {
        await pause(20_000)
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'packets to ZooKeeper dropped for (ms)': cutForMs,
          'zookeeper.session.timeout.ms': SESSION_TIMEOUT_MS,
          '"Client session timed out" lines (cut-off broker)': countLines(log, /Client session timed out/),
          '"Session expired" lines (cut-off broker)': countLines(log, /Session expired|has expired/),
          '"Client session timed out" lines (other brokers)': env.cluster.brokers.filter((b) => b.id !== BROKER).reduce((n, b) => n + countLines(b.serverLog, /Client session timed out/), 0),
          'safepoints of 1 s or more (cut-off broker)': countLines(env.target.gcLog, /(?:Reaching safepoint|Total): [1-9]\d{9,} ns/),
        }
      },
      whatWasDone: (env) =>
        `broker ${BROKER} ran as \`nobody\` (uid ${UNPRIVILEGED.uid}); every TCP packet that user sent to ZooKeeper's port (${env.cluster.zookeeper!.port}) on the loopback interface was dropped (\`iptables -A OUTPUT -o lo -p tcp --dport … -m owner --uid-owner ${UNPRIVILEGED.uid} -j DROP\`) for ${CUT_MS / 1000} s, longer than its ${SESSION_TIMEOUT_MS / 1000} s ZooKeeper session, then the rule was deleted. The other brokers and ZooKeeper itself ran untouched, and no JVM paused.`,
      expect: { topRule: 'zk_session_expiry_no_pause', absentRules: ['stw_pause_session_expiry', 'gc_pause_session_expiry', 'zk_unavailable'] },
    })
  },
}
