import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import kafkajs from 'kafkajs'
import { startCluster } from '../cluster.js'
import { runDyingMembers } from '../dying-group-members.js'
import { LAB_CLUSTER_NAME, measuredTable, readConfigFacts, ScrapeRecorder, writeIncident } from '../incident-recorder.js'
import { atLeast, incidentSlug, kafkaLabel, labCommand } from '../kafka-versions.js'
import type { Scenario, ScenarioContext, ScenarioExpectation, ScenarioOutcome } from '../scenario.js'
import { countLines, createTopic } from '../session-stall.js'

const TOPIC = 'billing-events'
const GROUP = 'billing-sync'
const CYCLES = 30
const CYCLE_LIMIT_MS = 90_000
/** Time between a leave and the next join. */
const PAUSE_MS = 1_000

/** Dying members per second on a leaking release, the size of each one's subscription data, and for how long. */
const DYING_PER_SECOND = 60
const DYING_USER_DATA_BYTES = 4_096
const DYING_MS = 180_000
/** A small heap, so the leak's share of it shows within minutes. */
const LEAK_HEAP_MB = 128

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Whether the release keeps members that join during a rebalance and die (KAFKA-7610, fixed in 2.2.0):
 * there the scenario adds members dying mid-join, whose cost to the coordinator's heap shows in minutes.
 */
export function keepsDeadJoiners(version: string): boolean {
  return !atLeast(version, 2, 2)
}

/** Live instances of some classes on a JVM's heap (jmap -histo:live, which runs a full GC first). */
function liveInstances(pid: number, classes: string[]): Record<string, number> | undefined {
  try {
    const histo = execFileSync('jmap', ['-histo:live', String(pid)], { encoding: 'utf8', timeout: 60_000 })
    const counts: Record<string, number> = {}
    for (const c of classes) {
      const m = new RegExp(`^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+${c.replace(/[.$]/g, '\\$&')}\\s*$`, 'm').exec(histo)
      counts[c] = m ? Number(m[1]) : 0
    }
    return counts
  } catch {
    return undefined
  }
}

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length
  } catch {
    return -1
  }
}

/** "first → last" heap occupancy after the collections logged in gc.log from `since` on (epoch ms). */
function heapAfterGcRange(gcLog: string, since: number): string {
  const after = (existsSync(gcLog) ? readFileSync(gcLog, 'utf8') : '')
    .split('\n')
    .map((l) => /^\[([^\]]+)\].*GC\(\d+\) Pause .* \d+M->(\d+)M\(\d+M\)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && Date.parse(m[1].replace(/([+-]\d\d)(\d\d)$/, '$1:$2')) >= since)
    .map((m) => Number(m[2]))
  return after.length ? `${after[0]} → ${after[after.length - 1]}` : '–'
}

/** A kafkajs consumer in the group; resolves once it has joined (its first GROUP_JOIN). */
async function joinGroup(kafka: kafkajs.Kafka, timeoutMs: number): Promise<kafkajs.Consumer> {
  const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 6_000, rebalanceTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 })
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()))
  await consumer.connect()
  await consumer.subscribe({ topics: [TOPIC], fromBeginning: false })
  await consumer.run({ eachMessage: async () => {} })
  await Promise.race([joined, sleep(timeoutMs)])
  return consumer
}

/**
 * Seed 003's trigger for real: a consumer joins group `billing-sync`, gets its assignment and leaves,
 * over and over (a job restarted in a loop), so the coordinator broker logs a rebalance on every join
 * and every leave.
 * (The Selector leak itself was fixed in Kafka 2.2.1; on 3.9 the heap stays flat, which the recording
 * shows through the exporter.)
 */
async function run(ctx: ScenarioContext): Promise<ScenarioOutcome> {
  const leak = keepsDeadJoiners(ctx.runtime.version)
  const heapMb = leak ? LEAK_HEAP_MB : 256
  ctx.log(`starting ZooKeeper and 1 broker (${heapMb} MiB heap)`)
  const cluster = await startCluster({ brokers: 1, mode: 'zk', kafkaVersion: ctx.runtime.version, dir: ctx.workDir, heapMb })
  const broker = cluster.brokers[0]
  const recorder = new ScrapeRecorder(cluster)
  const kafka = new kafkajs.Kafka({ clientId: 'billing-sync-worker', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const consumers: kafkajs.Consumer[] = []
  try {
    await createTopic(cluster, TOPIC, 3, 1, {})
    recorder.start()
    await sleep(4_000)
    // DescribeConfigs came with 0.11; an older broker's configs are only in its server.properties.
    const facts = atLeast(ctx.runtime.version, 0, 11) ? await readConfigFacts(cluster, [TOPIC], Date.now()) : []
    const faultAt = Date.now()
    ctx.log(`a consumer joins and leaves ${GROUP} ${CYCLES} times`)
    let cycles = 0
    while (cycles < CYCLES && Date.now() - faultAt < CYCLE_LIMIT_MS) {
      const churner = await joinGroup(kafka, 10_000)
      consumers.push(churner)
      await sleep(300)
      await churner.disconnect()
      consumers.pop()
      cycles++
      await sleep(PAUSE_MS)
    }
    const fdsBefore = openFds(broker.pid)
    let dying = { connections: 0, errors: 0 }
    if (leak) {
      ctx.log(`${DYING_PER_SECOND} members a second join ${GROUP} and die mid-join, for ${DYING_MS / 1000} s`)
      const [host, port] = cluster.bootstrap.split(',')[0].split(':')
      dying = await runDyingMembers({ host, port: Number(port), groupId: GROUP, topic: TOPIC, perSecond: DYING_PER_SECOND, userDataBytes: DYING_USER_DATA_BYTES, durationMs: DYING_MS })
    }
    // Taken while the last members are still in the group: what holds the heap, by class.
    const live = leak ? liveInstances(broker.pid, ['kafka.coordinator.MemberMetadata', 'kafka.coordinator.DelayedHeartbeat', 'org.apache.kafka.common.network.KafkaChannel']) : undefined
    if (leak) await sleep(10_000)
    const fdsAfter = openFds(broker.pid)
    const churnMs = Date.now() - faultAt
    await sleep(4_000)
    await recorder.stop()
    await cluster.stop()

    const server = broker.serverLog
    const measured = {
      'join/leave cycles': cycles,
      'seconds of churn': (churnMs / 1000).toFixed(1),
      '"Preparing to rebalance group" lines ("restabilize" before 0.11)': countLines(server, new RegExp(`Preparing to (?:rebalance|restabilize) group ${GROUP}`)),
      '"Stabilized group" lines': countLines(server, new RegExp(`Stabilized group ${GROUP}`)),
      ...(leak
        ? {
            'members that died mid-join (connections, errors)': `${dying.connections} (${dying.errors})`,
            "broker's open file descriptors before and after them": `${fdsBefore} → ${fdsAfter}`,
            'live MemberMetadata, DelayedHeartbeat, KafkaChannel objects as the last ones died (jmap -histo:live)': live
              ? `${live['kafka.coordinator.MemberMetadata']}, ${live['kafka.coordinator.DelayedHeartbeat']}, ${live['org.apache.kafka.common.network.KafkaChannel']}`
              : '–',
          }
        : {}),
      'heap after GC, first and last collection of the churn (MiB)': heapAfterGcRange(broker.gcLog, faultAt),
      'scrapes (failed)': `${recorder.scrapes} (${recorder.failures})`,
    }
    // Before 2.2 the known issue KAFKA-7610 names the same churn more precisely; the Selector leak rule
    // needs hours of heap samples, which a run of minutes does not have, so it must stay silent here.
    const expect: ScenarioExpectation = {
      topRule: 'group_rebalance_storm',
      alsoTop: ['group_churn_heap_growth', ...(atLeast(ctx.runtime.version, 2, 2) ? [] : ['kafka_7610_group_churn'])],
      absentRules: ['selector_leak_group_churn'],
    }
    writeIncident({ outDir: ctx.outDir, cluster, signals: [...recorder.signals, ...facts], readme: readme(ctx.runtime.version, faultAt, measured, expect) })
    return { slug: incidentSlug('group-churn', ctx.runtime.version), outDir: ctx.outDir, broker: String(broker.id), faultAt, expect, facts: measured }
  } finally {
    for (const c of consumers) await c.disconnect().catch(() => {})
    await recorder.stop()
    await cluster.stop({ graceMs: 2_000 })
  }
}

function readme(version: string, faultAt: number, measured: Record<string, string | number>, expect: ScenarioExpectation): string {
  return `# ${incidentSlug('group-churn', version)}: a consumer joins and leaves its group on a loop

Recorded by \`${labCommand('group-churn', version)}\` on a real ${kafkaLabel(version)} broker (ZooKeeper mode, 1 broker, ${keepsDeadJoiners(version) ? LEAK_HEAP_MB : 256} MiB
heap, OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing was edited.
Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC.

**What was done.** Topic \`${TOPIC}\` (3 partitions). From ${new Date(faultAt).toISOString()} a kafkajs consumer joined
group \`${GROUP}\`, waited for its assignment and left, over and over, like a job restarted in a loop. The broker
(the group's coordinator) logged a rebalance for every join and every leave.
${
  keepsDeadJoiners(version)
    ? `
Then, for ${DYING_MS / 1000} s, ${DYING_PER_SECOND} members a second joined the group and died mid-join: each opened a connection,
sent a JoinGroup (v1, a ${DYING_USER_DATA_BYTES / 1024} KiB subscription) with a second JoinGroup pipelined behind it, and closed at once.
Seed 003's heap dump blamed \`org.apache.kafka.common.network.Selector\`; in 0.10.2.2's sources a channel
closed by its client with a request still staged is kept as "closing" and its response dropped
(\`Attempting to send response via channel for which there is no open connection\`), which this load
drives thousands of times. In the recorded run that path did not leak: the broker's open file descriptors and its live
\`KafkaChannel\` objects below stay in the hundreds. What grows is the group: members that joined during
the endless rebalance and died stay in its metadata (\`MemberMetadata\`, with their subscriptions, and a
\`DelayedHeartbeat\` each), KAFKA-7610's mechanism, and heap after GC climbs with them.
`
    : ''
}
${measuredTable(measured)}

${
  atLeast(version, 2, 2)
    ? `On Kafka ${version} the Selector leak of seed 003 is fixed, so heap after GC stays flat: this recording is the
churn without the leak. \`selector_leak_group_churn\` needs a broker older than 2.2.1 and must not fire.`
    : `Kafka ${version} still has KAFKA-7610 (fixed in 2.2.0) and, by seed 003's account, its Selector leak (fixed by
2.2.1). \`selector_leak_group_churn\`, \`group_churn_heap_growth\` and \`heap_leak\` ask for 6–12 h of heap samples and
a 12–24 h trend, by design, so on a recording of minutes they must not fire however fast heap after GC climbs:
\`kafka_7610_group_churn\` is the finding that names the mechanism.`
}

## Files

| file | what |
|---|---|
| \`broker-1/server.log\`, \`controller.log\`, \`state-change.log\` | the broker's log4j output, Kafka's own layout (GroupCoordinator lines) |
| \`broker-1/gc.log\` | \`-Xlog:gc*,safepoint\` with time, uptime, level and tag decorations |
| \`zookeeper/server.log\` | the ZooKeeper server's log (not listed as a source) |
| \`signals.jsonl\` | JMX exporter scrapes every 2 s (heap, GC, group coordinator gauges) through the Prometheus adapter, and configs |

## Expected diagnosis

Broker 1: \`${expect.topRule}\`${expect.alsoTop?.length ? ` (or ${expect.alsoTop.map((r) => `\`${r}\``).join(', ')})` : ''} ranks first and names \`${GROUP}\`; ${expect.absentRules.map((r) => `\`${r}\``).join(', ')} must not fire.
`
}

/** Seed 003's churn for real: a group member joining and leaving on a loop. */
export const scenario: Scenario = {
  name: 'group-churn',
  summary: `a consumer joins and leaves group ${GROUP} ${CYCLES} times; the coordinator logs every rebalance`,
  needs: { seconds: 80, memoryMb: 700, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run,
}
