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
