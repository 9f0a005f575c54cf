import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readLogFile } from '../../../adapters/logs/read-file.js'
import { parse } from './helpers.js'

// Real lines (seed 000 ZooKeeper timeout, seed 002 ISR shrink) damaged the ways files really get damaged.
const ZK =
  '[2018-08-06 01:28:02,562] WARN Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)'
const INFO = '[2018-08-06 01:27:54,793] INFO ROVER: start of loop. (org.apache.zookeeper.ClientCnxn)'

describe('adapters/logs/bad-input', () => {
  it('counts a line with invalid UTF-8 and still reads the lines around it', () => {
    const bad = Buffer.concat([Buffer.from(`${INFO}\n`), Buffer.from([0x5b, 0xff, 0xfe, 0x20, 0xc3]), Buffer.from(' WARN Client session timed out, have not heard from server in 1ms for sessionid 0x1 (org.apache.zookeeper.ClientCnxn)\n'), Buffer.from(`${ZK}\n`)])
    const r = parse(bad.toString('utf8'))
    expect(r.signals.map((s) => s.value)).toEqual([7768])
    expect(r.stats.unparsed['invalid-utf8']).toBe(1)
    expect(r.stats.lines).toBe(3)
  })

  it('reads past a 1 MB line, counting it, without losing the next record', () => {
    const huge = `[2018-08-06 01:28:00,000] INFO ${'x'.repeat(1024 * 1024)} (kafka.server.KafkaApis)`
    const r = parse(`${INFO}\n${huge}\n${ZK}\n`)
    expect(r.signals.map((s) => s.name)).toEqual(['zk.session_timeout'])
    expect(r.stats.unparsed['line-too-long']).toBe(1)
  })

  it('drops a 65 MiB run of bytes with no newline from a file, counting it, and reads on', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-bad-'))
    try {
      const file = path.join(dir, 'server.log')
      await writeFile(file, Buffer.concat([Buffer.from(`${INFO}\n`), Buffer.alloc(65 * 1024 * 1024, 0x41), Buffer.from(`\n${ZK}\n`)]))
      const r = readLogFile({ path: 'server.log', cluster: 'c1', format: 'kafka' }, file)
      const got = []
      for await (const b of r.batches) got.push(...b)
      expect(got.map((s) => [s.name, s.value])).toEqual([['zk.session_timeout', 7768]])
      expect(r.stats.unparsed['line-too-long']).toBe(1)
      // the dropped bytes never reach the parser: it saw the two real lines only
      expect(r.stats.lines).toBe(2)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('keeps a signal whose line was cut short (seed 000 shows one) and counts a line whose layout was cut off', () => {
    // seed 000's second line is truncated by the report after "clo"; the seed 002 lines lost "[2" of the timestamp.
    const truncated = '[2018-08-06 01:28:02,562] INFO Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062, clo'
    const headless = '018-03-24 13:43:00,285] INFO [Partition gnup.source.offset.storage.topic-5 broker=1001] Shrinking ISR from 1001,1002 to 1001 (kafka.cluster.Partition)'
    const r = parse(`${headless}\n${truncated}`, { format: 'kafka' })
    expect(r.signals.map((s) => [s.name, s.value])).toEqual([['zk.session_timeout', 7768]])
    expect(r.stats.unparsed['no-layout']).toBe(1)
  })

  it('reads a trigger inside a stack trace as part of its record, without counting it', () => {
    // Kafka 3.9 with ZooKeeper 3.8 (recorded by the lab): the timeout is logged, then repeated inside the
    // stack of the next record.
    const text = [
      '[2026-11-29 20:07:44,491] WARN Client session timed out, have not heard from server in 9539ms for session id 0x100001597490001 (org.apache.zookeeper.ClientCnxn)',
      '[2026-11-29 20:07:44,539] WARN Session 0x100001597490001 for server /127.0.0.1:45005, Closing socket connection. Attempting reconnect except it is a SessionExpiredException. (org.apache.zookeeper.ClientCnxn)',
      'org.apache.zookeeper.ClientCnxn$SessionTimeoutException: Client session timed out, have not heard from server in 9539ms for session id 0x100001597490001',
      '\tat org.apache.zookeeper.ClientCnxn$SendThread.run(ClientCnxn.java:1257)',
    ].join('\n')
    const r = parse(text)
    // The second record is the disconnect, a WARN carrying an exception: its own signals, not a second timeout.
    expect(r.signals.map((s) => [s.name, s.value])).toEqual([['zk.session_timeout', 9539], ['zk.disconnected', undefined], ['log.warn_exception', undefined]])
    expect(r.signals[2].labels?.exception).toBe('org.apache.zookeeper.ClientCnxn$SessionTimeoutException')
    expect(Object.values(r.stats.unparsed).every((n) => n === 0)).toBe(true)
  })

  it('counts every line of a file whose format it cannot tell, and yields nothing from it', () => {
    const text = Array.from({ length: 300 }, (_, i) => `row ${i}: nothing a Kafka, ZooKeeper or JVM process writes`).join('\n')
    const r = parse(text)
    expect(r.format).toBeUndefined()
    expect(r.signals).toEqual([])
    expect(r.stats.unparsed['unknown-format']).toBe(300)
  })

  it('never throws on random bytes', () => {
    for (let seed = 1; seed <= 50; seed++) {
      let x = seed
      const bytes = Buffer.alloc(4096, 0).map(() => ((x = (x * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff)
      const text = `${ZK}\n${Buffer.from(bytes).toString('utf8')}\n${ZK.replace('7768', '9000')}\n`
      const r = parse(text, { format: 'kafka' })
      expect(r.signals.map((s) => s.value)).toContain(7768)
    }
  })
})
