import { encodeVersion } from '../../signals/units.js'
import type { Sample } from './exposition.js'

/**
 * Which exporter metrics become which catalogue signals. The JMX exporter names one MBean attribute in
 * several ways depending on its version and config:
 *  - default format (no rule names it), 0.x and 1.x:  kafka_server_ReplicaManager_Value{name="UnderReplicatedPartitions"}
 *  - the lower-case naming most Kafka configs write (test/adapters/prometheus/fixtures/kafka-lowercase-naming.yml):
 *    kafka_server_replicamanager_underreplicatedpartitions, meters' Count as kafka_server_replicamanager_isrshrinks_total,
 *    *Percent gauges and meters as …_percent (many configs take the meter's MeanRate there, ours its OneMinuteRate)
 *  - configs that keep the attribute: kafka_server_ReplicaManager_UnderReplicatedPartitions_Value, …_oneminuterate
 *  - 0.x writes a Count rule's sample as `…_count` under a `…_count_total` family; 1.x writes `…_count_total`.
 * Every sample is first reduced to one lower-case key (the MBean `name` label folded into the metric name),
 * then matched against one table, so each naming needs no rule of its own.
 */

/** How a sample's value becomes a signal value. */
export type MappingKind =
  /** The value as is (times `scale`). */
  | 'gauge'
  /** A cumulative count: the signal is its per-second rate between scrapes, resets handled. */
  | 'counter'
  /** A fact: emitted when first seen and whenever it changes. */
  | 'fact'

/** One row of the mapping table. */
export type MetricMapping = {
  signal: string
  kind: MappingKind
  /** Matched against the normalised key (see normaliseSample). */
  pattern: RegExp
  /** Multiplier into the catalogue's base unit (seconds → ms, percent → ratio). */
  scale?: number
  /** The signal value from the sample, where it is not the sample value (a version held in a label). */
  value?: (labels: Record<string, string>, sampleValue: number) => number | undefined
  /** Sample labels → signal labels; returning undefined drops the sample (e.g. a non-heap pool). */
  labels?: (labels: Record<string, string>) => Record<string, string> | undefined
  /** Human summary for the README table. */
  from: string
}

const V = '(?:_value)?'
const COUNT = '(?:_count|_total|_count_total)'

const none = () => ({})
const topicOnly = (l: Record<string, string>) => (l.topic ? { topic: l.topic } : undefined)
const topicPartition = (l: Record<string, string>) =>
  l.topic !== undefined && l.partition !== undefined ? { topic: l.topic, partition: l.partition } : undefined
const heapArea = (l: Record<string, string>) => (l.area === 'heap' ? {} : undefined)
/** Request kinds whose latency the rules read: the client's produce, the consumer's and the follower's fetch. */
const LATENCY_REQUESTS = new Set(['Produce', 'FetchConsumer', 'FetchFollower'])
const latencyRequest = (l: Record<string, string>) => (l.request !== undefined && LATENCY_REQUESTS.has(l.request) ? { request: l.request } : undefined)
/** Quota metric tags: an empty or absent tag (a quota set per client-id only, or per user only) is left out. */
const quotaLabels = (quota: string) => (l: Record<string, string>) => {
  const out: Record<string, string> = { quota }
  const client = l.client_id ?? l['client-id'] ?? l.clientid
  if (client) out.client = client
  if (l.user) out.user = l.user
  // One label naming the quota's entity however it is keyed, for a cause to print.
  out.entity = [l.user ? `user ${l.user}` : '', client ? `client-id ${client}` : ''].filter(Boolean).join(', ') || 'the default entity'
  return out
}
/**
 * node-exporter file systems that cannot hold a log dir (kernel and read-only images); a tmpfs can (a
 * memory-backed emptyDir, the lab's small volumes). A mount point is the path the time-to-full names.
 */
const PSEUDO_FILESYSTEMS = new Set(['devtmpfs', 'squashfs', 'iso9660', 'autofs', 'nsfs', 'proc', 'sysfs', 'fuse.lxcfs', 'rootfs'])
const fileSystem = (l: Record<string, string>) =>
  l.mountpoint && !PSEUDO_FILESYSTEMS.has(l.fstype ?? '') ? { path: l.mountpoint, ...(l.device ? { device: l.device } : {}) } : undefined
const replicaFetcher = (l: Record<string, string>) => (l.clientid === undefined || l.clientid === 'Replica' ? {} : undefined)

/** The table: first matching row wins. */
export const METRIC_MAPPINGS: readonly MetricMapping[] = [
  {
    signal: 'partitions.under_replicated',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_server_replicamanager_underreplicatedpartitions${V}$`),
    labels: none,
    from: 'kafka.server ReplicaManager UnderReplicatedPartitions',
  },
  {
    signal: 'partitions.under_min_isr',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_server_replicamanager_underminisrpartitioncount${V}$`),
    labels: none,
    from: 'kafka.server ReplicaManager UnderMinIsrPartitionCount',
  },
  {
    signal: 'partitions.offline',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_controller_kafkacontroller_offlinepartitionscount${V}$`),
    labels: none,
    from: 'kafka.controller KafkaController OfflinePartitionsCount (non-zero on the active controller)',
  },
  {
    signal: 'isr.shrink_rate',
    kind: 'counter',
    pattern: new RegExp(`^kafka_server_replicamanager_isrshrinks(?:persec)?${COUNT}$`),
    labels: none,
    from: 'kafka.server ReplicaManager IsrShrinksPerSec Count, as a rate',
  },
  {
    signal: 'isr.expand_rate',
    kind: 'counter',
    pattern: new RegExp(`^kafka_server_replicamanager_isrexpands(?:persec)?${COUNT}$`),
    labels: none,
    from: 'kafka.server ReplicaManager IsrExpandsPerSec Count, as a rate',
  },
  {
    signal: 'replica.max_lag',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_server_replicafetchermanager_maxlag${V}$`),
    labels: replicaFetcher,
    from: 'kafka.server ReplicaFetcherManager MaxLag{clientId="Replica"}',
  },
  {
    signal: 'controller.active',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_controller_kafkacontroller_activecontrollercount${V}$`),
    labels: none,
    from: 'kafka.controller KafkaController ActiveControllerCount (1 on the active controller)',
  },
  {
    signal: 'request.total_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_totaltimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics TotalTimeMs{request=Produce|FetchConsumer|FetchFollower} 99thPercentile',
  },
  {
    signal: 'request.queue_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_requestqueuetimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics RequestQueueTimeMs{request=…} 99thPercentile',
  },
  {
    signal: 'request.local_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_localtimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics LocalTimeMs{request=…} 99thPercentile',
  },
  {
    signal: 'request.remote_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_remotetimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics RemoteTimeMs{request=…} 99thPercentile',
  },
  {
    signal: 'request.throttle_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_throttletimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics ThrottleTimeMs{request=…} 99thPercentile',
  },
  {
    signal: 'request.response_queue_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_responsequeuetimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics ResponseQueueTimeMs{request=…} 99thPercentile',
  },
  {
    signal: 'request.response_send_time_p99',
    kind: 'gauge',
    pattern: /^kafka_network_requestmetrics_responsesendtimems_99thpercentile$/,
    labels: latencyRequest,
    from: 'kafka.network RequestMetrics ResponseSendTimeMs{request=…} 99thPercentile',
  },
  {
    signal: 'log_dirs.offline',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_log_logmanager_offlinelogdirectorycount${V}$`),
    labels: none,
    from: 'kafka.log LogManager OfflineLogDirectoryCount',
  },
  {
    signal: 'disk.avail',
    kind: 'gauge',
    pattern: /^node_filesystem_avail(?:_bytes)?$/,
    labels: fileSystem,
    from: 'node-exporter node_filesystem_avail_bytes{mountpoint,device} (node_filesystem_avail before 0.16), kernel and read-only image file systems left out',
  },
  {
    signal: 'disk.size',
    kind: 'gauge',
    pattern: /^node_filesystem_size(?:_bytes)?$/,
    labels: fileSystem,
    from: 'node-exporter node_filesystem_size_bytes{mountpoint,device} (node_filesystem_size before 0.16)',
  },
  {
    signal: 'quota.throttle_time',
    kind: 'gauge',
    pattern: /^kafka_server_produce_throttle_time$/,
    labels: quotaLabels('produce'),
    from: 'kafka.server type=Produce,user=…,client-id=… throttle-time',
  },
  {
    signal: 'quota.throttle_time',
    kind: 'gauge',
    pattern: /^kafka_server_fetch_throttle_time$/,
    labels: quotaLabels('fetch'),
    from: 'kafka.server type=Fetch,user=…,client-id=… throttle-time',
  },
  {
    signal: 'quota.throttle_time',
    kind: 'gauge',
    pattern: /^kafka_server_request_throttle_time$/,
    labels: quotaLabels('request'),
    from: 'kafka.server type=Request,user=…,client-id=… throttle-time (request-time quota)',
  },
  {
    signal: 'zk.expire_rate',
    kind: 'counter',
    pattern: new RegExp(`^kafka_server_sessionexpirelistener_zookeeperexpires(?:persec)?${COUNT}$`),
    labels: none,
    from: 'kafka.server SessionExpireListener ZooKeeperExpiresPerSec Count, as a rate',
  },
  {
    signal: 'fetch.down_conversion',
    kind: 'counter',
    pattern: new RegExp(`^kafka_server_brokertopicmetrics_fetchmessageconversions(?:persec)?${COUNT}$`),
    labels: topicOnly,
    from: 'kafka.server BrokerTopicMetrics FetchMessageConversionsPerSec{topic} Count, as a rate',
  },
  {
    signal: 'request_handler.idle',
    kind: 'gauge',
    pattern: /^kafka_server_kafkarequesthandlerpool_requesthandleravgidle(?:percent)?_(?:percent|oneminuterate)$/,
    labels: none,
    from: 'kafka.server KafkaRequestHandlerPool RequestHandlerAvgIdlePercent OneMinuteRate (or whichever rate a config names …_percent)',
  },
  {
    signal: 'network_processor.idle',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_network_socketserver_networkprocessoravgidle(?:percent|_percent)${V}$`),
    labels: none,
    from: 'kafka.network SocketServer NetworkProcessorAvgIdlePercent',
  },
  {
    signal: 'log.segments',
    kind: 'gauge',
    pattern: new RegExp(`^kafka_log_log_numlogsegments${V}$`),
    labels: topicPartition,
    from: 'kafka.log Log NumLogSegments{topic,partition}',
  },
  {
    signal: 'heap.after_gc',
    kind: 'gauge',
    pattern: /^jvm_memory_pool_collection_used_bytes$/,
    labels: (l) => (/old gen|tenured/i.test(l.pool ?? '') ? { kind: 'old' } : undefined),
    from: 'jvm_memory_pool_collection_used_bytes{pool="… Old Gen"|"Tenured Gen"}',
  },
  {
    signal: 'heap.used',
    kind: 'gauge',
    pattern: /^jvm_memory_(?:bytes_used|used_bytes)$/,
    labels: heapArea,
    from: 'jvm_memory_bytes_used (0.x) / jvm_memory_used_bytes (1.x) {area="heap"}',
  },
  {
    signal: 'heap.max',
    kind: 'gauge',
    pattern: /^jvm_memory_(?:bytes_max|max_bytes)$/,
    labels: heapArea,
    from: 'jvm_memory_bytes_max (0.x) / jvm_memory_max_bytes (1.x) {area="heap"}',
  },
  {
    signal: 'gc.count',
    kind: 'counter',
    pattern: /^jvm_gc_collection_seconds_count$/,
    labels: (l) => ({ collector: l.gc ?? '' }),
    from: 'jvm_gc_collection_seconds_count{gc}, as a rate',
  },
  {
    signal: 'gc.time',
    kind: 'counter',
    pattern: /^jvm_gc_collection_seconds_sum$/,
    labels: (l) => ({ collector: l.gc ?? '' }),
    from: 'jvm_gc_collection_seconds_sum{gc}, as seconds per second (a ratio)',
  },
  { signal: 'fd.open', kind: 'gauge', pattern: /^process_open_fds$/, labels: none, from: 'process_open_fds' },
  { signal: 'fd.max', kind: 'gauge', pattern: /^process_max_fds$/, labels: none, from: 'process_max_fds' },
  {
    signal: 'mmap.buffers',
    kind: 'gauge',
    pattern: /^jvm_buffer_pool_used_buffers$/,
    labels: (l) => (l.pool === 'mapped' ? {} : undefined),
    from: 'jvm_buffer_pool_used_buffers{pool="mapped"}',
  },
  {
    // Needs a rule exporting the app-info Version string as a label (the exporter exports no string
    // attribute by itself; see fixtures/kafka-lowercase-naming-app-info.yml). client_java 1.x drops
    // the `_info` suffix of the name.
    signal: 'broker.version',
    kind: 'fact',
    pattern: /^kafka_server_app(?:_info)?$/,
    value: (l) => (l.version ? encodeVersion(l.version) : undefined),
    labels: (l) => (l.version ? {} : undefined),
    from: 'kafka_server_app_info{version} (0.x) / kafka_server_app{version} (1.x), from a rule on kafka.server:type=app-info Version',
  },
  {
    signal: 'process.start',
    kind: 'fact',
    pattern: /^process_start_time_seconds$/,
    scale: 1000,
    labels: none,
    from: 'process_start_time_seconds (a change is a restart: process.restart)',
  },
]

/** Attributes the default format appends after the MBean type. */
const DEFAULT_FORMAT_ATTR = /^(kafka_[a-z0-9]+(?:_[a-z0-9]+)*?_[a-z0-9]+)_(value|count|meanrate|oneminuterate|fiveminuterate|fifteenminuterate|\d+thpercentile)$/

/**
 * Reduces a sample to the lower-case key the table matches: the default format's
 * `kafka_server_ReplicaManager_Value{name="UnderReplicatedPartitions"}` becomes
 * `kafka_server_replicamanager_underreplicatedpartitions_value` (and loses its `name` label), a
 * histogram's `kafka_network_requestmetrics_99thpercentile{name="TotalTimeMs"}` (the lower-case naming
 * leaves histograms to the default format) `kafka_network_requestmetrics_totaltimems_99thpercentile`;
 * label names are lower-cased too, as `lowercaseOutputLabelNames` would.
 */
export function normaliseSample(sample: Sample): { key: string; labels: Record<string, string> } {
  const labels: Record<string, string> = {}
  for (const [k, v] of Object.entries(sample.labels)) labels[k.toLowerCase()] = v
  let key = sample.name.toLowerCase()
  const mbeanName = labels.name
  if (mbeanName !== undefined && key.startsWith('kafka_')) {
    const m = DEFAULT_FORMAT_ATTR.exec(key)
    if (m) {
      key = `${m[1]}_${mbeanName.toLowerCase()}_${m[2]}`
      delete labels.name
    }
  }
  return { key, labels }
}

/** Finds the row for a sample, with the signal labels it yields; undefined when nothing maps it. */
export function mapSample(sample: Sample): { mapping: MetricMapping; labels: Record<string, string> } | undefined {
  const { key, labels } = normaliseSample(sample)
  for (const mapping of METRIC_MAPPINGS) {
    if (!mapping.pattern.test(key)) continue
    const out = mapping.labels ? mapping.labels(labels) : {}
    if (!out) return undefined
    return { mapping, labels: out }
  }
  return undefined
}
