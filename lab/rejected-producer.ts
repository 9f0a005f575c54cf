import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pause, type FaultEnv } from './fault-scenario.js'
import { startJavaTool } from './java-tool.js'

/**
 * A second `kafka-producer-perf-test` (client id `billing-producer`, 50 records/s) pointed at one
 * extra listener of every broker with the client settings given (a wrong password, a trust store
 * that lacks the brokers' certificate), for `forMs`: the security scenarios' misconfigured client.
 * Its config is `<name>-client.properties`, its output `<name>-producer.out`/`.log` in the clients'
 * folder (the latter counted, not recorded). Returns how it ended, for the README.
 */
export async function runRejectedProducer(
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
