import type { Matcher } from './matchers.js'
import type { LogFormat } from './types.js'

/**
 * Matcher rows for the session timeouts a broker runs with. Whether a pause costs a broker its
 * ZooKeeper session (or its KRaft registration) depends on these numbers, and logs say them: the
 * ZooKeeper client when it connects and when the server grants a session, and Kafka's config dump at
 * start-up. They become facts, which rules compare pauses with (`zk.session_timeout_limit`).
 */

const KAFKA: readonly LogFormat[] = ['kafka']

/** One "\tkey = N" line of the KafkaConfig dump as a fact (one row per key: a record row stops at its first hit). */
function configLine(key: string, fact: string): Matcher {
  const re = new RegExp(`^\\s*${key.replace(/\./g, '\\.')} = (\\d+)\\s*$`)
  return {
    literals: [`${key} = `],
    scope: 'record',
    formats: KAFKA,
    re,
    build: (m, r) => (r.lines[0].includes('KafkaConfig values') ? { name: fact, value: Number(m[1]) } : undefined),
  }
}

/** The session matcher rows, spliced into MATCHERS. */
export const SESSION_MATCHERS: readonly Matcher[] = [
  // S1. ZooKeeper 3.4-3.9 ZooKeeper.java "Initiating client connection, connectString=127.0.0.1:45005
  //     sessionTimeout=6000 watcher=kafka.zookeeper.ZooKeeperClient$ZooKeeperClientWatcher$@2ea6e30c"
  //     (test/incidents/lab-stw): the timeout the broker asks for, its zookeeper.session.timeout.ms.
  {
    literals: ['Initiating client connection'],
    scope: 'message',
    formats: KAFKA,
    re: /Initiating client connection, connectString=\S* sessionTimeout=(\d+)/,
    build: (m) => ({ name: 'config.zookeeper_session_timeout_ms', value: Number(m[1]) }),
  },
  // S2. ZooKeeper 3.4 ClientCnxn "Session establishment complete on server zk1/10.1.0.11:2181, sessionid =
  //     0x1694ab0d2f80031, negotiated timeout = 6000" (test/incidents/zk-timeout-network-cut); 3.5+
  //     "…, session id = 0x100001597490002, negotiated timeout = 6000" (lab-stw): what the server granted,
  //     and that a connection lost before is back (zk_unavailable resolves on it).
  {
    literals: ['Session establishment complete'],
    scope: 'message',
    formats: KAFKA,
    re: /Session establishment complete on server .*?, session ?id = (0x[0-9a-f]+), negotiated timeout = (\d+)/,
    build: (m) => [
      { name: 'zk.negotiated_session_timeout', value: Number(m[2]) },
      { name: 'zk.session_established', labels: { session: m[1] } },
    ],
  },
  // S3. Kafka 0.9-4.x KafkaConfig dump at start-up ("KafkaConfig values:" then one "\tkey = value" line per
  //     config): "\tzookeeper.session.timeout.ms = 18000" (lab-stw shows 6000).
  configLine('zookeeper.session.timeout.ms', 'config.zookeeper_session_timeout_ms'),
  // S4. The same dump's "\tbroker.session.timeout.ms = 9000" (Kafka 2.8-4.x, lab-stw): the KRaft
  //     controllers fence a broker they have not heard from for this long.
  configLine('broker.session.timeout.ms', 'config.broker_session_timeout_ms'),
  // S5. The same dump's "\treplica.lag.time.max.ms = 30000" (lab-stw): a leader paused longer than this
  //     finds its followers behind when it resumes and shrinks its ISRs, whatever its ZooKeeper session did.
  configLine('replica.lag.time.max.ms', 'config.replica_lag_time_max_ms'),
]
