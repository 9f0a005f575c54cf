import { join } from 'node:path'
import { runFaultScenario } from '../fault-scenario.js'
import { failedAuthenticationLines, rejectedProducerSteps } from '../rejected-producer.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const LISTENER = 'SASL_PLAINTEXT'
const BAD_CLIENT_MS = 60_000

/**
 * A client with a wrong password on a SASL/PLAIN listener: every broker has a SASL_PLAINTEXT listener
 * beside its PLAINTEXT one (PLAIN users from the listener's JAAS entry), and a second producer connects
 * to it as user alice with a password the brokers do not know, for a minute. The brokers refuse every
 * authentication; the first producer, on PLAINTEXT, is unaffected.
 */
export const scenario: Scenario = {
  name: 'sasl-auth-failure',
  summary: `a producer with a wrong password on a SASL_PLAINTEXT (PLAIN) listener for ${BAD_CLIENT_MS / 1000} s: every authentication refused`,
  needs: { seconds: 140, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3 (2 listeners each), exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    const bad = rejectedProducerSteps({
      name: 'sasl',
      listener: LISTENER,
      settings: ['security.protocol=SASL_PLAINTEXT', 'sasl.mechanism=PLAIN', 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="not-alices-password";'],
      forMs: BAD_CLIENT_MS,
    })
    return runFaultScenario(ctx, {
      slug: 'lab-sasl-auth-failure',
      title: 'a client with a wrong password on a SASL/PLAIN listener: authentication refused',
      brokers: 3,
      cluster: {
        extraListeners: [{ name: LISTENER, protocol: 'SASL_PLAINTEXT' }],
        brokerConfig: {
          'sasl.enabled.mechanisms': 'PLAIN',
          'listener.name.sasl_plaintext.plain.sasl.jaas.config':
            'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";',
        },
      },
      ...bad.steps,
      measure(env) {
        return {
          'wrong-password producer': bad.exit(),
          ...failedAuthenticationLines(env, '"Failed authentication with"', /Failed authentication with/),
          '"Invalid username or password" lines (wrong-password producer\'s log)': countLines(join(env.clientsDir, 'sasl-producer.log'), /Invalid username or password/),
          'producer error lines (PLAINTEXT producer)': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `every broker had a second listener, \`${LISTENER}\` with \`sasl.enabled.mechanisms=PLAIN\` and the users admin and alice in \`listener.name.sasl_plaintext.plain.sasl.jaas.config\` (PLAINTEXT stayed the inter-broker listener). A second \`kafka-producer-perf-test\` (client id \`billing-producer\`, 50 records/s) connected to that listener as alice with a wrong password (\`security.protocol=SASL_PLAINTEXT\`, \`sasl.mechanism=PLAIN\`) for ${BAD_CLIENT_MS / 1000} s. Its own log is not part of the recording (only the PLAINTEXT producer's is); the figures below count it.`,
      expect: { topRule: 'sasl_authentication_failures', absentRules: ['tls_handshake_failures', 'advertised_listener_unreachable'] },
    })
  },
}
