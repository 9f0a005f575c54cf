import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startCluster } from '../cluster.js'
import { clusterFilesTable, LAB_CLUSTER_NAME, measuredTable, readConfigFacts, ScrapeRecorder, writeIncident } from '../incident-recorder.js'
import { bundledJarVersion } from '../kafka-runtime.js'
import { incidentSlug, kafkaLabel } from '../kafka-versions.js'
import { zkController } from '../fault-scenario.js'
import { startWatching, type Scenario, type ScenarioContext, type ScenarioExpectation, type ScenarioOutcome } from '../scenario.js'
import { countLines, createTopic, startStallLoad } from '../session-stall.js'
import { stallAgentJvmArgs, triggerStall } from '../stall-agent.js'
import { fileHasLine } from '../wait-for.js'

/**
 * A JVM stop the ZooKeeper session survives: an 18 s safepoint stall under a 30 s session. The
 * ZooKeeper client times out (it reads for 2/3 of the session, 20 s, counted from its last ping's
 * answer, up to 10 s before the stall) and reconnects to the same session before the server expires
 * it; with replica.lag.time.max.ms at 10 s the stalled leader finds its followers out of date when it
 * resumes and shrinks its ISRs. What `pause_zk_connection_timeout` and `pause_longer_than_replica_lag`
 * describe, recorded rather than written as series.
 */

const TOPIC = 'orders'
const SESSION_MS = 30_000
const REPLICA_LAG_MS = 10_000
const STALL_MS = 18_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const scenario: Scenario = {
  name: 'stw-survived',
  summary: `safepoint stall of ${STALL_MS / 1000} s on one of 3 ZooKeeper-mode brokers under producer load (${SESSION_MS / 1000} s session, replica.lag.time.max.ms ${REPLICA_LAG_MS / 1000} s): the session survives, the ISRs shrink`,
  needs: { seconds: 100, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => runSurvivedStall(ctx, incidentSlug('stw-survived', ctx.runtime.version)),
}



async function runSurvivedStall(ctx: ScenarioContext, slug: string): Promise<ScenarioOutcome> {
  const triggers = (id: number) => join(ctx.workDir, `broker-${id}`, 'safepoint-stall.trigger')
  ctx.log(`starting ZooKeeper and 3 brokers (zookeeper.session.timeout.ms=${SESSION_MS}, replica.lag.time.max.ms=${REPLICA_LAG_MS})`)
  const cluster = await startCluster({
    brokers: 3,
    mode: 'zk',
    dir: ctx.workDir,
    kafkaVersion: ctx.runtime.version,
    zkSessionTimeoutMs: SESSION_MS,
    brokerConfig: { 'replica.lag.time.max.ms': String(REPLICA_LAG_MS) },
    jvmArgsById: Object.fromEntries([1, 2, 3].map((id) => [id, stallAgentJvmArgs(ctx.runtime, triggers(id))])),
    heapMb: 320,
  })
  const expect: ScenarioExpectation = {
    topRule: 'pause_zk_connection_timeout',
    alsoTop: ['pause_longer_than_replica_lag'],
    absentRules: ['stw_pause_session_expiry', 'stw_total_session_expiry', 'gc_pause_session_expiry', 'zk_session_expiry_no_pause'],
  }
  const recorder = new ScrapeRecorder(cluster)
  const clientsDir = join(ctx.workDir, 'clients')
  let producer: ReturnType<typeof startStallLoad> | undefined
  try {
    const watching = startWatching(ctx, cluster, expect)
    ctx.log(`cluster up (${cluster.bootstrap}); creating topic ${TOPIC}`)
    await createTopic(cluster, TOPIC, 6, 3, { 'min.insync.replicas': '2' })
    const controller = await zkController(cluster)
    const target = cluster.brokers.find((b) => b.id !== controller)!
    ctx.log(`controller is broker ${controller}; broker ${target.id} will be stalled`)
    recorder.start()
    mkdirSync(clientsDir, { recursive: true })
    producer = startStallLoad(ctx, cluster, TOPIC, clientsDir)
    await sleep(12_000)
    const facts = await readConfigFacts(cluster, [TOPIC], Date.now())
    await watching()

    const faultAt = Date.now()
    ctx.log(`stalling safepoint synchronisation on broker ${target.id} for ${STALL_MS} ms`)
    const stalledMs = await triggerStall(triggers(target.id), STALL_MS)
    ctx.log(`broker ${target.id} ran again after ${stalledMs} ms; watching the aftermath`)
    await sleep(20_000)
    await producer.stop(3_000)
    await recorder.stop()

    const server = target.serverLog
    // Only the run this scenario is for is recorded: a timeout, the same session back, no expiry.
    if (!(await fileHasLine(target.gcLog, /Reaching safepoint: [1-9]\d{10,} ns/))) throw new Error(`the stall on broker ${target.id} did not show as a safepoint of 10 s or more in its gc.log; run the scenario again`)
    if (countLines(server, /Client session timed out, have not heard from server/) === 0) throw new Error(`broker ${target.id}'s ZooKeeper client did not time out (its last ping was answered too shortly before the stall); run the scenario again`)
    if (countLines(server, /Session expired|has expired/) > 0) throw new Error(`broker ${target.id}'s ZooKeeper session expired (the host delayed the reconnection); run the scenario again`)
    const measured = {
      'stalled for (ms)': stalledMs,
      'zookeeper.session.timeout.ms': SESSION_MS,
      'replica.lag.time.max.ms': REPLICA_LAG_MS,
      'safepoint lines with Reaching safepoint >= 10 s': countLines(target.gcLog, /Reaching safepoint: \d{11,} ns/),
      '"Client session timed out" lines': countLines(server, /Client session timed out, have not heard from server/),
      '"Session establishment complete" lines': countLines(server, /Session establishment complete/),
      '"Session expired" lines': countLines(server, /Session expired|has expired/),
      [`"Shrinking ISR" lines (broker ${target.id})`]: countLines(server, /Shrinking ISR/),
      [`"Expanding ISR" lines (broker ${target.id})`]: countLines(server, /Expanding ISR/),
      'scrapes (failed)': `${recorder.scrapes} (${recorder.failures})`,
    }
    const producerLog = join(clientsDir, 'producer.log')
    writeIncident({
      outDir: ctx.outDir,
      cluster,
      signals: [...recorder.signals, ...facts],
      extraFiles: [
        { from: producerLog, to: 'clients/producer.log', format: 'client' },
        { from: join(clientsDir, 'producer-perf.out'), to: 'clients/producer-perf.out', listed: false },
      ],
      readme: readme({ slug, kafkaVersion: ctx.runtime.version, zookeeperVersion: bundledJarVersion(ctx.runtime, 'zookeeper'), broker: target.id, controller, faultAt, measured, expect }),
    })
    // Copied before the cluster stops (the finally below), so its teardown is not part of the incident.
    return { slug, outDir: ctx.outDir, broker: String(target.id), faultAt, expect, facts: measured }
  } finally {
    await producer?.stop(1_000)
    await recorder.stop()
    await cluster.stop({ graceMs: 2_000 })
  }
}

function readme(r: { slug: string; kafkaVersion: string; zookeeperVersion?: string; broker: number; controller: number; faultAt: number; measured: Record<string, string | number>; expect: ScenarioExpectation }): string {
  return `# ${r.slug}: a safepoint stall the ZooKeeper session survives, longer than replica.lag.time.max.ms

Recorded by \`npm run lab -- stw-survived\` on a real ${kafkaLabel(r.kafkaVersion)} cluster (ZooKeeper mode, 3 brokers,
ZooKeeper ${r.zookeeperVersion ?? ''}, OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing
was edited. Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC. The files were copied at the end of the observation window,
before the lab stopped the cluster, so its teardown is not part of the incident.

**What was done.** Topic \`${TOPIC}\` (6 partitions, RF 3, \`min.insync.replicas=2\`), \`zookeeper.session.timeout.ms=${SESSION_MS}\`,
\`replica.lag.time.max.ms=${REPLICA_LAG_MS}\`, \`kafka-producer-perf-test\` (1000 records/s of 1 KiB, \`acks=1\`). After 12 s of steady
load, at ${new Date(r.faultAt).toISOString()}, broker ${r.broker} (not the controller, which was broker ${r.controller}) was stalled by a
real safepoint-synchronisation stall of ${STALL_MS} ms (the lab's agent, \`lab/java/kafkawhy/lab/SafepointStall.java\`, as in
\`lab-stw\`): every Java thread of the broker, its ZooKeeper client and its replica fetchers' peers' requests included, waited at
the safepoint. The ZooKeeper client reads for two thirds of the session (20 s) from its last answered ping, so it timed out
after the stall and reconnected; the server had not yet expired the session, so the same session id was re-established. The
stall was longer than \`replica.lag.time.max.ms\`, so the broker, as a leader, shrank its ISRs when it resumed.

**What it did** (counted in the recorded files):

${measuredTable(r.measured)}

## Files

${clusterFilesTable('zk')}

## Expected diagnosis

Broker ${r.broker}: \`${r.expect.topRule}\` or \`pause_longer_than_replica_lag\` ranks first, both fire; ${r.expect.absentRules.map((x) => `\`${x}\``).join(', ')} must not fire
(nothing expired). Asserted on the recording by \`rules/tests/jvm-lab.yaml\`.
`
}
