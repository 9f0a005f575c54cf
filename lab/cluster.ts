import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import kafkajs from 'kafkajs'
import { freePort } from './free-port.js'
import { ensureKafkaRuntime, LAB_DIR, type KafkaRuntime } from './kafka-runtime.js'
import { loggingJvmArg } from './kafka-versions.js'
import { spawnManaged, type ManagedProcess } from './managed-process.js'
import { fileHasLine, portAnswers, tailOf, waitFor } from './wait-for.js'

/** ZooKeeper-backed brokers (Kafka's classic mode, as in the seed incidents) or KRaft combined nodes. */
export type LabMode = 'zk' | 'kraft'

/** What a lab cluster is started with; every field has a default sized for a 2-core machine. */
/**
 * The JMX exporter config every lab broker's agent runs with: the one shipped for production brokers
 * (deploy/jmx-exporter/kafka-broker.yaml is a copy, held equal by a test), so recordings carry exactly
 * the series a team's scrape does.
 */
export const EXPORTER_CONFIG = join(LAB_DIR, 'kafka-exporter.yaml')

export type ClusterOptions = {
  /** Number of brokers (1–5); default 1. */
  brokers?: number
  mode?: LabMode
  /** The broker release (lab/kafka-versions.ts); default 3.9.1. */
  kafkaVersion?: string
  /** Working directory for configs, data and logs; a temporary one (removed on stop) by default. */
  dir?: string
  /** Broker heap (-Xms = -Xmx) in MiB; default 320. */
  heapMb?: number
  /** Start the Prometheus JMX exporter agent on each broker; default true. */
  exporter?: boolean
  /** Extra or overriding server.properties entries for every broker. */
  brokerConfig?: Record<string, string>
  /** Per-broker server.properties overrides, keyed by broker id. */
  brokerConfigById?: Record<number, Record<string, string>>
  /** Extra JVM options for every broker. */
  jvmArgs?: string[]
  /** Extra JVM options for one broker, keyed by broker id. */
  jvmArgsById?: Record<number, string[]>
  /** RLIMIT_NOFILE for every broker (prlimit). */
  fdLimit?: number
  /** RLIMIT_NOFILE for one broker, keyed by broker id. */
  fdLimitById?: Record<number, number>
  /** zookeeper.session.timeout.ms (ZooKeeper mode); default Kafka's 18000. */
  zkSessionTimeoutMs?: number
  /** How long to wait for the cluster to become ready; default 120 s. */
  readyTimeoutMs?: number
  /**
   * Brokers run as another user (uid/gid, through setpriv), keyed by broker id: their directories are
   * handed to that user, and file permissions then bite as in production (root ignores them).
   */
  runAsById?: Record<number, { uid: number; gid: number }>
  /**
   * More listeners on every broker (ZooKeeper mode), each on its own dynamic port beside PLAINTEXT, which
   * stays the inter-broker listener: e.g. { name: 'SASL_PLAINTEXT', protocol: 'SASL_PLAINTEXT' }. Their
   * settings (listener.name.<name>.…) go in brokerConfig.
   */
  extraListeners?: { name: string; protocol: 'SASL_PLAINTEXT' | 'SASL_SSL' | 'SSL' }[]
  /**
   * Brokers configured but not started with the others (ZooKeeper mode): they join a running cluster
   * when restartBroker(id) starts them. They are left out of the bootstrap list.
   */
  startLater?: number[]
}

/** One running broker and where its evidence is written. */
export type LabBroker = {
  id: number
  port: number
  /** The JMX exporter's HTTP port (GET /metrics), when the exporter runs. */
  exporterPort?: number
  /** KRaft controller listener port. */
  controllerPort?: number
  /** Ports of the extra listeners, by listener name. */
  listenerPorts: Record<string, number>
  pid: number
  /** Where log4j writes server.log, controller.log, state-change.log; also gc.log and stdout.log. */
  logDir: string
  /** log.dirs (and the KRaft metadata log). */
  dataDir: string
  /** JDK unified log with gc* and safepoint tags, decorated with time, uptime, level, tags. */
  gcLog: string
  serverLog: string
  configFile: string
  /** The broker's process handle (signals reach its whole process group). */
  process: ManagedProcess
}

/** A running lab cluster; stop() removes every process it started. */
export type LabCluster = {
  mode: LabMode
  dir: string
  /** "127.0.0.1:port,…" for clients. */
  bootstrap: string
  /** "127.0.0.1:port" in ZooKeeper mode. */
  zkConnect?: string
  zookeeper?: { port: number; pid: number; logDir: string; process: ManagedProcess }
  brokers: LabBroker[]
  runtime: KafkaRuntime
  /** JVM start time of each broker (ISO with offset), for the gc log's uptime decorations. */
  jvmStartedAt: Record<number, string>
  /**
   * Starts a broker that has exited (killed, halted, stopped) again with the same command line and
   * resolves once its log says it started; its process handle and pid are replaced.
   */
  restartBroker(id: number, timeoutMs?: number): Promise<void>
  /** Stops brokers (SIGTERM, then SIGKILL after graceMs), then ZooKeeper; idempotent. */
  stop(options?: { graceMs?: number }): Promise<void>
}

const DEFAULT_HEAP_MB = 320

/** JVM options every lab broker runs with: Kafka's G1 settings, GC + safepoint logging, UTC logs. */
function brokerJvmArgs(runtime: KafkaRuntime, heapMb: number, logDir: string, gcLog: string): string[] {
  return [
    `-Xms${heapMb}m`,
    `-Xmx${heapMb}m`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-XX:MaxInlineLevel=15',
    '-XX:CICompilerCount=2',
    '-XX:+HeapDumpOnOutOfMemoryError',
    `-XX:HeapDumpPath=${join(logDir, 'heapdump.hprof')}`,
    `-Xlog:gc*,safepoint:file=${gcLog}:time,uptime,level,tags:filecount=0`,
    '-Djava.awt.headless=true',
    '-Duser.timezone=UTC',
    loggingJvmArg(runtime.profile, LAB_DIR),
    `-Dkafka.logs.dir=${logDir}`,
    ...runtime.profile.jvmArgs,
  ]
}

function propertiesText(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n') + '\n'
}

function isoNow(): string {
  return new Date().toISOString()
}

/**
 * A KRaft cluster id: 16 random bytes, base64url without padding, as kafka-storage random-uuid prints.
 * Like Kafka's Uuid.randomUuid it never starts with '-', which kafka-storage's argument parser would
 * take for an option (1 start in 64 failed with "argument --cluster-id/-t: expected one argument").
 */
function kraftClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

// 0.10 and 1.0 write "[Kafka Server 1], started (kafka.server.KafkaServer)".
const STARTED_LINE = /\],? started \(kafka\.server\.KafkaServer\)|Kafka Server started \(kafka\.server\.KafkaRaftServer\)/
const STARTED_LINES = new RegExp(STARTED_LINE.source, 'g')

async function startedCount(serverLog: string): Promise<number> {
  try {
    return ((await readFile(serverLog, 'utf8')).match(STARTED_LINES) ?? []).length
  } catch {
    return 0
  }
}

/**
 * Starts ZooKeeper (in ZooKeeper mode) and `brokers` real Kafka brokers on 127.0.0.1 with Kafka's own
 * log4j layout, GC and safepoint logging and the JMX exporter, and resolves once every broker is in
 * the cluster metadata. On any failure everything started is stopped before the error is thrown.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<LabCluster> {
  const runtime = ensureKafkaRuntime(options.kafkaVersion)
  const mode = options.mode ?? 'zk'
  if (!runtime.profile.modes.includes(mode)) throw new Error(`Kafka ${runtime.version} does not run in ${mode === 'zk' ? 'ZooKeeper' : 'KRaft'} mode in the lab (modes: ${runtime.profile.modes.join(', ')})`)
  const count = options.brokers ?? 1
  if (!Number.isInteger(count) || count < 1 || count > 5) throw new Error(`brokers must be 1..5, got ${count}`)
  const ownDir = options.dir === undefined
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'kafka-why-lab-'))
  mkdirSync(dir, { recursive: true })
  const heapMb = options.heapMb ?? DEFAULT_HEAP_MB
  const exporter = options.exporter ?? true
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000
  const started: ManagedProcess[] = []
  let stopped = false
  // A temporary directory goes with the process too, when it exits without stop() (Ctrl-C, a crash).
  const removeDir = () => {
    try {
      rmSync(dir, { recursive: true, force: true })
    } catch {
      // a process still writing into it; the OS temp cleaner gets the rest
    }
  }
  if (ownDir) process.once('exit', removeDir)

  const stopAll = async (graceMs = 10_000): Promise<void> => {
    if (stopped) return
    stopped = true
    const brokerProcs = started.slice(mode === 'zk' ? 1 : 0)
    // One at a time: brokers shutting down together wait on each other's controlled shutdown.
    for (const p of brokerProcs.reverse()) await p.stop(graceMs)
    if (mode === 'zk' && started[0]) await started[0].stop(5_000)
    if (ownDir) {
      removeDir()
      process.removeListener('exit', removeDir)
    }
  }

  try {
    let zookeeper: LabCluster['zookeeper']
    let zkConnect: string | undefined
    if (mode === 'zk') {
      const zkPort = await freePort()
      const zkDir = join(dir, 'zookeeper')
      const zkLogDir = join(zkDir, 'logs')
      mkdirSync(join(zkDir, 'data'), { recursive: true })
      mkdirSync(zkLogDir, { recursive: true })
      const zkCfg = join(zkDir, 'zookeeper.properties')
      writeFileSync(
        zkCfg,
        propertiesText({
          dataDir: join(zkDir, 'data'),
          clientPort: String(zkPort),
          clientPortAddress: '127.0.0.1',
          maxClientCnxns: '0',
          'admin.enableServer': 'false',
          tickTime: '2000',
          minSessionTimeout: '2000',
          maxSessionTimeout: '60000',
          '4lw.commands.whitelist': 'ruok,srvr,stat',
        }),
      )
      const zk = spawnManaged(
        runtime.java,
        [
          '-Xms64m',
          '-Xmx128m',
          '-XX:+UseSerialGC',
          '-Duser.timezone=UTC',
          `-Dlog4j.configuration=file:${join(LAB_DIR, 'log4j.properties')}`,
          `-Dkafka.logs.dir=${zkLogDir}`,
          '-cp',
          runtime.classpath,
          'org.apache.zookeeper.server.quorum.QuorumPeerMain',
          zkCfg,
        ],
        { stdoutFile: join(zkLogDir, 'stdout.log'), stderrFile: join(zkLogDir, 'stdout.log') },
      )
      started.push(zk)
      await waitFor(() => portAnswers(zkPort), {
        timeoutMs: 30_000,
        what: 'ZooKeeper',
        abortIf: () => (zk.alive() ? undefined : `exited; ${join(zkLogDir, 'stdout.log')}`),
      })
      zookeeper = { port: zkPort, pid: zk.pid, logDir: zkLogDir, process: zk }
      zkConnect = `127.0.0.1:${zkPort}`
    }

    const ids = Array.from({ length: count }, (_, i) => i + 1)
    const extra = options.extraListeners ?? []
    if (extra.length > 0 && mode !== 'zk') throw new Error('extra listeners are only set up in ZooKeeper mode')
    const ports = new Map<number, { port: number; controllerPort?: number; exporterPort?: number; listenerPorts: Record<string, number> }>()
    for (const id of ids) {
      const listenerPorts: Record<string, number> = {}
      for (const l of extra) listenerPorts[l.name] = await freePort()
      ports.set(id, {
        port: await freePort(),
        controllerPort: mode === 'kraft' ? await freePort() : undefined,
        exporterPort: exporter ? await freePort() : undefined,
        listenerPorts,
      })
    }
    const replication = String(Math.min(3, count))
    const clusterId = kraftClusterId()
    const voters = ids.map((id) => `${id}@127.0.0.1:${ports.get(id)!.controllerPort}`).join(',')

    const brokers: LabBroker[] = []
    const jvmStartedAt: Record<number, string> = {}
    const spawnBroker = new Map<number, () => ManagedProcess>()
    const toStart: { spawnThis: () => ManagedProcess; broker: Omit<LabBroker, 'pid' | 'process'> }[] = []
    if (options.runAsById && Object.keys(options.runAsById).length > 0) chmodSync(dir, 0o755)
    for (const id of ids) {
      const p = ports.get(id)!
      const home = join(dir, `broker-${id}`)
      const logDir = join(home, 'logs')
      const dataDir = join(home, 'data')
      mkdirSync(logDir, { recursive: true })
      mkdirSync(dataDir, { recursive: true })
      const common: Record<string, string> = {
        'log.dirs': dataDir,
        'num.partitions': '1',
        'default.replication.factor': replication,
        'offsets.topic.replication.factor': replication,
        'offsets.topic.num.partitions': '3',
        'transaction.state.log.replication.factor': replication,
        'transaction.state.log.min.isr': '1',
        'transaction.state.log.num.partitions': '3',
        'group.initial.rebalance.delay.ms': '0',
        'num.network.threads': '2',
        'num.io.threads': '2',
        'num.replica.fetchers': '1',
        'num.recovery.threads.per.data.dir': '1',
        'background.threads': '2',
        'log.cleaner.threads': '1',
        'log.cleaner.dedupe.buffer.size': String(8 * 1024 * 1024),
        'auto.create.topics.enable': 'true',
      }
      for (const key of runtime.profile.unknownKeys) delete common[key]
      const modeConfig: Record<string, string> =
        mode === 'zk'
          ? {
              'broker.id': String(id),
              listeners: [`PLAINTEXT://127.0.0.1:${p.port}`, ...extra.map((l) => `${l.name}://127.0.0.1:${p.listenerPorts[l.name]}`)].join(','),
              'advertised.listeners': [`PLAINTEXT://127.0.0.1:${p.port}`, ...extra.map((l) => `${l.name}://127.0.0.1:${p.listenerPorts[l.name]}`)].join(','),
              ...(extra.length > 0
                ? {
                    'listener.security.protocol.map': ['PLAINTEXT:PLAINTEXT', ...extra.map((l) => `${l.name}:${l.protocol}`)].join(','),
                    'inter.broker.listener.name': 'PLAINTEXT',
                  }
                : {}),
              'zookeeper.connect': zkConnect!,
              'zookeeper.connection.timeout.ms': '30000',
              ...(options.zkSessionTimeoutMs !== undefined
                ? { 'zookeeper.session.timeout.ms': String(options.zkSessionTimeoutMs) }
                : {}),
            }
          : {
              'process.roles': 'broker,controller',
              'node.id': String(id),
              'controller.quorum.voters': voters,
              listeners: `PLAINTEXT://127.0.0.1:${p.port},CONTROLLER://127.0.0.1:${p.controllerPort}`,
              'advertised.listeners': `PLAINTEXT://127.0.0.1:${p.port}`,
              'controller.listener.names': 'CONTROLLER',
              'inter.broker.listener.name': 'PLAINTEXT',
              'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
            }
      const configFile = join(home, 'server.properties')
      writeFileSync(
        configFile,
        propertiesText({ ...common, ...modeConfig, ...options.brokerConfig, ...options.brokerConfigById?.[id] }),
      )
      if (mode === 'kraft') {
        const fmt = spawnSync(
          runtime.java,
          ['-Xmx128m', '-cp', runtime.classpath, `-Dlog4j.configuration=file:${join(LAB_DIR, 'tools-log4j.properties')}`,
            'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', configFile],
          { encoding: 'utf8' },
        )
        if (fmt.status !== 0) throw new Error(`kafka-storage format failed for node ${id}:\n${fmt.stdout}${fmt.stderr}`)
      }
      const gcLog = join(logDir, 'gc.log')
      const jvm = [...brokerJvmArgs(runtime, heapMb, logDir, gcLog), ...(options.jvmArgs ?? []), ...(options.jvmArgsById?.[id] ?? [])]
      if (exporter) {
        jvm.push(`-javaagent:${runtime.exporterAgent}=127.0.0.1:${p.exporterPort}:${EXPORTER_CONFIG}`)
      }
      const fdLimit = options.fdLimitById?.[id] ?? options.fdLimit
      const runAs = options.runAsById?.[id]
      if (runAs) {
        const own = spawnSync('chown', ['-R', `${runAs.uid}:${runAs.gid}`, home], { encoding: 'utf8' })
        if (own.status !== 0) throw new Error(`cannot hand ${home} to uid ${runAs.uid} (root needed): ${own.stderr.trim()}`)
      }
      const spawnThis = () => {
        jvmStartedAt[id] = isoNow()
        const p = spawnManaged(runtime.java, [...jvm, '-cp', runtime.classpath, 'kafka.Kafka', configFile], {
          stdoutFile: join(logDir, 'stdout.log'),
          stderrFile: join(logDir, 'stdout.log'),
          fdLimit,
          runAs,
        })
        started.push(p)
        return p
      }
      spawnBroker.set(id, spawnThis)
      toStart.push({ spawnThis, broker: { id, port: p.port, exporterPort: p.exporterPort, controllerPort: p.controllerPort, listenerPorts: p.listenerPorts, logDir, dataDir, gcLog, serverLog: join(logDir, 'server.log'), configFile } })
    }
    // Every node is configured (and in KRaft formatted) before any starts: a KRaft node started while
    // its voters were still being formatted timed its registration out again and again (4.1.1).
    const later = new Set(options.startLater ?? [])
    if (later.size > 0 && mode !== 'zk') throw new Error('brokers started later are only set up in ZooKeeper mode')
    for (const { spawnThis, broker } of toStart) {
      if (later.has(broker.id)) {
        const notStarted: ManagedProcess = { pid: -1, label: `broker ${broker.id} (not started yet)`, exited: Promise.resolve('not started'), alive: () => false, signal: () => {}, stop: async () => {} }
        brokers.push({ ...broker, pid: -1, process: notStarted })
        continue
      }
      const proc = spawnThis()
      brokers.push({ ...broker, pid: proc.pid, process: proc })
    }
    const startedNow = brokers.filter((b) => !later.has(b.id))

    await Promise.all(
      startedNow.map((b) =>
        waitFor(() => fileHasLine(b.serverLog, STARTED_LINE), {
          timeoutMs: readyTimeoutMs,
          intervalMs: 500,
          what: `broker ${b.id}`,
          abortIf: () => (b.process.alive() ? undefined : `exited; see ${b.serverLog} and ${join(b.logDir, 'stdout.log')}`),
        }),
      ),
    )
    const bootstrap = startedNow.map((b) => `127.0.0.1:${b.port}`).join(',')
    await waitForMetadata(bootstrap, startedNow.length, readyTimeoutMs)
    if (exporter) {
      await Promise.all(
        startedNow.map((b) =>
          waitFor(async () => (await scrapeExporter(b.exporterPort!)).length > 0, {
            timeoutMs: 30_000,
            what: `exporter of broker ${b.id}`,
          }),
        ),
      )
    }
    return {
      mode,
      dir,
      bootstrap,
      zkConnect,
      zookeeper,
      brokers,
      runtime,
      jvmStartedAt,
      async restartBroker(id, timeoutMs = readyTimeoutMs) {
        const b = brokers.find((x) => x.id === id)
        const spawnThis = spawnBroker.get(id)
        if (!b || !spawnThis) throw new Error(`no broker ${id} in this cluster`)
        if (b.process.alive()) throw new Error(`broker ${id} is still running (pid ${b.pid})`)
        const before = await startedCount(b.serverLog)
        const p = spawnThis()
        b.process = p
        b.pid = p.pid
        await waitFor(async () => (await startedCount(b.serverLog)) > before, {
          timeoutMs,
          intervalMs: 500,
          what: `broker ${id} restart`,
          abortIf: () => (p.alive() ? undefined : `exited; see ${b.serverLog} and ${join(b.logDir, 'stdout.log')}`),
        })
      },
      // A KRaft node left without a quorum cannot shut down cleanly, so it gets less time.
      stop: (o) => stopAll(o?.graceMs ?? (mode === 'kraft' ? 4_000 : 10_000)),
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const logs = await Promise.all(
      [join(dir, 'zookeeper', 'logs', 'stdout.log'), ...Array.from({ length: count }, (_, i) => join(dir, `broker-${i + 1}`, 'logs', 'stdout.log'))].map(
        async (f) => {
          const t = (await tailOf(f, 8)).trim()
          return t ? `--- ${f}\n${t}` : ''
        },
      ),
    )
    await stopAll(2_000)
    throw new Error(`lab cluster did not start: ${message}\n${logs.filter(Boolean).join('\n')}`)
  }
}

/** Resolves once a metadata request over the wire lists `count` brokers. */
async function waitForMetadata(bootstrap: string, count: number, timeoutMs: number): Promise<void> {
  const kafka = new kafkajs.Kafka({
    clientId: 'kafka-why-lab',
    brokers: bootstrap.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
    retry: { retries: 0 },
  })
  const admin = kafka.admin()
  try {
    await waitFor(
      async () => {
        try {
          await admin.connect()
          const c = await admin.describeCluster()
          return c.brokers.length >= count && c.controller !== null && c.controller >= 0
        } catch {
          return false
        }
      },
      { timeoutMs, intervalMs: 500, what: `cluster metadata with ${count} brokers` },
    )
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/** One scrape of a broker's exporter (Prometheus text format); empty text when it does not answer. */
export async function scrapeExporter(port: number, timeoutMs = 5_000): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(timeoutMs) })
    return res.ok ? await res.text() : ''
  } catch {
    return ''
  }
}
