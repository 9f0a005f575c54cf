import { execFileSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { brokerOfPath, emptySourceStats, inferZone, readSignalSources, UNNAMED_BROKER, type ReadSourcesOptions } from '../../../adapters/incident.js'
import { ArchiveLimitError, looksBinary, openInput } from '../../../adapters/logs/open-input.js'
import type { Signal } from '../../../signals/signal.js'

// A user's own logs as they hand them over: bare files with no broker id in most lines and no
// incident.yaml, compressed, bundled. The lines are seed 000's real server.log and gc.log.
const SEED_000 = 'test/incidents/seed-000-stw-session-expiry/broker-1'

let dir: string

async function read(paths: string[], options: Omit<ReadSourcesOptions, 'stats'> = {}) {
  const stats = emptySourceStats()
  const signals: Signal[] = []
  for await (const batch of readSignalSources(paths, { ...options, stats })) signals.push(...batch)
  return { signals, stats }
}

const key = (s: Signal) => `${s.name}@${s.at}@${s.broker ?? '-'}`

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-own-'))
  await mkdir(path.join(dir, 'plain'))
  for (const f of ['server.log', 'gc.log']) await copyFile(path.join(SEED_000, f), path.join(dir, 'plain', f))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('adapters/incident own logs', () => {
  it.each([
    ['broker-3/server.log', '3'],
    ['kafka-3/server.log', '3'],
    ['kafka-broker-3/logs/server.log', '3'],
    ['kafka_broker_12/server.log', '12'],
    ['broker07/gc.log', '7'],
    ['kafka_2.13-3.9.1/logs/server.log', undefined],
    ['logs/server.log', undefined],
  ])('reads the broker of %s from its directory names', (p, want) => {
    expect(brokerOfPath(p)).toBe(want)
  })

  it('reads unnamed records as the asked broker and says how many', async () => {
    const { signals, stats } = await read([path.join(dir, 'plain')], { defaultBroker: '1' })
    expect(signals.length).toBeGreaterThan(100)
    expect(signals.every((s) => s.broker === '1' || s.broker === undefined)).toBe(true)
    expect(stats.attributed).toBeGreaterThan(0)
    expect(stats.attributedTo).toEqual({ '1': stats.attributed })
  })

  it("lends the GC log's offset to the log4j lines that have none, so they line up", async () => {
    expect(await inferZone([path.join(dir, 'plain', 'server.log'), path.join(dir, 'plain', 'gc.log')])).toEqual({ zone: '-04:00', why: 'the offset gc.log carries' })
    const { signals } = await read([path.join(dir, 'plain')], { defaultBroker: '1' })
    // seed 000: the safepoint stall ends at 22:16:09.744-0400, the ZooKeeper timeout is logged 18 ms later.
    const stall = signals.find((s) => s.name === 'safepoint.sync' && (s.value ?? 0) > 3000)!
    const timeout = signals.find((s) => s.name === 'zk.session_timeout')!
    expect(timeout.at - stall.at).toBe(18)
  })

  it('reads offset-less times in the zone given, and in UTC when nothing says otherwise', async () => {
    const only = [path.join(dir, 'plain', 'server.log')]
    expect((await inferZone(only)).zone).toBe('Z')
    const utc = await read(only, { defaultBroker: '1' })
    const given = await read(only, { defaultBroker: '1', timeZone: '-04:00' })
    const t = (r: typeof utc) => r.signals.find((s) => s.name === 'zk.session_timeout')!.at
    expect(t(given) - t(utc)).toBe(4 * 3_600_000)
    expect(utc.stats.zone?.zone).toBe('Z')
  })

  it('never names a broker after its directory or file when no line names one', async () => {
    const { signals, stats } = await read([path.join(dir, 'plain')])
    // seed 000's lines name no broker at all: one broker, "unnamed", not "plain" or "server".
    expect(new Set(signals.filter((s) => s.broker !== undefined).map((s) => s.broker))).toEqual(new Set([UNNAMED_BROKER]))
    expect(stats.attributedTo[UNNAMED_BROKER]).toBe(stats.attributed)
    await writeFile(path.join(dir, 'server.log.gz'), gzipSync(await readFile(path.join(dir, 'plain', 'server.log'))))
    const gz = await read([path.join(dir, 'server.log.gz')])
    expect(new Set(gz.signals.map((s) => s.broker))).toEqual(new Set([UNNAMED_BROKER]))
  })

  // lab-stw broker 1's own files in a directory whose name says nothing: server.log names broker 1 in
  // some lines ("[KafkaServer id=1]"), gc.log in none. They were read as two brokers, "1" and "kafka".
  it('reads a bare directory of one broker as that broker: gc.log joins the id server.log names', async () => {
    await mkdir(path.join(dir, 'kafka'))
    for (const f of ['server.log', 'gc.log']) await copyFile(path.join('test/incidents/lab-stw/broker-1', f), path.join(dir, 'kafka', f))
    const { signals, stats } = await read([path.join(dir, 'kafka')])
    expect(new Set(signals.filter((s) => s.broker !== undefined).map((s) => s.broker))).toEqual(new Set(['1']))
    expect(signals.some((s) => s.source.includes('gc.log') && s.broker === '1')).toBe(true)
    expect(Object.keys(stats.attributedTo)).toEqual(['1'])
  })

  it('reads .gz, .tar.gz and .zip bundles to the same signals as the plain files', async () => {
    const plain = await read([path.join(dir, 'plain')], { defaultBroker: '1' })
    await writeFile(path.join(dir, 'server.log.gz'), gzipSync(await readFile(path.join(dir, 'plain', 'server.log'))))
    execFileSync('tar', ['czf', path.join(dir, 'bundle.tar.gz'), '-C', dir, 'plain'])
    execFileSync('zip', ['-q', '-r', path.join(dir, 'bundle.zip'), 'plain'], { cwd: dir })
    for (const bundle of ['bundle.tar.gz', 'bundle.zip']) {
      const got = await read([path.join(dir, bundle)], { defaultBroker: '1', timeZone: '-04:00' })
      expect(got.signals.map(key).sort(), bundle).toEqual(plain.signals.map(key).sort())
      expect(got.stats.files.map((f) => path.basename(f.file)).sort()).toEqual(['gc.log', 'server.log'])
    }
    const gz = await read([path.join(dir, 'server.log.gz')], { defaultBroker: '1', timeZone: '-04:00' })
    expect(gz.signals.map(key).sort()).toEqual(plain.signals.filter((s) => s.source.includes('server.log')).map(key).sort())
  })

  it('refuses an archive that expands past its ratio, naming it', async () => {
    const bomb = path.join(dir, 'bomb.log.gz')
    await writeFile(bomb, gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x41)))
    const drain = async () => {
      for await (const e of openInput(bomb)) for await (const _ of e.chunks) void _
    }
    await expect(drain()).rejects.toThrow(ArchiveLimitError)
    await expect(drain()).rejects.toThrow(/bomb\.log\.gz: expands more than 200x/)
  })

  it('names a binary file and a text file that is no log, and skips them', async () => {
    const mixed = path.join(dir, 'mixed')
    await mkdir(mixed, { recursive: true })
    await copyFile(path.join(SEED_000, 'server.log'), path.join(mixed, 'server.log'))
    await writeFile(path.join(mixed, 'core.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0]))
    await writeFile(path.join(mixed, 'notes.txt'), 'Restarted the broker after the disk was replaced.\nCall the vendor on Monday.\n')
    const { stats, signals } = await read([mixed], { defaultBroker: '1' })
    expect(signals.length).toBeGreaterThan(0)
    expect(stats.skipped.map((s) => [path.basename(s.file), s.reason.split(':')[0]]).sort()).toEqual([
      ['core.bin', 'not a log'],
      ['notes.txt', 'not a log'],
    ])
    expect(looksBinary(Buffer.from('[2018-08-13 22:16:09,762] WARN Client session timed out\n'))).toBe(false)
  })
})
