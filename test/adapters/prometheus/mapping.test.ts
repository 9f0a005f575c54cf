import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseExposition } from '../../../adapters/prometheus/exposition.js'
import { mapSample, METRIC_MAPPINGS, normaliseSample } from '../../../adapters/prometheus/mapping.js'
import { SampleConverter } from '../../../adapters/prometheus/to-signals.js'
import { lookupSignal } from '../../../signals/catalogue.js'
import { encodeVersion } from '../../../signals/units.js'
import type { Signal } from '../../../signals/signal.js'
import { FIXTURES } from './jmx-jvm.js'

const CAPTURES = ['jmx-0.20.0-default.prom', 'jmx-0.20.0-kafka-lowercase-naming.prom', 'jmx-1.0.1-default.prom', 'jmx-1.0.1-kafka-lowercase-naming.prom']

function convert(file: string): Signal[] {
  const { samples } = parseExposition(readFileSync(path.join(FIXTURES, file), 'utf8'))
  const c = new SampleConverter({ cluster: 'lab', broker: '1', source: 'prom:test' })
  c.begin(1_000_000)
  const out = samples.flatMap((s) => c.convert(s))
  c.end()
  return out
}

const one = (signals: Signal[], name: string) => {
  const hits = signals.filter((s) => s.name === name)
  expect(hits, name).toHaveLength(1)
  return hits[0]
}

describe('adapters/prometheus/mapping', () => {
  it('maps only to catalogue signals', () => {
    for (const m of METRIC_MAPPINGS) expect(lookupSignal(m.signal), m.signal).toBeDefined()
  })

  // fixtures/KafkaMBeans.java sets these MBean values; every naming must yield the same signals.
  it.each(CAPTURES)('maps every Kafka gauge of %s to the same signal values', (file) => {
    const signals = convert(file)
    expect(one(signals, 'partitions.under_replicated').value).toBe(3)
    expect(one(signals, 'partitions.under_min_isr').value).toBe(1)
    expect(one(signals, 'partitions.offline').value).toBe(2)
    expect(one(signals, 'network_processor.idle').value).toBe(0.5)
    expect(one(signals, 'request_handler.idle').value).toBe(0.25)
    expect(one(signals, 'log.segments')).toMatchObject({ value: 42, labels: { topic: 'orders', partition: '0' } })
    expect(one(signals, 'heap.max').value).toBe(64 * 1024 * 1024)
    expect(one(signals, 'heap.used').value).toBeGreaterThan(0)
    expect(one(signals, 'heap.after_gc').labels).toEqual({ kind: 'old' })
    expect(one(signals, 'fd.open').value).toBeGreaterThan(3)
    expect(one(signals, 'fd.max').value).toBeGreaterThan(one(signals, 'fd.open').value!)
    expect(one(signals, 'mmap.buffers').value).toBe(0)
    const start = one(signals, 'process.start').value!
    expect(Math.abs(start - Date.parse('2026-01-01'))).toBeLessThan(5 * 365 * 86_400_000)
    expect(signals.every((s) => s.cluster === 'lab' && s.broker === '1' && s.at === 1_000_000)).toBe(true)
  })

  it.each(CAPTURES)('emits no rate from the first scrape of %s (a counter needs two points)', (file) => {
    const names = new Set(convert(file).map((s) => s.name))
    for (const counter of ['isr.shrink_rate', 'zk.expire_rate', 'fetch.down_conversion', 'gc.count', 'gc.time']) {
      expect(names.has(counter), counter).toBe(false)
    }
  })

  it.each([
    // [exporter sample, normalised key] — the names each exporter version and config writes for one MBean
    ['kafka_server_ReplicaManager_Value{name="UnderReplicatedPartitions",}', 'kafka_server_replicamanager_underreplicatedpartitions_value'],
    ['kafka_server_ReplicaManager_Count{name="IsrShrinksPerSec"}', 'kafka_server_replicamanager_isrshrinkspersec_count'],
    ['kafka_server_replicamanager_isrshrinks_total', 'kafka_server_replicamanager_isrshrinks_total'],
    ['kafka_server_ReplicaManager_UnderReplicatedPartitions_Value', 'kafka_server_replicamanager_underreplicatedpartitions_value'],
  ])('normalises %s', (line, key) => {
    const { samples } = parseExposition(`${line} 1`)
    expect(normaliseSample(samples[0]).key).toBe(key)
  })

  it.each([
    ['kafka_server_ReplicaManager_UnderReplicatedPartitions_Value 4', 'partitions.under_replicated'],
    ['kafka_server_replicamanager_isrshrinks_total 4', 'isr.shrink_rate'],
    ['kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count 0', undefined],
    ['kafka_server_KafkaRequestHandlerPool_MeanRate{name="RequestHandlerAvgIdlePercent"} 0.2', undefined],
    ['jvm_memory_pool_collection_used_bytes{pool="G1 Eden Space"} 0', undefined],
    ['jvm_memory_pool_collection_used_bytes{pool="Tenured Gen"} 10', 'heap.after_gc'],
    ['jvm_buffer_pool_used_buffers{pool="direct"} 2', undefined],
    ['kafka_server_brokertopicmetrics_fetchmessageconversions_total 9', undefined],
  ])('maps %s to %s', (line, signal) => {
    const { samples } = parseExposition(line)
    expect(mapSample(samples[0])?.mapping.signal).toBe(signal)
  })
})

describe('adapters/prometheus/mapping', () => {
  // Real Kafka 3.9.1 brokers (lab, ZooKeeper mode, -Xmx320m, a topic "orders" of two partitions with
  // traffic), scraped through each exporter generation and config; capture-broker.ts regenerates them
  // (kafka-3.9.1-zk-jmx-1.0.1-lab.prom is the lab's own lab/kafka-exporter.yaml).
  it.each<[string, string | undefined]>([
    ['kafka-3.9.1-zk-jmx-0.20.0-default.prom', undefined],
    ['kafka-3.9.1-zk-jmx-0.20.0-kafka-lowercase-naming.prom', '3.9.1'],
    ['kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom', '3.9.1'],
    ['kafka-3.9.1-zk-jmx-1.0.1-lab.prom', undefined],
  ])('maps the real broker capture %s to the same signals', (file, version) => {
    const signals = convert(file)
    expect(one(signals, 'partitions.under_replicated').value).toBe(0)
    expect(one(signals, 'partitions.under_min_isr').value).toBe(0)
    expect(one(signals, 'partitions.offline').value).toBe(0)
    expect(one(signals, 'heap.max').value).toBe(320 * 1024 * 1024)
    expect(one(signals, 'heap.used').value).toBeLessThan(320 * 1024 * 1024)
    expect(one(signals, 'fd.open').value).toBeGreaterThan(100)
    for (const idle of ['request_handler.idle', 'network_processor.idle']) {
      expect(one(signals, idle).value).toBeGreaterThan(0)
      expect(one(signals, idle).value).toBeLessThanOrEqual(1)
    }
    const orders = signals.filter((s) => s.name === 'log.segments' && s.labels?.topic === 'orders')
    expect(orders.map((s) => [s.labels!.partition, s.value]).sort()).toEqual([
      ['0', 1],
      ['1', 1],
    ])
    const v = signals.filter((s) => s.name === 'broker.version')
    expect(v.map((s) => s.value)).toEqual(version ? [encodeVersion(version)] : [])
  })
})

// Real scrapes of a Kafka 3.9.1 broker (capture-broker.ts, capture-quota.ts): the default format, the
// lower-case naming (which leaves histograms to the default format) and the lab's own exporter config.
const BROKER_CAPTURES = ['kafka-3.9.1-zk-jmx-0.20.0-default.prom', 'kafka-3.9.1-zk-jmx-0.20.0-kafka-lowercase-naming.prom', 'kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom', 'kafka-3.9.1-zk-jmx-1.0.1-lab-quota.prom']
const LATENCY_PARTS = { 'request.total_time_p99': 'TotalTimeMs', 'request.queue_time_p99': 'RequestQueueTimeMs', 'request.local_time_p99': 'LocalTimeMs', 'request.remote_time_p99': 'RemoteTimeMs' }

/** The capture's own value of one RequestMetrics histogram's 99th percentile. */
function p99InCapture(text: string, histogram: string, request: string): number {
  const histogramForm = (l: string) => /^kafka_network_requestmetrics_99thpercentile\{/i.test(l) && l.includes(`name="${histogram}"`)
  const labForm = (l: string) => l.startsWith(`kafka_network_requestmetrics_${histogram.toLowerCase()}_99thpercentile{`)
  const line = text.split('\n').find((l) => (histogramForm(l) || labForm(l)) && l.includes(`request="${request}"`))
  expect(line, `${histogram} ${request}`).toBeDefined()
  return Number(line!.slice(line!.lastIndexOf(' ') + 1))
}

describe('adapters/prometheus/mapping of latency, controller and replication series', () => {
  it.each(BROKER_CAPTURES)('maps the p99 of Produce, FetchConsumer and FetchFollower and each part of it in %s', (file) => {
    const text = readFileSync(path.join(FIXTURES, file), 'utf8')
    const signals = convert(file)
    for (const [signal, histogram] of Object.entries(LATENCY_PARTS)) {
      const hits = signals.filter((s) => s.name === signal)
      expect(hits.map((s) => s.labels!.request).sort(), signal).toEqual(['FetchConsumer', 'FetchFollower', 'Produce'])
      for (const s of hits) expect(s.value, `${signal} ${s.labels!.request}`).toBe(p99InCapture(text, histogram, s.labels!.request))
    }
    // The produce requests of the capture were answered, so its p99 is a real time, not an empty histogram.
    expect(one(signals.filter((s) => s.labels?.request === 'Produce'), 'request.total_time_p99').value).toBeGreaterThan(0)
  })

  it.each([...BROKER_CAPTURES, 'kafka-3.9.1-zk-jmx-1.0.1-lab.prom'])('maps ActiveControllerCount and the replica fetchers\' MaxLag of %s', (file) => {
    const signals = convert(file)
    // A one-broker cluster: the broker is the controller.
    expect(one(signals, 'controller.active')).toMatchObject({ value: 1 })
    expect(one(signals, 'replica.max_lag')).toMatchObject({ value: 0 })
  })

  it('rates IsrExpandsPerSec between two scrapes of the lab config', () => {
    const text = readFileSync(path.join(FIXTURES, 'kafka-3.9.1-zk-jmx-1.0.1-lab.prom'), 'utf8')
    const line = text.split('\n').find((l) => l.startsWith('kafka_server_replicamanager_isrexpandspersec_total '))!
    const c = new SampleConverter({ cluster: 'lab', broker: '1', source: 'prom:test' })
    const scrape = (at: number, body: string) => {
      c.begin(at)
      const out = parseExposition(body).samples.flatMap((s) => c.convert(s))
      c.end()
      return out
    }
    expect(scrape(0, line + '\n')).toEqual([])
    const count = Number(line.split(' ')[1])
    const out = scrape(10_000, `kafka_server_replicamanager_isrexpandspersec_total ${count + 4}\n`)
    expect(out).toMatchObject([{ name: 'isr.expand_rate', value: 0.4 }])
  })

  // capture-quota.ts: the lab's exporter config on a broker with a produce quota on client-id
  // perf-producer and a fetch quota on client-id analytics, both exceeded. Kafka leaves out a tag the
  // quota is not keyed by (JmxReporter skips empty tags), so these have no user; the request-time
  // quota's throttle time is NaN until a request is throttled and yields nothing.
  it('maps the quota throttle times of a real throttled broker, per quota and client-id', () => {
    const signals = convert('kafka-3.9.1-zk-jmx-1.0.1-lab-quota.prom').filter((s) => s.name === 'quota.throttle_time')
    expect(signals.map((s) => [s.labels, s.value])).toEqual([
      [{ quota: 'fetch', client: 'analytics', entity: 'client-id analytics' }, 2962.5],
      [{ quota: 'produce', client: 'perf-producer', entity: 'client-id perf-producer' }, 1063],
    ])
  })

  it('names a quota keyed by user and client-id after both', () => {
    const c = new SampleConverter({ cluster: 'lab', broker: '1', source: 'prom:test' })
    c.begin(5)
    const out = parseExposition('kafka_server_Fetch_throttle_time{user="alice",client_id="analytics",} 87.0\n').samples.flatMap((s) => c.convert(s))
    expect(out).toMatchObject([{ name: 'quota.throttle_time', value: 87, labels: { quota: 'fetch', client: 'analytics', user: 'alice', entity: 'user alice, client-id analytics' } }])
  })

  it('drops request latencies the rules do not read, so a broker does not yield one series per API', () => {
    const out = convert('kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom').filter((s) => s.name.startsWith('request.'))
    expect(new Set(out.map((s) => s.labels!.request))).toEqual(new Set(['Produce', 'FetchConsumer', 'FetchFollower']))
  })
})
