import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { runFaultScenario } from '../fault-scenario.js'
import { failedAuthenticationLines, rejectedProducerSteps, sslListener, sslClientSettings } from '../rejected-producer.js'
import { firstReason, needsCommand, runOrThrow } from '../faults/requirements.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const LISTENER = 'SSL'
const CLIENT_MS = 60_000
const PASS = 'lab-store-pass'

function keytool(args: string[], what: string): void {
  runOrThrow('keytool', [...args, '-storepass', PASS], what)
}

/**
 * A certificate that has expired: every broker has an SSL listener beside its PLAINTEXT one whose key
 * store holds a certificate for CN=localhost signed by a lab CA, valid for one day ten days ago
 * (keytool -gencert -startdate -10d -validity 1). A second producer trusts that CA (so trust is not what
 * fails) and connects to the listener for a minute: the JDK's path validation rejects the broker's
 * certificate as expired on every handshake.
 */
export const scenario: Scenario = {
  name: 'tls-cert-expired',
  summary: `the brokers' SSL listener presents a certificate that expired 9 days ago to a producer that trusts its issuer, for ${CLIENT_MS / 1000} s: every TLS handshake fails on the expiry`,
  needs: { seconds: 140, memoryMb: 1_450, ports: 'ZooKeeper 1, brokers 3 (2 listeners each), exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'keytool (the JDK)',
  unavailable: () => firstReason(needsCommand('keytool', 'openjdk-17-jdk-headless')),
  run: (ctx) => {
    const tls = join(ctx.workDir, 'tls')
    const ks = join(tls, 'broker.p12')
    const ca = join(tls, 'ca.p12')
    const client = rejectedProducerSteps({ name: 'ssl', listener: LISTENER, settings: sslClientSettings(join(tls, 'client-trust.p12'), PASS), forMs: CLIENT_MS })
    return runFaultScenario(ctx, {
      slug: 'lab-tls-cert-expired',
      title: 'an expired broker certificate: TLS handshakes fail on its validity',
      brokers: 3,
      prepare() {
        mkdirSync(tls, { recursive: true })
        const p12 = ['-storetype', 'PKCS12']
        keytool(['-genkeypair', '-alias', 'ca', '-keyalg', 'RSA', '-keysize', '2048', '-dname', 'CN=Lab CA', '-ext', 'bc:c', '-validity', '365', ...p12, '-keystore', ca, '-keypass', PASS], 'generating the lab CA')
        keytool(['-exportcert', '-rfc', '-alias', 'ca', '-keystore', ca, '-file', join(tls, 'ca.crt')], 'exporting the lab CA')
        keytool(['-genkeypair', '-alias', 'broker', '-keyalg', 'RSA', '-keysize', '2048', '-dname', 'CN=localhost', '-validity', '30', ...p12, '-keystore', ks, '-keypass', PASS], 'generating the broker key pair')
        keytool(['-certreq', '-alias', 'broker', '-keystore', ks, '-file', join(tls, 'broker.csr')], 'requesting the broker certificate')
        keytool(
          ['-gencert', '-alias', 'ca', '-keystore', ca, '-infile', join(tls, 'broker.csr'), '-outfile', join(tls, 'broker.crt'), '-rfc',
            '-startdate', '-10d', '-validity', '1', '-ext', 'SAN=ip:127.0.0.1,dns:localhost'],
          'signing an already expired broker certificate',
        )
        keytool(['-importcert', '-noprompt', '-alias', 'ca', '-file', join(tls, 'ca.crt'), '-keystore', ks], 'adding the CA to the broker key store')
        keytool(['-importcert', '-noprompt', '-alias', 'broker', '-file', join(tls, 'broker.crt'), '-keystore', ks], 'installing the expired certificate')
        keytool(['-importcert', '-noprompt', '-alias', 'ca', '-file', join(tls, 'ca.crt'), ...p12, '-keystore', join(tls, 'client-trust.p12')], 'building the client trust store')
        return () => undefined
      },
      cluster: sslListener(LISTENER, ks, PASS),
      ...client.steps,
      extraFiles: (env) => [{ from: join(env.clientsDir, 'ssl-producer.log'), to: 'clients/ssl-producer.log', format: 'client' as const }],
      measure(env) {
        const clientLog = join(env.clientsDir, 'ssl-producer.log')
        return {
          'SSL producer': client.exit(),
          ...failedAuthenticationLines(env, '"Failed authentication with … (SSL handshake failed)"', /Failed authentication with .*SSL handshake failed/),
          '"CertificateExpiredException" lines (SSL producer\'s log)': countLines(clientLog, /CertificateExpiredException/),
          '"validity check failed" lines (SSL producer\'s log)': countLines(clientLog, /validity check failed/),
          '"PKIX path building failed" lines (SSL producer\'s log)': countLines(clientLog, /PKIX path building failed/),
          'producer error lines (PLAINTEXT producer)': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `every broker had a second listener, \`${LISTENER}\`, whose key store held a certificate for CN=localhost (SAN ip:127.0.0.1) signed by a lab CA (CN=Lab CA, valid a year) with \`keytool -gencert -startdate -10d -validity 1\`: valid for one day, ten days ago (PLAINTEXT stayed the inter-broker listener). A second \`kafka-producer-perf-test\` (client id \`billing-producer\`, 50 records/s) connected to that listener with \`security.protocol=SSL\` and a trust store holding the lab CA, so it trusts the certificate's issuer and only the expiry can fail, for ${CLIENT_MS / 1000} s. Its log is recorded as \`clients/ssl-producer.log\`.`,
      expect: { topRule: 'certificate_expired', absentRules: ['sasl_authentication_failures', 'advertised_listener_unreachable'] },
    })
  },
}
