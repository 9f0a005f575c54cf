import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { startCluster, type LabCluster, type LabMode } from './cluster.js'
import { clusterFilesTable, LAB_CLUSTER_NAME, measuredTable, readConfigFacts, ScrapeRecorder, writeIncident } from './incident-recorder.js'
import { startJavaTool } from './java-tool.js'
import { bundledJarVersion } from './kafka-runtime.js'
import { DEFAULT_KAFKA_VERSION, kafkaLabel } from './kafka-versions.js'
import { startWatching, type ScenarioContext, type ScenarioExpectation, type ScenarioOutcome } from './scenario.js'
import { stallAgentJvmArgs, triggerStall } from './stall-agent.js'
import { fileHasLine, waitFor } from './wait-for.js'

/** How the broker is frozen: a real safepoint-synchronisation stall, or SIGSTOP of the whole process. */
export type FreezeKind = 'safepoint' | 'sigstop'

const TOPIC = 'orders'
/** zookeeper.session.timeout.ms in ZooKeeper mode, as in the seed report; KRaft keeps its 9 s default. */
const SESSION_TIMEOUT_MS = { zk: 6_000, kraft: 9_000 } as const
/** Longer than the session, so it always expires. */
const FREEZE_MS = { zk: 9_000, kraft: 12_000 } as const

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Counts lines matching a pattern in a file (0 when it does not exist). */
export function countLines(path: string, pattern: RegExp): number {
  if (!existsSync(path)) return 0
  return readFileSync(path, 'utf8').split('\n').filter((l) => pattern.test(l)).length
}

/** The active KRaft controller: the node whose log last says it became the active controller. */
export function activeKraftController(cluster: LabCluster): number {
  let best = { id: -1, line: '' }
  for (const b of cluster.brokers) {
    const text = existsSync(b.serverLog) ? readFileSync(b.serverLog, 'utf8') : ''
    for (const m of text.matchAll(/^(\[[^\]]+\]) INFO \[QuorumController id=(\d+)\] Becoming the active controller/gm)) {
      if (m[1] > best.line) best = { id: Number(m[2]), line: m[1] }
    }
  }
  return best.id
}

async function controllerId(cluster: LabCluster): Promise<number> {
  if (cluster.mode === 'kraft') return activeKraftController(cluster)
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    return (await admin.describeCluster()).controller ?? -1
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/** The stall scenarios' load: kafka-producer-perf-test, 1000 records/s of 1 KiB with acks=1, its log in clientsDir. */
export function startStallLoad(ctx: ScenarioContext, cluster: LabCluster, topic: string, clientsDir: string): ReturnType<typeof startJavaTool> {
  return startJavaTool(
    ctx.runtime,
    'org.apache.kafka.tools.ProducerPerformance',
    ['--topic', topic, '--num-records', '100000000', '--record-size', '1024', '--throughput', '1000',
      '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'acks=1', 'client.id=perf-1', 'linger.ms=5'],
    { stdoutFile: join(clientsDir, 'producer-perf.out'), logFile: join(clientsDir, 'producer.log') },
  )
}

/**
 * Creates a topic and waits until every partition has a leader in the metadata (KRaft brokers can
 * answer UNKNOWN_TOPIC_OR_PARTITION for a moment after the controller created it).
 */
export async function createTopic(cluster: LabCluster, topic: string, partitions: number, replicationFactor: number, configs: Record<string, string>): Promise<void> {
  // The admin client can wait without end on a cluster that is still settling on a loaded machine (two
  // live runs hung here for 6 and 13 minutes): past two minutes the run fails and the next one starts.
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`topic ${topic} was not created within 120 s`)), 120_000)
  })
  try {
    await Promise.race([createTopicOnce(cluster, topic, partitions, replicationFactor, configs), limit])
  } finally {
    clearTimeout(timer)
  }
}

async function createTopicOnce(cluster: LabCluster, topic: string, partitions: number, replicationFactor: number, configs: Record<string, string>): Promise<void> {
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    // On a loaded machine a broker can still be registering when the cluster says it started: the
    // controller refuses RF 3 with two live brokers (INVALID_REPLICATION_FACTOR). Asked again, it agrees.
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        await admin.createTopics({
          waitForLeaders: false,
          timeout: 30_000,
          topics: [{ topic, numPartitions: partitions, replicationFactor, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
        })
        break
      } catch (err) {
        const errors = ((err as { errors?: { type?: string; message?: string }[] }).errors ?? []).map((e) => e.type ?? e.message ?? '?')
        // Timed out is not refused: the controller may still create it, which the wait for leaders below sees.
        if (errors.length && errors.every((t) => t === 'TOPIC_ALREADY_EXISTS' || t === 'REQUEST_TIMED_OUT')) break
        if (Date.now() > deadline || !errors.includes('INVALID_REPLICATION_FACTOR')) {
          // The kind of each error goes into the message, and the error keeps its `errors` for the caller.
          if (errors.length) (err as Error).message += ` (${errors.join(', ')})`
          throw err
        }
        await sleep(1_000)
      }
    }
    await waitFor(
      async () => {
        try {
          const md = await admin.fetchTopicMetadata({ topics: [topic] })
          const parts = md.topics[0]?.partitions ?? []
          return parts.length === partitions && parts.every((p) => p.leader >= 0)
        } catch {
          return false
        }
      },
      { timeoutMs: 60_000, intervalMs: 300, what: `leaders of topic ${topic}` },
    )
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/**
 * Seed 000 on a real cluster: three ZooKeeper-mode brokers with a 6 s ZooKeeper session (or three
 * KRaft nodes with the default 9 s broker session), a producer (Kafka's own kafka-producer-perf-test)
 * writing to a 6-partition RF-3 topic, and one broker that is not the controller frozen for longer
 * than the session (9 s, or 12 s in KRaft). With `safepoint` the freeze is a real time-to-safepoint stall
 * (the JVM's safepoint log shows it); with `sigstop` the process is stopped from outside and the JVM
 * logs nothing, which is the negative control: same session expiry, no pause to blame.
 */
export async function runSessionStall(ctx: ScenarioContext, kind: FreezeKind, slug: string, mode: LabMode = 'zk'): Promise<ScenarioOutcome> {
  const sessionMs = SESSION_TIMEOUT_MS[mode]
  const freezeMs = FREEZE_MS[mode]
  const triggers = (id: number) => join(ctx.workDir, `broker-${id}`, 'safepoint-stall.trigger')
  const agentArgs = kind === 'safepoint' ? Object.fromEntries([1, 2, 3].map((id) => [id, stallAgentJvmArgs(ctx.runtime, triggers(id))])) : {}
  ctx.log(mode === 'zk' ? `starting ZooKeeper and 3 brokers (zookeeper.session.timeout.ms=${sessionMs})` : `starting 3 KRaft nodes (broker.session.timeout.ms=${sessionMs})`)
  const cluster = await startCluster({
    brokers: 3,
    mode,
    dir: ctx.workDir,
    kafkaVersion: ctx.runtime.version,
    ...(mode === 'zk' ? { zkSessionTimeoutMs: sessionMs } : { brokerConfig: { 'broker.session.timeout.ms': String(sessionMs) } }),
    jvmArgsById: agentArgs,
    heapMb: 320,
  })
  const expect: ScenarioExpectation =
    mode === 'kraft'
      ? { topRule: 'stw_pause_kraft_fencing', absentRules: ['zk_session_expiry_no_pause', 'stw_pause_session_expiry'] }
      : kind === 'safepoint'
        ? { topRule: 'stw_pause_session_expiry', absentRules: ['zk_session_expiry_no_pause'] }
        : // Read from /proc (serve's processes, with --live), the stopped process names the freeze itself.
          { topRule: 'zk_session_expiry_no_pause', alsoTop: ['broker_process_stopped'], absentRules: ['stw_pause_session_expiry', 'stw_total_session_expiry', 'gc_pause_session_expiry'] }
  const recorder = new ScrapeRecorder(cluster)
  const clientsDir = join(ctx.workDir, 'clients')
  let producer: ReturnType<typeof startJavaTool> | undefined
  try {
    const watching = startWatching(ctx, cluster, expect)
    await createTopic(cluster, TOPIC, 6, 3, { 'min.insync.replicas': '2' })
    const controller = await controllerId(cluster)
    const target = cluster.brokers.find((b) => b.id !== controller)!
    ctx.log(`controller is broker ${controller}; broker ${target.id} will be frozen (${kind})`)
    recorder.start()
    mkdirSync(clientsDir, { recursive: true })
    producer = startStallLoad(ctx, cluster, TOPIC, clientsDir)
    await sleep(12_000)
    const facts = await readConfigFacts(cluster, [TOPIC], Date.now())
    await watching()

    const faultAt = Date.now()
    let frozenMs: number
    if (kind === 'safepoint') {
      ctx.log(`stalling safepoint synchronisation on broker ${target.id} for ${freezeMs} ms`)
      frozenMs = await triggerStall(triggers(target.id), freezeMs)
    } else {
      ctx.log(`SIGSTOP broker ${target.id} (pid ${target.pid}) for ${freezeMs} ms`)
      target.process.signal('SIGSTOP')
      await sleep(freezeMs)
      target.process.signal('SIGCONT')
      frozenMs = Date.now() - faultAt
    }
    ctx.log(`broker ${target.id} ran again after ${frozenMs} ms; watching the aftermath`)
    if (kind === 'safepoint' && !(await fileHasLine(target.gcLog, /Reaching safepoint: [1-9]\d{9,} ns/))) {
      throw new Error(`the ${frozenMs} ms stall on broker ${target.id} did not show as a safepoint in its gc.log (the VM thread was busy with another operation); run the scenario again`)
    }
    // A SIGSTOP that lands while the JVM is reaching or holding a safepoint is logged as a pause of the
    // whole freeze, and then the JVM did see a stop: not the control this scenario is meant to record.
    if (kind === 'sigstop' && (await fileHasLine(target.gcLog, /(?:Reaching safepoint|Total): [1-9]\d{9,} ns/))) {
      throw new Error(`broker ${target.id}'s gc.log shows a safepoint of 1 s or more (the SIGSTOP landed inside one, or the host stalled it): not a clean control; run the scenario again`)
    }
    await sleep(15_000)
    await producer.stop(3_000)
    await recorder.stop()
    await cluster.stop()

    const producerLog = join(clientsDir, 'producer.log')
    const notLeader = countLines(producerLog, /NOT_LEADER_OR_FOLLOWER|NotLeaderOrFollowerException/)
    const server = target.serverLog
    const measured = {
      'frozen for (ms)': frozenMs,
      [mode === 'zk' ? 'zookeeper.session.timeout.ms' : 'broker.session.timeout.ms']: sessionMs,
      'safepoint lines with Reaching safepoint >= 1 s': countLines(target.gcLog, /Reaching safepoint: \d{10,} ns/),
      ...(mode === 'zk'
        ? {
            '"Client session timed out" lines': countLines(server, /Client session timed out, have not heard from server/),
            '"Session expired" lines': countLines(server, /Session expired|has expired/),
          }
        : {
            [`"Fencing broker ${target.id}" lines (all controllers)`]: cluster.brokers.reduce(
              (n, b) => n + countLines(b.serverLog, new RegExp(`Fencing broker ${target.id} (?:at epoch \\d+ )?because its session has timed out`)),
              0,
            ),
          }),
      'producer NOT_LEADER_OR_FOLLOWER lines': notLeader,
      'scrapes (failed)': `${recorder.scrapes} (${recorder.failures})`,
    }
    const outDir = ctx.outDir
    writeIncident({
      outDir,
      cluster,
      signals: [...recorder.signals, ...facts],
      extraFiles: [
        { from: producerLog, to: 'clients/producer.log', format: 'client' },
        { from: join(clientsDir, 'producer-perf.out'), to: 'clients/producer-perf.out', listed: false },
      ],
      readme: sessionStallReadme({ slug, kafkaVersion: ctx.runtime.version, zookeeperVersion: bundledJarVersion(ctx.runtime, 'zookeeper'), kind, mode, broker: target.id, controller, faultAt, freezeMs, sessionMs, measured, expect }),
    })
    return { slug, outDir, broker: String(target.id), faultAt, expect, facts: measured }
  } finally {
    await producer?.stop(1_000)
    await recorder.stop()
    await cluster.stop({ graceMs: 2_000 })
  }
}

function sessionStallReadme(r: {
  slug: string
  kafkaVersion: string
  zookeeperVersion?: string
  kind: FreezeKind
  mode: LabMode
  broker: number
  controller: number
  faultAt: number
  freezeMs: number
  sessionMs: number
  measured: Record<string, string | number>
  expect: ScenarioExpectation
}): string {
  const { slug, kind, mode, broker, controller, faultAt, freezeMs, measured, expect } = r
  const session = mode === 'zk' ? 'ZooKeeper session' : 'KRaft broker session'
  const how =
    kind === 'safepoint'
      ? `a real safepoint-synchronisation stall: the broker ran with \`-XX:-UseCountedLoopSafepoints -XX:LoopStripMiningIter=0\` and the lab's agent (\`lab/java/kafkawhy/lab/SafepointStall.java\`); on the trigger one thread ran a C2-compiled counted loop with no safepoint poll for ${freezeMs} ms while another asked for a thread dump, so every other Java thread (network, request handlers, ${mode === 'zk' ? 'the ZooKeeper client' : 'the heartbeats to the controller'}) waited at the safepoint. \`broker-${broker}/gc.log\` shows the \`Safepoint "ThreadDump"\` line with \`Reaching safepoint\` in seconds.`
      : `SIGSTOP of the whole broker process for ${freezeMs} ms, then SIGCONT. The JVM did not run at all, so its safepoint log has no long line: the negative control for the STW rule.`
  return `# ${slug}: ${kind === 'safepoint' ? `a safepoint stall expires a broker's ${session}` : `a frozen process (SIGSTOP) expires a broker's ${session}: not a JVM pause`}

Recorded by \`npm run lab -- ${r.kafkaVersion === DEFAULT_KAFKA_VERSION ? slug.replace(/^lab-/, '') : `${slug.replace(/^lab-/, '').replace(`-${r.kafkaVersion}`, '')} --kafka-version ${r.kafkaVersion}`}\` on a real ${kafkaLabel(r.kafkaVersion)} cluster (${mode === 'zk' ? `ZooKeeper mode, 3 brokers,\nZooKeeper ${r.zookeeperVersion ?? ''}` : 'KRaft mode, 3 combined broker+controller nodes'}, OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing
was edited. Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC.

**What was done.** Topic \`${TOPIC}\` (6 partitions, RF 3, \`min.insync.replicas=2\`), \`${mode === 'zk' ? 'zookeeper' : 'broker'}.session.timeout.ms=${r.sessionMs}\`,
\`kafka-producer-perf-test\` (\`org.apache.kafka.tools.ProducerPerformance\`, 1000 records/s of 1 KiB, \`acks=1\`).
After 12 s of steady load, at ${new Date(faultAt).toISOString()}, broker ${broker} (not the controller, which was broker ${controller})
was frozen by ${how}

**What it did** (counted in the recorded files):

${measuredTable(measured)}

## Files

${clusterFilesTable(mode === 'zk' ? 'zk' : 'kraft')}

## Expected diagnosis

Broker ${broker}: \`${expect.topRule}\` ranks first; ${expect.absentRules.map((r) => `\`${r}\``).join(', ')} must not fire.
Asserted live by \`test/lab/scenarios.test.ts\` and on the recording by \`test/lab/recorded.test.ts\`.
`
}
