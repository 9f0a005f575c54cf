import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { runFaultScenario } from '../fault-scenario.js'
import { failedAuthenticationLines, rejectedProducerSteps, sslListener, sslClientSettings } from '../rejected-producer.js'
import { firstReason, needsCommand, runOrThrow } from '../faults/requirements.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const LISTENER = 'SSL'
const BAD_CLIENT_MS = 60_000
const PASS = 'lab-store-pass'

/** A self-signed key pair in a PKCS12 store (keytool from the JDK). */
function selfSigned(store: string, alias: string, dname: string, san?: string): void {
  runOrThrow(
    'keytool',
    ['-genkeypair', '-alias', alias, '-keyalg', 'RSA', '-keysize', '2048', '-dname', dname, ...(san ? ['-ext', `SAN=${san}`] : []), '-validity', '30',
      '-storetype', 'PKCS12', '-keystore', store, '-storepass', PASS, '-keypass', PASS],
    'generating a lab key pair',
  )
}

/**
 * A client that does not trust the brokers' certificate: every broker has an SSL listener beside its
 * PLAINTEXT one, with a self-signed certificate the lab generates (keytool), and a second producer
 * connects to it with a trust store holding only another, unrelated certificate, for a minute. Every
 * TLS handshake fails (PKIX path building); the PLAINTEXT producer is unaffected.
 */
export const scenario: Scenario = {
  name: 'tls-handshake-failure',
  summary: `a producer whose trust store lacks the brokers' certificate on an SSL listener for ${BAD_CLIENT_MS / 1000} s: every TLS handshake fails`,
  needs: { seconds: 140, memoryMb: 1_450, ports: 'ZooKeeper 1, brokers 3 (2 listeners each), exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'keytool (the JDK)',
  unavailable: () => firstReason(needsCommand('keytool', 'openjdk-17-jdk-headless')),
  run: (ctx) => {
    const tls = join(ctx.workDir, 'tls')
    const bad = rejectedProducerSteps({ name: 'ssl', listener: LISTENER, settings: sslClientSettings(join(tls, 'client-trust.p12'), PASS), forMs: BAD_CLIENT_MS })
    return runFaultScenario(ctx, {
      slug: 'lab-tls-handshake-failure',
      title: 'a client that does not trust the brokers\' certificate: TLS handshakes fail',
      brokers: 3,
      prepare() {
        mkdirSync(tls, { recursive: true })
        selfSigned(join(tls, 'broker.p12'), 'broker', 'CN=localhost', 'ip:127.0.0.1,dns:localhost')
        selfSigned(join(tls, 'other.p12'), 'other', 'CN=Some Other CA')
        runOrThrow('keytool', ['-exportcert', '-alias', 'other', '-keystore', join(tls, 'other.p12'), '-storepass', PASS, '-file', join(tls, 'other.crt')], 'exporting a lab certificate')
        runOrThrow(
          'keytool',
          ['-importcert', '-noprompt', '-alias', 'other', '-file', join(tls, 'other.crt'), '-storetype', 'PKCS12', '-keystore', join(tls, 'client-trust.p12'), '-storepass', PASS],
          'building the client trust store',
        )
        return () => undefined
      },
      cluster: sslListener(LISTENER, join(tls, 'broker.p12'), PASS),
      ...bad.steps,
      measure(env) {
        return {
          'untrusting producer': bad.exit(),
          ...failedAuthenticationLines(env, '"Failed authentication with … (SSL handshake failed)"', /Failed authentication with .*SSL handshake failed/),
          '"PKIX path building failed" lines (untrusting producer\'s log)': countLines(join(env.clientsDir, 'ssl-producer.log'), /PKIX path building failed/),
          'producer error lines (PLAINTEXT producer)': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `every broker had a second listener, \`${LISTENER}\`, whose key store held a self-signed certificate for CN=localhost (SAN ip:127.0.0.1) made by \`keytool -genkeypair\` before the start (PLAINTEXT stayed the inter-broker listener). A second \`kafka-producer-perf-test\` (client id \`billing-producer\`, 50 records/s) connected to that listener with \`security.protocol=SSL\` and a trust store holding only an unrelated self-signed certificate (CN=Some Other CA), for ${BAD_CLIENT_MS / 1000} s. Its own log is not part of the recording (only the PLAINTEXT producer's is); the figures below count it.`,
      expect: { topRule: 'tls_handshake_failures', absentRules: ['sasl_authentication_failures', 'certificate_expired', 'advertised_listener_unreachable'] },
    })
  },
}
