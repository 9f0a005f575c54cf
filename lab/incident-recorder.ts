import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import kafkajs from 'kafkajs'
import { TargetScraper } from '../adapters/prometheus/scraper.js'
import { configFactName, configFactValue } from '../adapters/admin/config-facts.js'
import type { Signal } from '../signals/signal.js'
import type { LabCluster } from './cluster.js'
import { SCHEMA_FILES, schemaComment } from '../file-formats/schema-comment.js'

/** The cluster name every lab incident is recorded under. */
export const LAB_CLUSTER_NAME = 'lab'

/** One raw log of a recorded incident, as incident.yaml lists it. */
export type RecordedSource = { path: string; broker?: string; format?: 'kafka' | 'gc' | 'client'; jvmStart?: string }

/**
 * Scrapes every broker's JMX exporter on an interval while a scenario runs and keeps the resulting
 * signals (through the product's own Prometheus adapter, so replay sees what `serve` would have seen).
 * A stalled or dead broker shows as failed scrapes and `source.stale`, as it would in production.
 */
export class ScrapeRecorder {
  readonly signals: Signal[] = []
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<unknown> = Promise.resolve()
  private readonly scrapers: TargetScraper[]
  scrapes = 0
  failures = 0

  constructor(cluster: LabCluster, private readonly intervalMs = 2_000) {
    this.scrapers = cluster.brokers
      .filter((b) => b.exporterPort !== undefined)
      .map(
        (b) =>
          new TargetScraper(
            { url: `http://127.0.0.1:${b.exporterPort}/metrics`, cluster: LAB_CLUSTER_NAME, broker: String(b.id), timeoutMs: Math.min(1_500, intervalMs) },
            { sink: (batch) => void batch.forEach((s) => this.signals.push(s)) },
          ),
      )
  }

  /** Starts scraping now and then every interval. */
  start(): void {
    const tick = () => {
      this.inFlight = Promise.all(
        this.scrapers.map(async (s) => {
          const o = await s.scrapeOnce()
          this.scrapes++
          if (!o.ok) this.failures++
        }),
      )
      this.timer = setTimeout(tick, this.intervalMs)
    }
    tick()
  }

  /** Stops scraping and waits for the scrape in flight. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.inFlight
  }
}

/** Config keys recorded as facts, broker-level and topic-level. */
const BROKER_CONFIGS = ['zookeeper.session.timeout.ms', 'num.io.threads', 'log.roll.ms', 'log.roll.hours', 'log.segment.bytes', 'log.message.format.version']
const TOPIC_CONFIGS = ['segment.ms', 'segment.bytes', 'retention.ms', 'min.insync.replicas', 'message.format.version']

/**
 * The brokers' and topics' configs as `config.*` facts, read over the admin API (describeConfigs), the
 * way the live admin adapter records them. Names not in the catalogue are skipped.
 */
export async function readConfigFacts(cluster: LabCluster, topics: string[], at: number): Promise<Signal[]> {
  const kafka = new kafkajs.Kafka({ clientId: 'kafka-why-lab', brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  const out: Signal[] = []
  try {
    await admin.connect()
    const res = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        // A broker not running (one that joins later, one killed) has no configs to describe.
        ...cluster.brokers.filter((b) => b.process.alive()).map((b) => ({ type: kafkajs.ConfigResourceTypes.BROKER, name: String(b.id), configNames: BROKER_CONFIGS })),
        ...topics.map((t) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name: t, configNames: TOPIC_CONFIGS })),
      ],
    })
    for (const r of res.resources) {
      const isTopic = r.resourceType === kafkajs.ConfigResourceTypes.TOPIC
      for (const e of r.configEntries) {
        const name = configFactName(e.configName)
        const value = configFactValue(e.configName, e.configValue ?? null)
        if (!name || value === undefined) continue
        out.push({
          name,
          at,
          cluster: LAB_CLUSTER_NAME,
          ...(isTopic ? { labels: { topic: r.resourceName } } : { broker: r.resourceName }),
          value,
          source: `admin:describeConfigs:${isTopic ? 'topic' : 'broker'}:${r.resourceName}`,
          text: `${e.configName}=${e.configValue}`,
        })
      }
    }
  } finally {
    await admin.disconnect().catch(() => {})
  }
  return out
}

/**
 * The "Files" table of a 3-broker lab recording's README: the same files in every scenario that runs
 * brokers with a producer; ZooKeeper mode adds the ZooKeeper server's log.
 */
export function clusterFilesTable(mode: 'zk' | 'kraft', configsNote = ''): string {
  return `| file | what |
|---|---|
| \`broker-N/server.log\`, \`controller.log\`, \`state-change.log\` | each broker's log4j output, Kafka's own layout |
| \`broker-N/gc.log\` | \`-Xlog:gc*,safepoint\` with time, uptime, level and tag decorations |
| \`clients/producer.log\` | the producer's WARN/ERROR log4j output (Kafka's layout) |
| \`clients/producer-perf.out\` | the perf tool's progress lines (no timestamps; not listed as a source) |
${mode === 'zk' ? "| \`zookeeper/server.log\` | the ZooKeeper server's log (not listed as a source: its lines name sessions, not brokers) |" : "| – | KRaft mode: the controllers' fencing lines are in the brokers' \`server.log\` |"}
| \`signals.jsonl\` | JMX exporter scrapes every 2 s through the Prometheus adapter, and the brokers' and topic's configs (describeConfigs)${configsNote} |`
}

/** The README's table of what a scenario measured in its recording, one row per measure. */
export function measuredTable(measured: Record<string, string | number>): string {
  return ['| measure | value |', '|---|---|', ...Object.entries(measured).map(([k, v]) => `| ${k} | ${v} |`)].join('\n')
}

/** What a scenario hands over to be written as test/incidents/<slug>/. */
export type IncidentRecord = {
  outDir: string
  cluster: LabCluster
  /** Extra files (client logs) to copy: from an absolute path to a path inside the incident. */
  extraFiles?: { from: string; to: string; format?: 'client' | 'kafka'; broker?: string; listed?: boolean }[]
  signals: Signal[]
  readme: string
}

/**
 * Writes a recorded incident in the shared incident directory format: each broker's server, controller,
 * state-change and GC logs, ZooKeeper's log (kept for reference, not listed: its lines name no broker),
 * client logs, signals.jsonl (scrapes and configs, in time order), incident.yaml and README.md.
 */
export function writeIncident(record: IncidentRecord): { sources: RecordedSource[]; bytes: number } {
  const { outDir, cluster } = record
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  const sources: RecordedSource[] = []
  let bytes = 0
  const copy = (from: string, to: string): boolean => {
    if (!existsSync(from) || statSync(from).size === 0) return false
    mkdirSync(dirname(join(outDir, to)), { recursive: true })
    copyFileSync(from, join(outDir, to))
    bytes += statSync(from).size
    return true
  }
  for (const b of cluster.brokers) {
    const broker = String(b.id)
    for (const f of ['server.log', 'controller.log', 'state-change.log']) {
      if (copy(join(b.logDir, f), `broker-${b.id}/${f}`)) sources.push({ path: `broker-${b.id}/${f}`, broker })
    }
    if (copy(b.gcLog, `broker-${b.id}/gc.log`)) {
      sources.push({ path: `broker-${b.id}/gc.log`, broker, format: 'gc', jvmStart: cluster.jvmStartedAt[b.id] })
    }
  }
  if (cluster.zookeeper) copy(join(cluster.zookeeper.logDir, 'server.log'), 'zookeeper/server.log')
  for (const f of record.extraFiles ?? []) {
    if (copy(f.from, f.to) && f.listed !== false) sources.push({ path: f.to, ...(f.broker ? { broker: f.broker } : {}), ...(f.format ? { format: f.format } : {}) })
  }
  const signals = [...record.signals].sort((a, b) => a.at - b.at)
  if (signals.length > 0) {
    const text = signals.map((s) => JSON.stringify(s)).join('\n') + '\n'
    writeFileSync(join(outDir, 'signals.jsonl'), text)
    bytes += text.length
  }
  // One flow mapping per source, as the shared format shows them; JSON strings are valid YAML scalars.
  const yamlText = [
    schemaComment(outDir, SCHEMA_FILES.incident),
    `cluster: ${LAB_CLUSTER_NAME}`,
    'timeZone: "+00:00"',
    'sources:',
    ...sources.map(
      (s) =>
        `  - { ${Object.entries(s)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}: ${k === 'path' ? v : JSON.stringify(v)}`)
          .join(', ')} }`,
    ),
  ].join('\n') + '\n'
  writeFileSync(join(outDir, 'incident.yaml'), yamlText)
  writeFileSync(join(outDir, 'README.md'), record.readme)
  return { sources, bytes }
}
