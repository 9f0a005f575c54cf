import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { pause, runFaultScenario } from '../fault-scenario.js'
import { cgroupUnavailable, makeCgroup, threadCount, type LabCgroup } from '../faults/cgroups.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
/** Threads the broker may still start once its pids limit is set. */
const HEADROOM = 1
const CONNECTIONS = 40
/**
 * Per-broker thread settings raised once the limit is on, each to double the lab's (Kafka refuses more
 * than double at once): each needs new threads started.
 */
const RAISED = { 'num.io.threads': '4', 'num.network.threads': '4', 'num.replica.fetchers': '2' }

/**
 * A broker that cannot start another thread: broker 3's process is moved into a pids cgroup whose
 * pids.max is its thread count plus one, as a container's pid limit a broker has grown into. Then
 * clients open new connections and an operator raises its request handler, network and replica
 * fetcher threads (per-broker dynamic configs, AlterConfigs), so Kafka starts threads that the
 * kernel refuses (clone fails with EAGAIN) and the JVM throws OutOfMemoryError: unable to create
 * native thread.
 */
export const scenario: Scenario = {
  name: 'threads-exhausted',
  summary: `broker ${BROKER}'s pids cgroup limit set ${HEADROOM} above its thread count, then ${CONNECTIONS} new connections and more request handler, network and fetcher threads: OutOfMemoryError: unable to create native thread`,
  needs: { seconds: 120, memoryMb: 1_100, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root, cgroup v1 pids controller',
  unavailable: () => cgroupUnavailable('pids', []),
  run: (ctx) => {
    let group: LabCgroup | undefined
    let threadsBefore = 0
    let limit = 0
    let events = ''
    let peak = ''
    let connected = 0
    const alterResults: string[] = []
    return runFaultScenario(ctx, {
      slug: 'lab-threads-exhausted',
      title: 'a broker at its pids limit cannot start threads (OutOfMemoryError: unable to create native thread)',
      brokers: 3,
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 500, recordBytes: 1_024 },
      warmupMs: 12_000,
      pickTarget: () => BROKER,
      async inject(env) {
        const g = makeCgroup('pids')
        group = g
        try {
          threadsBefore = threadCount(env.target.pid)
          limit = threadsBefore + HEADROOM
          g.set('pids.max', limit)
          g.add(env.target.pid)
        } catch (err) {
          g.release()
          throw err
        }
        // New clients: connections take no thread of their own in Kafka, but a busier broker does.
        const kafka = new kafkajs.Kafka({ clientId: 'billing-sync', brokers: [`127.0.0.1:${env.target.port}`], logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 1 } })
        const admins = Array.from({ length: CONNECTIONS }, () => kafka.admin())
        await Promise.all(admins.map(async (a) => a.connect().then(() => connected++, () => undefined)))
        // Non-incremental AlterConfigs replaces a broker's dynamic configs, so each request carries the
        // ones before it; kafkajs sends a broker's resource to that broker.
        const entries: { name: string; value: string }[] = []
        for (const [name, value] of Object.entries(RAISED)) {
          entries.push({ name, value })
          try {
            await admins[0].alterConfigs({ validateOnly: false, resources: [{ type: kafkajs.ConfigResourceTypes.BROKER, name: String(BROKER), configEntries: [...entries] }] })
            alterResults.push(`${name}=${value}: accepted`)
          } catch (err) {
            alterResults.push(`${name}=${value}: ${(err as Error).message}`)
          }
          await pause(4_000)
        }
        await Promise.all(admins.map((a) => a.disconnect().catch(() => undefined)))
        return () => g.release()
      },
      async aftermath() {
        await pause(15_000)
        events = group?.read('pids.events') ?? ''
        peak = group && (() => {
          try {
            return group.read('pids.peak')
          } catch {
            return '–'
          }
        })() || '–'
      },
      measure(env) {
        const log = env.target.serverLog
        return {
          'broker threads when the limit was set': threadsBefore,
          'pids.max': limit,
          'pids.peak / pids.events': `${peak} / ${events.replace(/\n/g, ', ')}`,
          'new admin connections opened': `${connected} of ${CONNECTIONS}`,
          'per-broker configs raised (AlterConfigs)': alterResults.join('; '),
          '"unable to create native thread" lines (server.log)': countLines(log, /unable to create (?:new )?native thread/),
          'the same in the broker\'s stdout.log': countLines(join(env.target.logDir, 'stdout.log'), /unable to create (?:new )?native thread/),
          '"Failed to start thread" JVM warnings (stdout.log)': countLines(join(env.target.logDir, 'stdout.log'), /Failed to start (?:the native )?thread/),
          'broker still running': env.target.process.alive() ? 'yes' : 'no',
        }
      },
      extraFiles: (env) => [{ from: join(env.target.logDir, 'stdout.log'), to: `broker-${BROKER}/stdout.log`, listed: false }],
      whatWasDone: () =>
        `broker ${BROKER}'s process was moved (\`cgroup.procs\`) into a new cgroup v1 \`pids\` group with \`pids.max\` set to its thread count then plus ${HEADROOM} (${limit}), as a container pid limit the broker has grown into. ${CONNECTIONS} admin clients then connected to it, and its per-broker dynamic configs were raised one after another through the admin API (AlterConfigs on broker ${BROKER}, 4 s apart) (${Object.entries(RAISED).map(([k, v]) => `\`${k}=${v}\``).join(', ')}), each of which has the broker start new threads.`,
      expect: { topRule: 'native_thread_exhaustion', absentRules: ['heap_oom'] },
    })
  },
}
