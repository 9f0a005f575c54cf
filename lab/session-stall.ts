import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { startCluster, type LabCluster } from './cluster.js'
import { LAB_CLUSTER_NAME, readConfigFacts, ScrapeRecorder, writeIncident } from './incident-recorder.js'
import { startJavaTool } from './java-tool.js'
import type { ScenarioContext, ScenarioExpectation, ScenarioOutcome } from './scenario.js'
import { stallAgentJvmArgs, triggerStall } from './stall-agent.js'

/** How the broker is frozen: a real safepoint-synchronisation stall, or SIGSTOP of the whole process. */
export type FreezeKind = 'safepoint' | 'sigstop'

const TOPIC = 'orders'
const SESSION_TIMEOUT_MS = 6_000
const FREEZE_MS = 9_000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Counts lines matching a pattern in a file (0 when it does not exist). */
export function countLines(path: string, pattern: RegExp): number {
  if (!existsSync(path)) return 0
  return readFileSync(path, 'utf8').split('\n').filter((l) => pattern.test(l)).length
}

async function controllerId(cluster: LabCluster): Promise<number> {
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    return (await admin.describeCluster()).controller ?? -1
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/** Creates a topic and waits for its leaders. */
export async function createTopic(cluster: LabCluster, topic: string, partitions: number, replicationFactor: number, configs: Record<string, string>): Promise<void> {
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: partitions, replicationFactor, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
    })
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/**
 * Seed 000 on a real cluster: three ZooKeeper-mode brokers with a 6 s ZooKeeper session, a producer
 * (Kafka's own kafka-producer-perf-test) writing to a 6-partition RF-3 topic, and one broker that is
 * not the controller frozen for 8 s. With `safepoint` the freeze is a real time-to-safepoint stall
 * (the JVM's safepoint log shows it); with `sigstop` the process is stopped from outside and the JVM
 * logs nothing, which is the negative control: same session expiry, no pause to blame.
 */
export async function runSessionStall(ctx: ScenarioContext, kind: FreezeKind, slug: string): Promise<ScenarioOutcome> {
  const triggers = (id: number) => join(ctx.workDir, `broker-${id}`, 'safepoint-stall.trigger')
  const agentArgs = kind === 'safepoint' ? Object.fromEntries([1, 2, 3].map((id) => [id, stallAgentJvmArgs(ctx.runtime, triggers(id))])) : {}
  ctx.log(`starting ZooKeeper and 3 brokers (zookeeper.session.timeout.ms=${SESSION_TIMEOUT_MS})`)
  const cluster = await startCluster({ brokers: 3, mode: 'zk', dir: ctx.workDir, zkSessionTimeoutMs: SESSION_TIMEOUT_MS, jvmArgsById: agentArgs, heapMb: 320 })
  const recorder = new ScrapeRecorder(cluster)
  const clientsDir = join(ctx.workDir, 'clients')
  let producer: ReturnType<typeof startJavaTool> | undefined
  try {
    await createTopic(cluster, TOPIC, 6, 3, { 'min.insync.replicas': '2' })
    const controller = await controllerId(cluster)
    const target = cluster.brokers.find((b) => b.id !== controller)!
    ctx.log(`controller is broker ${controller}; broker ${target.id} will be frozen (${kind})`)
    recorder.start()
    mkdirSync(clientsDir, { recursive: true })
    producer = startJavaTool(
      ctx.runtime,
      'org.apache.kafka.tools.ProducerPerformance',
      ['--topic', TOPIC, '--num-records', '100000000', '--record-size', '1024', '--throughput', '1000',
        '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'acks=1', 'client.id=perf-1', 'linger.ms=5'],
      { stdoutFile: join(clientsDir, 'producer-perf.out'), logFile: join(clientsDir, 'producer.log') },
    )
    await sleep(12_000)
    const facts = await readConfigFacts(cluster, [TOPIC], Date.now())

    const faultAt = Date.now()
    let frozenMs: number
    if (kind === 'safepoint') {
      ctx.log(`stalling safepoint synchronisation on broker ${target.id} for ${FREEZE_MS} ms`)
      frozenMs = await triggerStall(triggers(target.id), FREEZE_MS)
    } else {
      ctx.log(`SIGSTOP broker ${target.id} (pid ${target.pid}) for ${FREEZE_MS} ms`)
      target.process.signal('SIGSTOP')
      await sleep(FREEZE_MS)
      target.process.signal('SIGCONT')
      frozenMs = Date.now() - faultAt
    }
    ctx.log(`broker ${target.id} ran again after ${frozenMs} ms; watching the aftermath`)
    await sleep(15_000)
    await producer.stop(3_000)
    await recorder.stop()
    await cluster.stop()

    const producerLog = join(clientsDir, 'producer.log')
    const notLeader = countLines(producerLog, /NOT_LEADER_OR_FOLLOWER|NotLeaderOrFollowerException/)
    const server = target.serverLog
    const measured = {
      'frozen for (ms)': frozenMs,
      'ZooKeeper session timeout (ms)': SESSION_TIMEOUT_MS,
      'safepoint lines with Reaching safepoint >= 1 s': countLines(target.gcLog, /Reaching safepoint: \d{10,} ns/),
      '"Client session timed out" lines': countLines(server, /Client session timed out, have not heard from server/),
      '"Session expired" lines': countLines(server, /Session expired|has expired/),
      'producer NOT_LEADER_OR_FOLLOWER lines': notLeader,
      'scrapes (failed)': `${recorder.scrapes} (${recorder.failures})`,
    }
    const expect: ScenarioExpectation =
      kind === 'safepoint'
        ? { topRule: 'stw_pause_session_expiry', absentRules: ['zk_session_expiry_no_pause'] }
        : { topRule: 'zk_session_expiry_no_pause', absentRules: ['stw_pause_session_expiry', 'stw_total_session_expiry', 'gc_pause_session_expiry'] }
    const outDir = ctx.outDir
    writeIncident({
      outDir,
      cluster,
      signals: [...recorder.signals, ...facts],
      extraFiles: [
        { from: producerLog, to: 'clients/producer.log', format: 'client' },
        { from: join(clientsDir, 'producer-perf.out'), to: 'clients/producer-perf.out', listed: false },
      ],
      readme: sessionStallReadme(slug, kind, target.id, controller, faultAt, measured, expect),
    })
    return { slug, outDir, broker: String(target.id), faultAt, expect, facts: measured }
  } finally {
    await producer?.stop(1_000)
    await recorder.stop()
    await cluster.stop({ graceMs: 2_000 })
  }
}

function sessionStallReadme(
  slug: string,
  kind: FreezeKind,
  broker: number,
  controller: number,
  faultAt: number,
  measured: Record<string, string | number>,
  expect: ScenarioExpectation,
): string {
  const how =
    kind === 'safepoint'
      ? `a real safepoint-synchronisation stall: the broker ran with \`-XX:-UseCountedLoopSafepoints -XX:LoopStripMiningIter=0\` and the lab's agent (\`lab/java/kafkawhy/lab/SafepointStall.java\`); on the trigger one thread ran a C2-compiled counted loop with no safepoint poll for ${FREEZE_MS} ms while another asked for a thread dump, so every other Java thread (network, request handlers, the ZooKeeper client) waited at the safepoint. \`broker-${broker}/gc.log\` shows the \`Safepoint "ThreadDump"\` line with \`Reaching safepoint\` in seconds.`
      : `SIGSTOP of the whole broker process for ${FREEZE_MS} ms, then SIGCONT. The JVM did not run at all, so its safepoint log has no long line: the negative control for the STW rule.`
  return `# ${slug}: ${kind === 'safepoint' ? 'a safepoint stall expires a broker\'s ZooKeeper session' : 'a frozen process (SIGSTOP) expires a broker\'s ZooKeeper session: not a JVM pause'}

Recorded by \`npm run lab -- ${slug.replace(/^lab-/, '')}\` on a real Apache Kafka 3.9 cluster (ZooKeeper mode, 3 brokers,
ZooKeeper 3.8, OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing
was edited. Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC.

**What was done.** Topic \`${TOPIC}\` (6 partitions, RF 3, \`min.insync.replicas=2\`), \`zookeeper.session.timeout.ms=${SESSION_TIMEOUT_MS}\`,
\`kafka-producer-perf-test\` (\`org.apache.kafka.tools.ProducerPerformance\`, 1000 records/s of 1 KiB, \`acks=1\`).
After 12 s of steady load, at ${new Date(faultAt).toISOString()}, broker ${broker} (not the controller, which was broker ${controller})
was frozen by ${how}

**What it did** (counted in the recorded files):

| measure | value |
|---|---|
${Object.entries(measured)
  .map(([k, v]) => `| ${k} | ${v} |`)
  .join('\n')}

## Files

| file | what |
|---|---|
| \`broker-N/server.log\`, \`controller.log\`, \`state-change.log\` | each broker's log4j output, Kafka's own layout |
| \`broker-N/gc.log\` | \`-Xlog:gc*,safepoint\` with time, uptime, level and tag decorations |
| \`clients/producer.log\` | the producer's WARN/ERROR log4j output (Kafka's layout) |
| \`clients/producer-perf.out\` | the perf tool's progress lines (no timestamps; not listed as a source) |
| \`zookeeper/server.log\` | the ZooKeeper server's log (not listed as a source: its lines name sessions, not brokers) |
| \`signals.jsonl\` | JMX exporter scrapes every 2 s through the Prometheus adapter, and the brokers' and topic's configs (describeConfigs) |

## Expected diagnosis

Broker ${broker}: \`${expect.topRule}\` ranks first; ${expect.absentRules.map((r) => `\`${r}\``).join(', ')} must not fire.
Asserted live by \`test/lab/scenarios.test.ts\` and on the recording by \`test/lab/recorded.test.ts\`.
`
}
