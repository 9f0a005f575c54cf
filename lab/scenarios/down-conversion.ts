import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startCluster } from '../cluster.js'
import { LAB_CLUSTER_NAME, measuredTable, readConfigFacts, ScrapeRecorder, writeIncident } from '../incident-recorder.js'
import { startJavaTool } from '../java-tool.js'
import { startLegacyConsumer } from '../legacy-consumer.js'
import type { ManagedProcess } from '../managed-process.js'
import { atLeast, incidentSlug, kafkaLabel, labCommand } from '../kafka-versions.js'
import type { Scenario, ScenarioContext, ScenarioExpectation, ScenarioOutcome } from '../scenario.js'
import { countLines, createTopic } from '../session-stall.js'

const TOPIC = 'legacy-events'
const PARTITIONS = 12
const RECORDS = 150_000
const OLD_CONSUMERS = 3
const CONSUME_MS = 45_000
const HEAP_MB = 192

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Lines matching `pattern` in a Kafka log written at or after `since` (epoch ms; the lab logs in UTC). */
function countLinesSince(path: string, pattern: RegExp, since: number): number {
  if (!existsSync(path)) return 0
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => {
      const t = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d),(\d{3})\]/.exec(l)
      return t !== null && Date.parse(`${t[1]}T${t[2]}.${t[3]}Z`) >= since && pattern.test(l)
    }).length
}

/**
 * Seed 002 for real: consumers on kafka-clients 0.10.1 (the report's connectors' client, which can
 * only read message format v1) read a format-v2 topic from the beginning, over and over, with 16 MiB
 * partition fetches, from a broker with a small heap. Every batch they get is down-converted on the
 * broker: FetchMessageConversionsPerSec climbs and the heap works hard.
 */
async function run(ctx: ScenarioContext): Promise<ScenarioOutcome> {
  // Before 2.0 (KIP-283) a fetch is converted whole on the heap, as in the seed report; there two
  // brokers replicate the topic, so the ISR shrink that followed the OOM there can happen here too.
  const eager = !atLeast(ctx.runtime.version, 2, 0)
  const brokers = eager ? 2 : 1
  ctx.log(`starting ZooKeeper and ${brokers} broker(s) with a ${HEAP_MB} MiB heap`)
  const cluster = await startCluster({ brokers, mode: 'zk', kafkaVersion: ctx.runtime.version, dir: ctx.workDir, heapMb: HEAP_MB })
  let broker = cluster.brokers[0]
  const recorder = new ScrapeRecorder(cluster)
  const clientsDir = join(ctx.workDir, 'clients')
  mkdirSync(clientsDir, { recursive: true })
  const loops: ManagedProcess[] = []
  try {
    await createTopic(cluster, TOPIC, PARTITIONS, brokers, {})
    recorder.start()
    ctx.log(`writing ${RECORDS} records of 1 KiB to ${TOPIC}`)
    const fill = startJavaTool(
      ctx.runtime,
      'org.apache.kafka.tools.ProducerPerformance',
      ['--topic', TOPIC, '--num-records', String(RECORDS), '--record-size', '1024', '--throughput', '-1',
        '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'acks=1', 'linger.ms=20', 'batch.size=262144', 'client.id=legacy-writer'],
      { stdoutFile: join(clientsDir, 'producer-perf.out'), logFile: join(clientsDir, 'producer.log') },
    )
    await Promise.race([fill.exited, sleep(120_000)])
    await fill.stop(1_000)
    await sleep(4_000)
    const facts = await readConfigFacts(cluster, [TOPIC], Date.now())

    const faultAt = Date.now()
    ctx.log(`${OLD_CONSUMERS} consumers on kafka-clients 0.10.1 read ${TOPIC} from the beginning for ${CONSUME_MS / 1000} s`)
    for (let i = 0; i < OLD_CONSUMERS; i++) {
      loops.push(startLegacyConsumer(ctx.runtime, cluster.bootstrap, TOPIC, CONSUME_MS / 1000, join(clientsDir, `legacy-consumer-${i + 1}.log`)))
    }
    await Promise.race([Promise.all(loops.map((l) => l.exited)), sleep(CONSUME_MS + 30_000)])
    await sleep(4_000)
    await recorder.stop()
    await cluster.stop()

    const conversions = recorder.signals.filter((s) => s.name === 'fetch.down_conversion' && s.labels?.topic === TOPIC)
    const peak = conversions.reduce((m, s) => Math.max(m, s.value ?? 0), 0)
    // The broker to diagnose: the one whose heap ran out most often.
    const ooms = (b: typeof broker) => countLines(b.serverLog, /OutOfMemoryError/)
    broker = cluster.brokers.reduce((best, b) => (ooms(b) > ooms(best) ? b : best), broker)
    const server = broker.serverLog
    const measured = {
      'broker heap (MiB)': HEAP_MB,
      'records in the topic': RECORDS,
      'old consumers': OLD_CONSUMERS,
      'peak down-conversions per second (exporter)': Math.round(peak),
      'GC pauses logged during the run': countLines(broker.gcLog, /\[info\]\[gc\s*\] GC\(\d+\) Pause/),
      'OutOfMemoryError lines': countLines(server, /OutOfMemoryError/),
      ...(eager ? { '"Shrinking ISR" lines after the old consumers started (all brokers)': cluster.brokers.reduce((n, b) => n + countLinesSince(b.serverLog, /Shrinking ISR/, faultAt), 0) } : {}),
    }
    const expect: ScenarioExpectation = eager
      ? { topRule: 'down_conversion_heap_oom', alsoTop: ['down_conversion_oom_stack'], absentRules: ['stw_pause_session_expiry'] }
      : { topRule: 'down_conversion_heavy', alsoTop: ['down_conversion_heap_oom', 'down_conversion_oom_stack'], absentRules: ['stw_pause_session_expiry'] }
    writeIncident({
      outDir: ctx.outDir,
      cluster,
      signals: [...recorder.signals, ...facts],
      extraFiles: [
        { from: join(clientsDir, 'producer-perf.out'), to: 'clients/producer-perf.out', listed: false },
        ...loops.map((_, i) => ({ from: join(clientsDir, `legacy-consumer-${i + 1}.log`), to: `clients/legacy-consumer-${i + 1}.log`, listed: false })),
      ],
      readme: readme(ctx.runtime.version, broker.id, faultAt, measured, expect),
    })
    return { slug: incidentSlug('down-conversion', ctx.runtime.version), outDir: ctx.outDir, broker: String(broker.id), faultAt, expect, facts: measured }
  } finally {
    for (const l of loops) await l.stop(1_000)
    await recorder.stop()
    await cluster.stop({ graceMs: 2_000 })
  }
}

function readme(version: string, brokerId: number, faultAt: number, measured: Record<string, string | number>, expect: ScenarioExpectation): string {
  return `# ${incidentSlug('down-conversion', version)}: old-protocol consumers make a small-heap broker down-convert everything

Recorded by \`${labCommand('down-conversion', version)}\` on a real ${kafkaLabel(version)} ${atLeast(version, 2, 0) ? 'broker (ZooKeeper mode, 1 broker' : 'cluster (ZooKeeper mode, 2 brokers, the topic replicated on both'},
${HEAP_MB} MiB heap, OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing
was edited. Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC.

**What was done.** Topic \`${TOPIC}\` (${PARTITIONS} partitions) was filled with ${RECORDS} records of 1 KiB (message
format v2). From ${new Date(faultAt).toISOString()}, ${OLD_CONSUMERS} consumers built on kafka-clients 0.10.1.1 (from Maven
Central; \`lab/java/kafkawhy/lab/LegacyConsumer.java\`, \`max.partition.fetch.bytes=16777216\`) read the topic from the
beginning over and over for ${CONSUME_MS / 1000} s. That client fetches with Fetch v3 and reads message format v1 only, so
the broker converted every batch it served. (Debian's kcat was tried first: its librdkafka 2.0 ignores
\`api.version.request=false\` and fetched with Fetch v11, so nothing was converted.)

${measuredTable(measured)}

${
  atLeast(version, 2, 0)
    ? `Kafka ${version} converts lazily in chunks (KIP-283), so the heap is worked hard but does not run out as it
did on Kafka 1.0 in the seed report.`
    : `Kafka ${version} converts each fetch response whole on the heap (KAFKA-6709; lazy, chunked conversion came
with KIP-283 in 2.0), as the seed report's 1.0.1 brokers did.`
}

## Files

| file | what |
|---|---|
| \`broker-N/server.log\`, \`controller.log\`, \`state-change.log\` | the broker's log4j output, Kafka's own layout |
| \`broker-N/gc.log\` | \`-Xlog:gc*,safepoint\` with time, uptime, level and tag decorations |
| \`clients/producer-perf.out\` | the fill's progress lines (not listed as a source) |
| \`clients/legacy-consumer-N.log\` | the old consumers' WARN/ERROR lines and their summaries (not listed as sources) |
| \`zookeeper/server.log\` | the ZooKeeper server's log (not listed as a source) |
| \`signals.jsonl\` | JMX exporter scrapes every 2 s (FetchMessageConversionsPerSec per topic, heap, GC) through the Prometheus adapter, and configs |

## Expected diagnosis

Broker ${brokerId}: \`${expect.topRule}\`${expect.alsoTop?.length ? ` (or ${expect.alsoTop.map((r) => `\`${r}\``).join(', ')} if the heap runs out)` : ''} ranks first and names \`${TOPIC}\`; ${expect.absentRules.map((r) => `\`${r}\``).join(', ')} must not fire.
`
}

/** Seed 002 for real: old-protocol consumers force down-conversion on a small heap. */
export const scenario: Scenario = {
  name: 'down-conversion',
  summary: `${OLD_CONSUMERS} consumers on kafka-clients 0.10.1 read a ${RECORDS / 1000}k-record topic over and over from a ${HEAP_MB} MiB broker`,
  needs: { seconds: 110, memoryMb: 1_000, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run,
}
