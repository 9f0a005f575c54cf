import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { METRIC_MAPPINGS, mapSample } from '../../adapters/prometheus/mapping.js'
import { observedSignalsOfRule, factRefsOfRule } from '../../dsl/signals-of-rule.js'
import { CONTROLLER_SUM_SERIES, CONTROLLER_SUM_SOURCE } from '../../engine/controller-sum.js'
import { TIME_TO_FULL_SERIES, TIME_TO_FULL_SOURCE } from '../../engine/disk-time-to-full.js'
import { EXPORTER_CONFIG } from '../../lab/cluster.js'
import { loadRules } from '../../rule-files/load-rules.js'

/**
 * The JMX exporter config shipped for brokers (deploy/jmx-exporter/kafka-broker.yaml) is the lab's
 * (lab/kafka-exporter.yaml, the file every lab broker's agent runs with), and it carries every series
 * a shipped rule reads: each such series' MBean, as Kafka 3.9.1 registers it, passes the config's
 * object-name filter, meets one of its rules, and the sample that rule writes maps to the signal.
 */

type ExporterRule = { pattern: string; name: string; type?: string; value?: number; labels?: Record<string, string> }
type ExporterConfig = { lowercaseOutputName?: boolean; lowercaseOutputLabelNames?: boolean; includeObjectNames?: string[]; rules: ExporterRule[] }

const config = parseYaml(readFileSync(EXPORTER_CONFIG, 'utf8')) as ExporterConfig

/**
 * One attribute of an MBean the way the exporter lays it out for its rules
 * (`domain<key=value, …><>attribute: value`), for each series a rule reads. The names are Kafka's own,
 * every one present in the real 3.9.1 scrapes of test/adapters/prometheus/fixtures (checked below).
 */
const RULE_SERIES: Record<string, string> = {
  'partitions.under_replicated': 'kafka.server<type=ReplicaManager, name=UnderReplicatedPartitions><>Value: 0',
  'partitions.under_min_isr': 'kafka.server<type=ReplicaManager, name=UnderMinIsrPartitionCount><>Value: 0',
  'partitions.offline': 'kafka.controller<type=KafkaController, name=OfflinePartitionsCount><>Value: 0',
  'controller.active': 'kafka.controller<type=KafkaController, name=ActiveControllerCount><>Value: 1',
  'isr.shrink_rate': 'kafka.server<type=ReplicaManager, name=IsrShrinksPerSec><>Count: 0',
  'isr.expand_rate': 'kafka.server<type=ReplicaManager, name=IsrExpandsPerSec><>Count: 0',
  'replica.max_lag': 'kafka.server<type=ReplicaFetcherManager, name=MaxLag, clientId=Replica><>Value: 0',
  'zk.expire_rate': 'kafka.server<type=SessionExpireListener, name=ZooKeeperExpiresPerSec><>Count: 0',
  'fetch.down_conversion': 'kafka.server<type=BrokerTopicMetrics, name=FetchMessageConversionsPerSec, topic=orders><>Count: 0',
  'request_handler.idle': 'kafka.server<type=KafkaRequestHandlerPool, name=RequestHandlerAvgIdlePercent><>OneMinuteRate: 0.9',
  'network_processor.idle': 'kafka.network<type=SocketServer, name=NetworkProcessorAvgIdlePercent><>Value: 0.9',
  'request.total_time_p99': 'kafka.network<type=RequestMetrics, name=TotalTimeMs, request=Produce><>99thPercentile: 5',
  'request.queue_time_p99': 'kafka.network<type=RequestMetrics, name=RequestQueueTimeMs, request=FetchConsumer><>99thPercentile: 1',
  'request.local_time_p99': 'kafka.network<type=RequestMetrics, name=LocalTimeMs, request=FetchFollower><>99thPercentile: 1',
  'request.remote_time_p99': 'kafka.network<type=RequestMetrics, name=RemoteTimeMs, request=Produce><>99thPercentile: 1',
  'request.throttle_time_p99': 'kafka.network<type=RequestMetrics, name=ThrottleTimeMs, request=Produce><>99thPercentile: 0',
  'request.response_queue_time_p99': 'kafka.network<type=RequestMetrics, name=ResponseQueueTimeMs, request=Produce><>99thPercentile: 0',
  'request.response_send_time_p99': 'kafka.network<type=RequestMetrics, name=ResponseSendTimeMs, request=FetchConsumer><>99thPercentile: 0',
  'quota.throttle_time': 'kafka.server<type=Produce, client-id=perf-1><>throttle-time: 1063',
  'log.segments': 'kafka.log<type=Log, name=NumLogSegments, topic=orders, partition=0><>Value: 1',
  'log_dirs.offline': 'kafka.log<type=LogManager, name=OfflineLogDirectoryCount><>Value: 0',
  'broker.version': 'kafka.server<type=app-info, id=1><>version: 3.9.1',
}

/** Series the rules read that come from elsewhere than this config, and from where. */
const NOT_FROM_CONFIG: Record<string, string> = {
  'heap.after_gc': 'the agent\'s built-in JVM collectors (jvm_memory_pool_collection_used_bytes)',
  'heap.used': 'the agent\'s built-in JVM collectors',
  'heap.max': 'the agent\'s built-in JVM collectors',
  'gc.count': 'the agent\'s built-in JVM collectors',
  'gc.time': 'the agent\'s built-in JVM collectors',
  'fd.open': 'the agent\'s built-in process collector (process_open_fds)',
  'fd.max': 'the agent\'s built-in process collector (process_max_fds)',
  'mmap.buffers': 'the agent\'s built-in JVM collectors (jvm_buffer_pool_used_buffers)',
  'process.start': 'the agent\'s built-in process collector (process_start_time_seconds)',
  'disk.avail': 'node-exporter (node_filesystem_avail_bytes) or the host agent\'s statfs',
  'disk.size': 'node-exporter (node_filesystem_size_bytes) or the host agent\'s statfs',
}

/** Series the engine derives from others at evaluation time. */
const DERIVED: Record<string, string> = { [CONTROLLER_SUM_SERIES]: CONTROLLER_SUM_SOURCE, [TIME_TO_FULL_SERIES]: TIME_TO_FULL_SOURCE }

/** The exporter's own handling of names: anything outside [a-zA-Z0-9:_] becomes '_', runs of '_' collapse. */
const safeName = (s: string) => s.replace(/[^a-zA-Z0-9:_]/g, '_').replace(/__+/g, '_')

/** JMX ObjectName pattern `domain:key=value,*` against `domain<key=value, …>`. */
function included(objectNames: readonly string[] | undefined, bean: string): boolean {
  if (!objectNames?.length) return true
  const m = /^([^<]+)<([^>]*)>/.exec(bean)!
  const domain = m[1]
  const props = new Map(m[2].split(', ').map((kv) => kv.split('=') as [string, string]))
  return objectNames.some((on) => {
    const [d, keys] = on.split(':')
    if (d !== domain && !(d.endsWith('*') && domain.startsWith(d.slice(0, -1)))) return false
    const wanted = keys.split(',').filter((k) => k !== '*')
    const wildcard = keys.split(',').includes('*')
    if (!wildcard && wanted.length !== props.size) return false
    return wanted.every((kv) => {
      const [k, v] = kv.split('=')
      return props.get(k) === v
    })
  })
}

/**
 * The exporter's rule step (jmx_exporter's JmxCollector): the first rule whose pattern matches
 * somewhere in the bean's line names the sample, with `$n` replaced by the groups.
 */
function exportBean(bean: string): { name: string; labels: Record<string, string>; value: number } | undefined {
  if (!included(config.includeObjectNames, bean)) return undefined
  const value = Number(bean.slice(bean.lastIndexOf(': ') + 2))
  for (const rule of config.rules) {
    const re = new RegExp(`^.*(?:${rule.pattern}).*$`)
    const m = re.exec(bean)
    if (!m) continue
    const sub = (t: string) => t.replace(/\$(\d)/g, (_, i: string) => m[Number(i)] ?? '')
    let name = safeName(sub(rule.name))
    if (config.lowercaseOutputName) name = name.toLowerCase()
    const labels: Record<string, string> = {}
    for (const [k, v] of Object.entries(rule.labels ?? {})) {
      const key = safeName(sub(k))
      labels[config.lowercaseOutputLabelNames ? key.toLowerCase() : key] = sub(v)
    }
    return { name, labels, value: rule.value ?? value }
  }
  return undefined
}

/** The line a bean writes in the exporter's default format (no rules), as in the real default-format scrape. */
function defaultFormatProbe(bean: string): { prefix: string; labels: string[] } {
  const m = /^([^<]+)<([^>]*)><>([^:]+):/.exec(bean)!
  const props = m[2].split(', ').map((kv) => kv.split('='))
  const type = props.find(([k]) => k === 'type')![1]
  const labels = props.filter(([k]) => k !== 'type').map(([k, v]) => `${k}="${v}"`)
  return { prefix: `${safeName(m[1])}_${type}_${m[3]}{`, labels }
}

async function signalsRulesRead(): Promise<Set<string>> {
  const { rules } = await loadRules(['rules/'])
  const names = new Set<string>()
  for (const rule of rules) for (const s of [...observedSignalsOfRule(rule), ...factRefsOfRule(rule)]) names.add(DERIVED[s] ?? s)
  return names
}

describe('lab/kafka-exporter.yaml', () => {
  it('is the config shipped for brokers under deploy/', () => {
    expect(readFileSync('deploy/jmx-exporter/kafka-broker.yaml', 'utf8')).toBe(readFileSync(EXPORTER_CONFIG, 'utf8'))
    expect(EXPORTER_CONFIG.endsWith('lab/kafka-exporter.yaml')).toBe(true)
  })

  it('is what the lab\'s brokers run with: a recording scraped through it carries its series', () => {
    // lab-handler-saturation: one broker, no quota, no down-conversion, so every other series of the table.
    const scraped = new Set(
      readFileSync('test/incidents/lab-handler-saturation/signals.jsonl', 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { name: string; source: string })
        .filter((s) => s.source.startsWith('prom:'))
        .map((s) => s.name),
    )
    const expected = Object.keys(RULE_SERIES).filter((s) => s !== 'quota.throttle_time' && s !== 'fetch.down_conversion')
    expect(expected.filter((s) => !scraped.has(s))).toEqual([])
  })

  it('accounts for every scraped series a shipped rule reads', async () => {
    const scraped = new Set(METRIC_MAPPINGS.map((m) => m.signal))
    const read = [...(await signalsRulesRead())].filter((s) => scraped.has(s)).sort()
    expect(read.filter((s) => !(s in RULE_SERIES) && !(s in NOT_FROM_CONFIG))).toEqual([])
    // The new metric-only modes are among them.
    expect(read).toEqual(expect.arrayContaining(['request.throttle_time_p99', 'request.response_queue_time_p99', 'request.response_send_time_p99', 'log_dirs.offline', 'controller.active', 'disk.avail']))
  })

  it.each(Object.entries(RULE_SERIES))('turns %s\'s MBean into a sample that maps to it', (signal, bean) => {
    const sample = exportBean(bean)
    expect(sample, `no rule of the config exports ${bean}`).toBeDefined()
    const hit = mapSample({ name: sample!.name, labels: sample!.labels, value: sample!.value })
    expect(hit?.mapping.signal, `${sample!.name} ${JSON.stringify(sample!.labels)}`).toBe(signal)
  })

  it.each(Object.entries(RULE_SERIES).filter(([s]) => s !== 'quota.throttle_time' && s !== 'broker.version'))(
    '%s: the MBean is one a real Kafka 3.9.1 broker registers',
    (_signal, bean) => {
      const scrape = readFileSync('test/adapters/prometheus/fixtures/kafka-3.9.1-zk-jmx-0.20.0-default.prom', 'utf8').split('\n')
      const probe = defaultFormatProbe(bean)
      // A per-topic meter appears once its topic sees the event (no conversion happened in the capture):
      // the broker-wide meter of the same name stands for it.
      const labels = probe.labels.filter((l) => !(bean.includes('BrokerTopicMetrics') && l.startsWith('topic=')))
      expect(scrape.some((l) => l.startsWith(probe.prefix) && labels.every((lab) => l.includes(lab)))).toBe(true)
    },
  )

  it('exports the quota throttle time and the version the way the real captures show them', () => {
    const quota = readFileSync('test/adapters/prometheus/fixtures/kafka-3.9.1-zk-jmx-1.0.1-lab-quota.prom', 'utf8')
    expect(quota).toMatch(/^kafka_server_produce_throttle_time\{client_id="perf-producer"/m)
    const version = readFileSync('test/adapters/prometheus/fixtures/kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom', 'utf8')
    expect(version).toMatch(/^kafka_server_app\{[^}]*version="3\.9\.1"/m)
  })
})
