import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { startCluster } from '../cluster.js'
import { LAB_CLUSTER_NAME, measuredTable, readConfigFacts, ScrapeRecorder, writeIncident } from '../incident-recorder.js'
import { startJavaTool } from '../java-tool.js'
import { atLeast, incidentSlug, kafkaLabel, labCommand } from '../kafka-versions.js'
import { startWatching, type Scenario, type ScenarioContext, type ScenarioExpectation, type ScenarioOutcome } from '../scenario.js'
import { countLines, createTopic } from '../session-stall.js'
import { fileHasLine, waitFor } from '../wait-for.js'

const TOPIC = 'LoadTestingTopic'
const PARTITIONS = 6
/** Open-files limit of the broker: its jars, sockets and internal topics take ~250 at start. */
const FD_LIMIT = 700
const SEGMENT_MS = '100'
/** log.index.size.max.bytes in the address-space variant: every active segment maps two indexes this large. */
const INDEX_MAX_BYTES = 64 * 1024 * 1024
/**
 * Address space left over the broker's size once every partition's indexes are mapped. On Linux a roll
 * trims the old segment's indexes by mapping them again at their new size without unmapping the old
 * 64 MiB maps (AbstractIndex.resize unmaps first only on Windows and z/OS), so they stay until a GC
 * frees their buffers; 8 MiB leaves no room for a roll's new full-size maps until then.
 */
const AS_SPARE_BYTES = 8 * 1024 * 1024
const FAILURE_LINE = /Too many open files|Map failed|LogDirFailureChannel|Halting broker|Shutdown broker because all log dirs/

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Which resource the storm exhausts. Seed 001's 3.6 broker died of "Map failed" (vm.max_map_count), a
 * machine-wide setting the lab leaves alone; an address-space limit on the broker alone (RLIMIT_AS)
 * makes the JVM's index mmap fail the same way, so on 3.6 the storm runs out of address space and on
 * other releases out of open files.
 */
export type RollStormLimit = 'open-files' | 'address-space'

/** The resource the roll storm exhausts on a release: address space on seed 001's 3.6, open files elsewhere. */
export function rollStormLimit(version: string): RollStormLimit {
  return atLeast(version, 3, 6) && !atLeast(version, 3, 7) ? 'address-space' : 'open-files'
}

/** A process's virtual size in bytes (VmSize in /proc/<pid>/status). */
function virtualSizeBytes(pid: number): number {
  const kb = /VmSize:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!kb) throw new Error(`no VmSize for pid ${pid}`)
  return Number(kb[1]) * 1024
}

async function alterTopicConfig(bootstrap: string, topic: string, entries: Record<string, string>): Promise<void> {
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configEntries: Object.entries(entries).map(([name, value]) => ({ name, value })) }],
    })
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/**
 * Seed 001 for real: a topic under steady load gets segment.ms=100 on a broker with a low limit, so
 * every partition rolls a segment (a new .log file held open, two mmapped indexes) every 100 ms until
 * the broker hits "Too many open files" (or, on 3.6, "Map failed" under an address-space limit), fails
 * its log dir and halts.
 */
async function run(ctx: ScenarioContext): Promise<ScenarioOutcome> {
  const limit = rollStormLimit(ctx.runtime.version)
  ctx.log(limit === 'open-files' ? `starting ZooKeeper and 1 broker with an open-files limit of ${FD_LIMIT}` : 'starting ZooKeeper and 1 broker with 64 MiB index maps')
  const cluster = await startCluster({
    brokers: 1,
    mode: 'zk',
    kafkaVersion: ctx.runtime.version,
    dir: ctx.workDir,
    // Kept under the address-space limit too: when GCs free the old index maps in time, no map fails
    // and the storm ends in Too many open files instead of running on.
    fdLimit: FD_LIMIT,
    heapMb: 320,
    brokerConfig: limit === 'address-space' ? { 'log.index.size.max.bytes': String(INDEX_MAX_BYTES) } : {},
  })
  const broker = cluster.brokers[0]
  const expect: ScenarioExpectation = { topRule: 'roll_storm_resource_exhaustion', absentRules: ['fd_exhaustion'], warnsFirst: ['roll_storm_building'] }
  const recorder = new ScrapeRecorder(cluster)
  const clientsDir = join(ctx.workDir, 'clients')
  mkdirSync(clientsDir, { recursive: true })
  let producer: ReturnType<typeof startJavaTool> | undefined
  try {
    const watching = startWatching(ctx, cluster, expect)
    await createTopic(cluster, TOPIC, PARTITIONS, 1, {})
    recorder.start()
    producer = startJavaTool(
      ctx.runtime,
      'org.apache.kafka.tools.ProducerPerformance',
      ['--topic', TOPIC, '--num-records', '100000000', '--record-size', '512', '--throughput', '600',
        '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'acks=1', 'client.id=load-test'],
      { stdoutFile: join(clientsDir, 'producer-perf.out'), logFile: join(clientsDir, 'producer.log') },
    )
    await sleep(8_000)
    let asLimitBytes: number | undefined
    if (limit === 'address-space') {
      // Set on the running broker once its partitions' indexes are mapped: sized from what it holds.
      asLimitBytes = virtualSizeBytes(broker.pid) + AS_SPARE_BYTES
      execFileSync('prlimit', ['--pid', String(broker.pid), `--as=${asLimitBytes}`])
      ctx.log(`broker address space limited to ${(asLimitBytes / 2 ** 20).toFixed(0)} MiB`)
    }
    const before = await readConfigFacts(cluster, [TOPIC], Date.now())
    await watching()
    const faultAt = Date.now()
    ctx.log(`setting segment.ms=${SEGMENT_MS} on ${TOPIC}`)
    await alterTopicConfig(cluster.bootstrap, TOPIC, { 'segment.ms': SEGMENT_MS })
    const after = await readConfigFacts(cluster, [TOPIC], Date.now())
    await waitFor(() => fileHasLine(broker.serverLog, FAILURE_LINE), { timeoutMs: 120_000, intervalMs: 500, what: limit === 'open-files' ? 'file descriptor exhaustion' : 'index mmap failure or file descriptor exhaustion' })
    const failedAt = Date.now()
    ctx.log(`broker failed ${((failedAt - faultAt) / 1000).toFixed(1)} s after the change; letting it finish`)
    await waitFor(() => !broker.process.alive(), { timeoutMs: 15_000, what: 'broker halt' }).catch(() => ctx.log('broker still running after its log dir failed'))
    await sleep(2_000)
    await producer.stop(2_000)
    await recorder.stop()
    await cluster.stop({ graceMs: 5_000 })

    const server = broker.serverLog
    const measured = {
      ...(limit === 'open-files'
        ? { 'open-files limit (prlimit)': FD_LIMIT }
        : {
            'address-space limit (prlimit --as, set 8 s after start), MiB': ((asLimitBytes ?? 0) / 2 ** 20).toFixed(0),
            'log.index.size.max.bytes (MiB)': INDEX_MAX_BYTES / 2 ** 20,
            'open-files limit (prlimit)': FD_LIMIT,
          }),
      'segment.ms set at': new Date(faultAt).toISOString(),
      'seconds from segment.ms=100 to the first failure line': ((failedAt - faultAt) / 1000).toFixed(1),
      '"Rolled new log segment" lines': countLines(server, /Rolled new log segment/),
      '"Too many open files" lines': countLines(server, /Too many open files/),
      '"Map failed" lines': countLines(server, /Map failed/),
      'LogDirFailureChannel errors': countLines(server, /\(org\.apache\.kafka\.storage\.internals\.log\.LogDirFailureChannel\)/),
      'broker halted': broker.process.alive() ? 'no' : 'yes',
    }
    writeIncident({
      outDir: ctx.outDir,
      cluster,
      signals: [...recorder.signals, ...before, ...after],
      extraFiles: [
        { from: join(clientsDir, 'producer.log'), to: 'clients/producer.log', format: 'client' },
        { from: join(clientsDir, 'producer-perf.out'), to: 'clients/producer-perf.out', listed: false },
      ],
      readme: readme(ctx.runtime.version, limit, faultAt, measured, expect),
    })
    return { slug: incidentSlug('roll-storm', ctx.runtime.version), outDir: ctx.outDir, broker: String(broker.id), faultAt, expect, facts: measured }
  } finally {
    await producer?.stop(1_000)
    await recorder.stop()
    await cluster.stop({ graceMs: 2_000 })
  }
}

function readme(version: string, limit: RollStormLimit, faultAt: number, measured: Record<string, string | number>, expect: ScenarioExpectation): string {
  const what = limit === 'open-files'
    ? `**What was done.** The broker ran under \`prlimit --nofile=${FD_LIMIT}\` (its jars, sockets and internal topics
take about 250 at start). Topic \`${TOPIC}\``
    : `**What was done.** The broker ran with \`log.index.size.max.bytes=${INDEX_MAX_BYTES}\` (64 MiB: an active segment maps
its \`.index\` and \`.timeindex\` at that size, and trims them when it rolls) under \`prlimit --nofile=${FD_LIMIT}\`.
Seed 001's broker died of \`Map failed\` when it hit \`vm.max_map_count\`; that is machine-wide, so the lab limits
this broker's address space instead: 8 s after the topic was created, \`prlimit --pid <broker> --as\` set RLIMIT_AS
to the broker's virtual size then plus 8 MiB. On Linux a roll trims the old segment's indexes by mapping them
again at their new size while the old full-size maps stay until a GC frees their buffers
(\`AbstractIndex.resize\` unmaps first only on Windows and z/OS), so rolls add maps faster than they drop them, as
they added to the map count of seed 001's broker. With 8 MiB to spare, a roll's new full-size map does not fit
beside the old ones: mmap fails with ENOMEM, which the JVM reports as Kafka's own \`java.io.IOException: Map failed\`.
Topic \`${TOPIC}\``
  const outcome = limit === 'open-files' || Number(measured['"Map failed" lines']) === 0
    ? `each segment keeps its \`.log\` file open, so the broker ran out of file
descriptors, the log dir failed and the broker halted.${limit === 'address-space' ? ' No index map failed: GCs freed the old maps in time.' : ''}`
    : `the first rolls' new index maps did not fit beside
the old ones, an index mmap failed (\`Map failed\`), the log dir failed and the broker halted.`
  return `# ${incidentSlug('roll-storm', version)}: segment.ms=100 under load exhausts a broker's ${limit === 'open-files' ? 'file descriptors' : 'address space for index maps'}

Recorded by \`${labCommand('roll-storm', version)}\` on a real ${kafkaLabel(version)} broker (ZooKeeper mode, 1 broker,
OpenJDK 17) on 127.0.0.1. Every line in the logs was written by those processes; nothing was edited.
Cluster name \`${LAB_CLUSTER_NAME}\`, timestamps UTC.

${what} (${PARTITIONS} partitions, RF 1) took 600 records/s of 512 B from
\`kafka-producer-perf-test\`. After 8 s, at ${new Date(faultAt).toISOString()}, the topic's \`segment.ms\` was set to
${SEGMENT_MS} (\`kafka-configs --alter\` through the admin API), as in the seed report. Each partition then rolled a new
segment about every 100 ms; ${outcome}

${measuredTable(measured)}

## Files

| file | what |
|---|---|
| \`broker-1/server.log\`, \`controller.log\`, \`state-change.log\` | the broker's log4j output, Kafka's own layout |
| \`broker-1/gc.log\` | \`-Xlog:gc*,safepoint\` with time, uptime, level and tag decorations |
| \`clients/producer.log\` | the producer's WARN/ERROR log4j output |
| \`clients/producer-perf.out\` | the perf tool's progress lines (no timestamps; not listed as a source) |
| \`zookeeper/server.log\` | the ZooKeeper server's log (not listed as a source) |
| \`signals.jsonl\` | JMX exporter scrapes every 2 s (\`process_open_fds\`, \`NumLogSegments\`, …) through the Prometheus adapter, and the topic's and broker's configs before and after the change (describeConfigs) |

## Expected diagnosis

Broker 1: \`${expect.topRule}\` ranks first and names \`${TOPIC}\`; ${expect.absentRules.map((r) => `\`${r}\``).join(', ')} must not fire.
Asserted live by \`test/lab/scenarios.test.ts\` and on the recording by \`test/lab/recorded.test.ts\`.
`
}

/** Seed 001 for real: a segment-roll storm until the broker runs out of file descriptors. */
export const scenario: Scenario = {
  name: 'roll-storm',
  summary: `segment.ms=100 on a loaded 6-partition topic, broker limited to ${FD_LIMIT} open files, until Too many open files and log dir failure`,
  needs: { seconds: 70, memoryMb: 800, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  watchable: true,
  run,
}
