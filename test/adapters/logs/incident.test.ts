import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptySourceStats, readSignalSources } from '../../../adapters/incident.js'
import { GENERIC_SIGNALS } from '../../../adapters/logs/generic.js'
import type { Signal } from '../../../signals/signal.js'

const FIX = path.join(import.meta.dirname, 'fixtures')

async function readAll(paths: string[], cluster?: string) {
  const stats = emptySourceStats()
  const signals: Signal[] = []
  for await (const batch of readSignalSources(paths, { cluster, stats })) signals.push(...batch)
  return { signals, stats }
}

/** The specific signals alone; the generic error signal of the same records is asserted apart. */
const specificOnly = (signals: Signal[]) => signals.filter((s) => !(GENERIC_SIGNALS as readonly string[]).includes(s.name))

const names = (signals: Signal[]) => signals.map((s) => `${s.name}${s.broker ? `@${s.broker}` : ''}`)

describe('adapters/incident', () => {
  let tmp: string
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-incident-'))
  })
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true })
  })

  it('seed 000: ZooKeeper timeout, the 3.3 s safepoint sync, throughput collapse and NotLeader on the client', async () => {
    const { signals, stats } = await readAll([path.join(FIX, 'seed-000')])
    expect(new Set(signals.map((s) => s.cluster))).toEqual(new Set(['seed-000']))
    const zk = signals.find((s) => s.name === 'zk.session_timeout')
    expect(zk).toMatchObject({ broker: '1', value: 7768, at: Date.parse('2018-08-06T01:28:02.562-04:00'), source: 'log:broker-1/server.log:19' })
    const sync = signals.filter((s) => s.name === 'safepoint.sync').map((s) => s.value)
    expect(sync).toEqual([3301, 3301.8193])
    const tput = signals.filter((s) => s.name === 'producer.throughput')
    expect(tput.map((s) => s.value)).toEqual([119901.2, 120052.8, 119916.8, 120152, 119904.8, 21408.9])
    expect(tput.every((s) => s.broker === undefined)).toBe(true)
    expect(signals.filter((s) => s.name === 'producer.max_latency').pop()?.value).toBe(10743)
    expect(signals.filter((s) => s.name === 'client.not_leader')).toHaveLength(5)
    expect(stats.files.map((f) => [path.basename(f.file), f.format])).toEqual([
      ['server.log', 'kafka'],
      ['gc.log', 'gc'],
      ['producer.log', 'client'],
    ])
    expect(Object.values(stats.logs.unparsed).every((n) => n === 0)).toBe(true)
  })

  it('seed 001: log dir failure, Map failed and the OutOfMemoryError from the Caused by line', async () => {
    const { signals: all } = await readAll([path.join(FIX, 'seed-001')])
    const signals = specificOnly(all)
    expect(signals.map((s) => [s.name, s.labels])).toEqual([
      ['log.dir_failure', { dir: '/broder/log', topic: 'LoadTestingTopic' }],
      ['log.map_failed', { dir: '/broder/log', topic: 'LoadTestingTopic' }],
      ['jvm.oom', { kind: 'map' }],
    ])
    // The same record as a generic error: its stack's first exception, the root cause, and the
    // specific signals it also yielded, so a rule that explains those explains it too.
    const generic = all.filter((s) => s.name === 'log.error')
    expect(generic).toHaveLength(1)
    expect(generic[0].labels).toMatchObject({
      logger: 'org.apache.kafka.storage.internals.log.LogDirFailureChannel',
      exception: 'java.io.IOException',
      root_cause: 'java.lang.OutOfMemoryError: Map failed',
      topic: 'LoadTestingTopic',
      path: '/broder/log',
    })
    expect(generic[0].labels?.signals?.split(',')).toEqual(expect.arrayContaining(['jvm.oom', 'log.dir_failure', 'log.map_failed']))
    expect(generic[0].text).toBe(signals[2].text)
    const oom = signals[2]
    expect(oom.text?.split('\n')).toEqual([
      '[2024-01-10 09:00:00,000] ERROR Error while appending records to LoadTestingTopic in dir /broder/log (org.apache.kafka.storage.internals.log.LogDirFailureChannel)',
      'Caused by: java.lang.OutOfMemoryError: Map failed',
    ])
    expect(oom.source).toBe('log:broker-1/server.log:1')
  })

  it('seed 002: heap OOM through downConvert, then the ISR shrinks, on the broker the lines name', async () => {
    const { signals: all } = await readAll([path.join(FIX, 'seed-002')])
    const signals = specificOnly(all)
    expect(names(signals)).toEqual([
      'jvm.oom@1001',
      'fetch.down_conversion_error@1001',
      'isr.shrink@1001',
      'isr.shrink@1001',
      'isr.shrink@1001',
      'isr.shrink@1001',
      'group.stable@1001',
    ])
    expect(signals[0].labels).toEqual({ kind: 'heap' })
    expect(signals[1].labels).toEqual({ topic: 'voltetraffica.data' })
    expect(signals[3].labels).toEqual({ topic: 's1mme.data', partition: '72', from: '1001,1002', to: '1001' })
    const generic = all.filter((s) => s.name === 'log.error')
    expect(generic.map((s) => s.broker)).toEqual(['1001'])
    expect(generic[0].labels).toMatchObject({ logger: 'kafka.server.KafkaApis', exception: 'java.lang.OutOfMemoryError' })
    expect(generic[0].labels?.signals?.split(',')).toEqual(expect.arrayContaining(['fetch.down_conversion_error', 'jvm.oom']))
  })

  it('seed 003: one group rebalancing every 30 s on its coordinator', async () => {
    const { signals } = await readAll([path.join(FIX, 'seed-003')])
    const reb = signals.filter((s) => s.name === 'group.rebalance')
    expect(reb.map((s) => s.labels?.generation)).toEqual(['40', '41', '42', '43'])
    expect(reb.every((s) => s.broker === '3' && s.labels?.group === 'churner')).toBe(true)
  })

  it('reads single log files and JSONL files, and counts refused JSONL lines', async () => {
    const jsonl = path.join(tmp, 'signals.jsonl')
    await writeFile(
      jsonl,
      '{"name":"config.segment_ms","at":1704877200000,"cluster":"seed-001","broker":"1","value":100,"labels":{"topic":"LoadTestingTopic"}}\n{"name":"no.such","at":1,"cluster":"x"}\nnot json\n',
    )
    const { signals, stats } = await readAll([path.join(FIX, 'seed-002', 'broker-1001', 'server.log'), jsonl], 'prod')
    expect(signals[0].cluster).toBe('prod')
    expect(signals.at(-1)).toMatchObject({ name: 'config.segment_ms', value: 100 })
    expect(stats.jsonlRejects.map((r) => [r.line, r.reason])).toEqual([
      [2, 'unknown signal'],
      [3, 'invalid JSON'],
    ])
  })

  it('walks a plain directory in name order and reports a missing file as unreadable', async () => {
    const { signals, stats } = await readAll([path.join(FIX, 'seed-000', 'broker-1'), path.join(tmp, 'missing.log')])
    expect(signals.map((s) => s.source.split(':')[1])).toEqual(['gc.log', 'gc.log', 'gc.log', 'server.log'])
    expect(stats.logs.unparsed.unreadable).toBe(1)
  })

  it('refuses an incident.yaml with a wrong field, naming it', async () => {
    const dir = path.join(tmp, 'bad')
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }))
    await writeFile(path.join(dir, 'incident.yaml'), 'cluster: x\nsources:\n  - { path: a.log, format: syslog }\n')
    await expect(readAll([dir])).rejects.toThrow(/sources\[0\]\.format/)
  })
})
