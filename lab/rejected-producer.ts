import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ORDERS_LOAD, pause, type FaultEnv } from './fault-scenario.js'
import { startJavaTool } from './java-tool.js'
import { countLines } from './session-stall.js'

/**
 * A second `kafka-producer-perf-test` (client id `billing-producer`, 50 records/s) pointed at one
 * extra listener of every broker with the client settings given (a wrong password, a trust store
 * that lacks the brokers' certificate), for `forMs`: the security scenarios' misconfigured client.
 * Its config is `<name>-client.properties`, its output `<name>-producer.out`/`.log` in the clients'
 * folder (the latter counted, not recorded). Returns how it ended, for the README.
 */
async function runRejectedProducer(
  env: Pick<FaultEnv, 'ctx' | 'cluster' | 'clientsDir'>,
  o: { name: string; listener: string; settings: string[]; forMs: number },
): Promise<string> {
  const config = join(env.clientsDir, `${o.name}-client.properties`)
  writeFileSync(
    config,
    [
      `bootstrap.servers=${env.cluster.brokers.map((b) => `127.0.0.1:${b.listenerPorts[o.listener]}`).join(',')}`,
      ...o.settings,
      'client.id=billing-producer',
      'acks=all',
    ].join('\n') + '\n',
  )
  const bad = startJavaTool(
    env.ctx.runtime,
    'org.apache.kafka.tools.ProducerPerformance',
    ['--topic', 'orders', '--num-records', '100000000', '--record-size', '512', '--throughput', '50', '--producer.config', config],
    { stdoutFile: join(env.clientsDir, `${o.name}-producer.out`), logFile: join(env.clientsDir, `${o.name}-producer.log`) },
  )
  await Promise.race([pause(o.forMs), bad.exited])
  const exit = bad.alive() ? `still running after ${o.forMs / 1000} s, stopped` : `exited (${await bad.exited})`
  await bad.stop(2_000)
  return exit
}

/** The load every security scenario runs beside its misconfigured client, and the broker it diagnoses. */
const SECURITY_SCENARIO_LOAD = { ...ORDERS_LOAD, pickTarget: () => 1 }

/**
 * What every security scenario does the same way: its load and broker, the misconfigured producer as
 * the fault, and five seconds for the brokers' last lines. `exit()` says how that producer ended.
 */
export function rejectedProducerSteps(o: { name: string; listener: string; settings: string[]; forMs: number }) {
  let exit = ''
  return {
    steps: {
      ...SECURITY_SCENARIO_LOAD,
      async inject(env: FaultEnv): Promise<void> {
        exit = await runRejectedProducer(env, o)
      },
      async aftermath(): Promise<void> {
        await pause(5_000)
      },
    },
    exit: () => exit,
  }
}

/**
 * The brokers' "Failed authentication with" lines for a security scenario's figures: on the diagnosed
 * broker those matching `onTarget` (under `label`), and all of them on every broker.
 */
export function failedAuthenticationLines(env: Pick<FaultEnv, 'cluster' | 'target'>, label: string, onTarget: RegExp): Record<string, number> {
  return {
    [`${label} lines (broker ${env.target.id})`]: countLines(env.target.serverLog, onTarget),
    '"Failed authentication with" lines (all brokers)': env.cluster.brokers.reduce((n, b) => n + countLines(b.serverLog, /Failed authentication with/), 0),
  }
}

/** Cluster options for an `SSL` listener named `listener` beside PLAINTEXT, serving the key pair in a PKCS12 store. */
export function sslListener(listener: string, keystore: string, password: string) {
  return {
    extraListeners: [{ name: listener, protocol: 'SSL' as const }],
    brokerConfig: {
      'listener.name.ssl.ssl.keystore.type': 'PKCS12',
      'listener.name.ssl.ssl.keystore.location': keystore,
      'listener.name.ssl.ssl.keystore.password': password,
      'listener.name.ssl.ssl.key.password': password,
    },
  }
}

/** A client's settings for an `SSL` listener, trusting what a PKCS12 trust store holds. */
export function sslClientSettings(truststore: string, password: string): string[] {
  return ['security.protocol=SSL', 'ssl.truststore.type=PKCS12', `ssl.truststore.location=${truststore}`, `ssl.truststore.password=${password}`]
}
