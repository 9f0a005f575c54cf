import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { startCluster, type ClusterOptions, type LabBroker, type LabCluster } from './cluster.js'
import { clusterFilesTable, LAB_CLUSTER_NAME, measuredTable, readConfigFacts, ScrapeRecorder, writeIncident } from './incident-recorder.js'
import { startJavaTool } from './java-tool.js'
import type { ManagedProcess } from './managed-process.js'
import type { Signal } from '../signals/signal.js'
import { startWatching, type ScenarioContext, type ScenarioExpectation, type ScenarioOutcome } from './scenario.js'
import { RssSampler } from './rss-sampler.js'
import { activeKraftController, createTopic } from './session-stall.js'
import { waitFor } from './wait-for.js'

/** What a fault scenario's steps get: the running cluster, the broker under test, and the run's clock. */
export type FaultEnv = {
  ctx: ScenarioContext
  cluster: LabCluster
  /** The broker the fault is aimed at and whose diagnosis is asked for. */
  target: LabBroker
  /** The active controller when the fault was injected (KRaft: the node last logging that it became it), -1 when unknown. */
  controller: number
  /** Epoch ms of the injection (0 before it). */
  faultAt: number
  /** Directory of the clients' logs. */
  clientsDir: string
}

/** One fault scenario, declared: the harness starts, loads, injects, waits, records and cleans up. */
export type FaultScenarioSpec = {
  slug: string
  /** ZooKeeper-mode brokers (default) or KRaft combined broker+controller nodes. */
  mode?: 'zk' | 'kraft'
  /** The README's title after the slug. */
  title: string
  brokers: number
  cluster?: Omit<ClusterOptions, 'brokers' | 'dir' | 'mode'>
  topic: { name: string; partitions: number; replicationFactor: number; configs?: Record<string, string> }
  /** kafka-producer-perf-test load; acks=all when the fault is about durability. */
  producer: { acks: 'all' | '1'; recordsPerSec: number; recordBytes: number }
  /** Steady load before the fault. */
  warmupMs: number
  /**
   * Before the cluster starts (mounts over a broker's data dir). Returns the undo, run after every
   * process is gone, even when the run fails.
   */
  prepare?(workDir: string, dataDirOf: (id: number) => string): Promise<() => void> | (() => void)
  /** The broker to fault and diagnose; default the lowest id that is not the controller. */
  pickTarget?(cluster: LabCluster, controller: number): number
  /** Injects the fault; returns the undo for anything it holds (run in finally), or nothing. */
  inject(env: FaultEnv): Promise<(() => void) | void>
  /** The aftermath: waits for the fault's consequences (and any repair such as a restart). */
  aftermath(env: FaultEnv): Promise<void>
  /** Figures counted in the recorded files, for the README and the lab table. */
  measure(env: FaultEnv): Record<string, string | number>
  /** README paragraph: what was done, with the figures that make it reproducible. */
  whatWasDone(env: FaultEnv): string
  /** More files to copy into the recording (kept beside it; listed as sources only when they have a format). */
  extraFiles?(env: FaultEnv): { from: string; to: string; format?: 'client' | 'kafka'; broker?: string; listed?: boolean }[]
  /** More signals for signals.jsonl, read by the scenario itself beside the exporter scrapes (the host agent's disk readings). */
  extraSignals?(env: FaultEnv): Signal[]
  expect: ScenarioExpectation
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The ZooKeeper-mode controller over the admin API, -1 when the cluster does not say. */
export async function zkController(cluster: LabCluster): Promise<number> {
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    return (await admin.describeCluster()).controller ?? -1
  } catch {
    return -1
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/**
 * Creates the spec's topic. On a loaded machine the controller can take longer than the request's
 * timeout (REQUEST_TIMED_OUT) while the topic is still created: then it waits for its leaders instead.
 */
async function ensureTopic(cluster: LabCluster, spec: FaultScenarioSpec): Promise<void> {
  const { name, partitions, replicationFactor, configs } = spec.topic
  try {
    await createTopic(cluster, name, partitions, replicationFactor, configs ?? {})
  } catch (err) {
    if (!/timed out|already exists/i.test(`${(err as Error).message} ${JSON.stringify((err as { errors?: unknown }).errors ?? '')}`)) throw err
    const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
    const admin = kafka.admin()
    try {
      await admin.connect()
      await waitFor(
        async () => {
          try {
            const parts = (await admin.fetchTopicMetadata({ topics: [name] })).topics[0]?.partitions ?? []
            return parts.length === partitions && parts.every((p) => p.leader >= 0)
          } catch {
            return false
          }
        },
        { timeoutMs: 60_000, intervalMs: 500, what: `leaders of topic ${name} after a slow create` },
      )
    } finally {
      await admin.disconnect().catch(() => undefined)
    }
  }
}

/** Starts kafka-producer-perf-test on the spec's topic, its WARN/ERROR log in clients/producer.log. */
function startProducer(env: Pick<FaultEnv, 'ctx' | 'cluster' | 'clientsDir'>, spec: FaultScenarioSpec): ManagedProcess {
  const p = spec.producer
  return startJavaTool(
    env.ctx.runtime,
    'org.apache.kafka.tools.ProducerPerformance',
    ['--topic', spec.topic.name, '--num-records', '100000000', '--record-size', String(p.recordBytes), '--throughput', String(p.recordsPerSec),
      '--producer-props', `bootstrap.servers=${env.cluster.bootstrap}`, `acks=${p.acks}`, 'client.id=perf-1', 'linger.ms=5',
      'delivery.timeout.ms=30000', 'request.timeout.ms=10000'],
    { stdoutFile: join(env.clientsDir, 'producer-perf.out'), logFile: join(env.clientsDir, 'producer.log') },
  )
}

/**
 * Runs a declared fault scenario on a fresh ZooKeeper-mode cluster: prepare (mounts), start, topic,
 * producer load and scrapes, warm-up, config facts, injection, aftermath, then records the incident
 * under ctx.outDir. Every process it started is stopped and every undo run, whatever happens.
 */
export async function runFaultScenario(ctx: ScenarioContext, spec: FaultScenarioSpec): Promise<ScenarioOutcome> {
  const dataDirOf = (id: number) => join(ctx.workDir, `broker-${id}`, 'data')
  const undos: (() => void)[] = []
  const runUndos = () => {
    for (const u of undos.reverse()) {
      try {
        u()
      } catch (err) {
        ctx.log(`cleanup: ${(err as Error).message}`)
      }
    }
    undos.length = 0
  }
  let cluster: LabCluster | undefined
  let recorder: ScrapeRecorder | undefined
  let producer: ManagedProcess | undefined
  let rss: RssSampler | undefined
  try {
    if (spec.prepare) undos.push(await spec.prepare(ctx.workDir, dataDirOf))
    const mode = spec.mode ?? 'zk'
    ctx.log(mode === 'zk' ? `starting ZooKeeper and ${spec.brokers} broker(s)` : `starting ${spec.brokers} KRaft node(s)`)
    cluster = await startCluster({ heapMb: 320, ...spec.cluster, brokers: spec.brokers, mode, dir: ctx.workDir })
    const clientsDir = join(ctx.workDir, 'clients')
    mkdirSync(clientsDir, { recursive: true })
    // With --live, serve and its bot start watching now, beside the warm-up, and are ready before the fault.
    const watching = startWatching(ctx, cluster, spec.expect)
    await ensureTopic(cluster, spec)
    const controller = mode === 'zk' ? await zkController(cluster) : activeKraftController(cluster)
    const targetId = spec.pickTarget?.(cluster, controller) ?? cluster.brokers.find((b) => b.id !== controller)?.id ?? 1
    const target = cluster.brokers.find((b) => b.id === targetId)!
    const env: FaultEnv = { ctx, cluster, target, controller, faultAt: 0, clientsDir }
    recorder = new ScrapeRecorder(cluster)
    recorder.start()
    producer = startProducer(env, spec)
    const running = cluster
    const load = producer
    rss = new RssSampler(() => [...running.brokers.map((b) => b.pid), running.zookeeper?.pid ?? 0, load.pid])
    rss.start()
    await sleep(spec.warmupMs)
    const facts = await readConfigFacts(cluster, [spec.topic.name], Date.now())
    await watching()
    env.faultAt = Date.now()
    ctx.log(`controller is broker ${controller}; injecting the fault on broker ${target.id}`)
    const undo = await spec.inject(env)
    if (undo) undos.push(undo)
    await spec.aftermath(env)
    rss.stop()
    await producer.stop(3_000)
    await recorder.stop()
    // The incident is what happened up to here: the lab's own teardown (every broker's controlled
    // shutdown, a last controller move) is not part of it, so the files are copied before the stop.
    const measured = { ...spec.measure(env), 'peak RSS of ZooKeeper, brokers and producer (MiB)': rss.peakMb }
    writeIncident({
      outDir: ctx.outDir,
      cluster,
      signals: [...recorder.signals, ...facts, ...(spec.extraSignals?.(env) ?? [])],
      extraFiles: [
        { from: join(clientsDir, 'producer.log'), to: 'clients/producer.log', format: 'client' },
        { from: join(clientsDir, 'producer-perf.out'), to: 'clients/producer-perf.out', listed: false },
        ...(spec.extraFiles?.(env) ?? []),
      ],
      readme: faultReadme(spec, env, measured),
    })
    await cluster.stop({ graceMs: 5_000 })
    runUndos()
    return { slug: spec.slug, outDir: ctx.outDir, broker: String(target.id), faultAt: env.faultAt, expect: spec.expect, facts: measured }
  } finally {
    rss?.stop()
    await producer?.stop(1_000)
    await recorder?.stop()
    await cluster?.stop({ graceMs: 2_000 })
    runUndos()
  }
}

function faultReadme(spec: FaultScenarioSpec, env: FaultEnv, measured: Record<string, string | number>): string {
  const { topic, producer } = spec
  const expect = spec.expect
  const expected =
    expect.topRule === null
      ? `Broker ${env.target.id}: a healthy control, so no cause above \`info\` may fire${expect.absentRules.length ? `; in particular not ${expect.absentRules.map((r) => `\`${r}\``).join(', ')}` : ''}.`
      : `Broker ${env.target.id}: \`${expect.topRule}\` ranks first${expect.alsoTop?.length ? ` (or ${expect.alsoTop.map((r) => `\`${r}\``).join(', ')})` : ''}${expect.absentRules.length ? `; ${expect.absentRules.map((r) => `\`${r}\``).join(', ')} must not fire` : ''}.`
  return `# ${spec.slug}: ${spec.title}

Recorded by \`npm run lab -- ${spec.slug.replace(/^lab-/, '')}\` on a real Apache Kafka 3.9 cluster (${spec.mode === 'kraft' ? `KRaft mode, ${spec.brokers} combined broker+controller nodes` : `ZooKeeper mode, ${spec.brokers} broker(s)`},
OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing was edited.
Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC. The cluster's directory was a neutral temporary path, so no
log line names the scenario. The files were copied at the end of the observation window, before the lab stopped
the cluster, so its teardown is not part of the incident.

**What was done.** Topic \`${topic.name}\` (${topic.partitions} partitions, RF ${topic.replicationFactor}${Object.entries(topic.configs ?? {}).map(([k, v]) => `, \`${k}=${v}\``).join('')}) took
${producer.recordsPerSec} records/s of ${producer.recordBytes} B from \`kafka-producer-perf-test\` (\`acks=${producer.acks}\`). The controller was
broker ${env.controller}. After ${spec.warmupMs / 1000} s of steady load, at ${new Date(env.faultAt).toISOString()}: ${spec.whatWasDone(env)}

**What it did** (counted in the recorded files):

${measuredTable(measured)}

## Files

${clusterFilesTable(spec.mode ?? 'zk', ' before the fault')}

## Expected diagnosis

${expected}
Asserted on the recording by \`test/lab/recorded.test.ts\`.
`
}

/** Waits `ms`, then returns; for aftermaths that are a fixed observation window. */
export const pause = sleep

/**
 * The steady load most fault scenarios run: topic `orders` (6 partitions, RF 3, min.insync.replicas 2)
 * taking 500 × 1 KiB records/s with acks=all from a 10 s warm-up on, so a fault has writes to break.
 */
export const ORDERS_LOAD = {
  topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
  producer: { acks: 'all' as const, recordsPerSec: 500, recordBytes: 1_024 },
  warmupMs: 10_000,
}

/**
 * Member `n` of consumer group `group` on ORDERS_LOAD's topic: a `kafka-consumer-perf-test` that reads
 * until stopped, its output in `consumer-<n>.out` and `.log` of the clients' folder.
 */
export function startOrdersConsumer(env: Pick<FaultEnv, 'ctx' | 'cluster' | 'clientsDir'>, group: string, n: number): ManagedProcess {
  return startJavaTool(
    env.ctx.runtime,
    'org.apache.kafka.tools.ConsumerPerformance',
    ['--bootstrap-server', env.cluster.bootstrap, '--topic', ORDERS_LOAD.topic.name, '--group', group, '--messages', '100000000', '--timeout', '600000'],
    { stdoutFile: join(env.clientsDir, `consumer-${n}.out`), logFile: join(env.clientsDir, `consumer-${n}.log`), heapMb: 128 },
  )
}

/**
 * The aftermath of a log dir fault: Kafka halts a broker whose only log dir failed. Waits up to 45 s
 * for the target to exit (saying so in the run's log if it does not), then 8 s more so the peers'
 * and clients' reactions are in the recording.
 */
export async function awaitLogDirHalt(env: FaultEnv, after: string): Promise<void> {
  await waitFor(() => !env.target.process.alive(), { timeoutMs: 45_000, intervalMs: 500, what: `broker ${env.target.id} shutting down after ${after}` }).catch(() =>
    env.ctx.log(`broker ${env.target.id} still running 45 s after ${after}`),
  )
  await pause(8_000)
}
