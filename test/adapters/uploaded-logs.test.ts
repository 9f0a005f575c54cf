import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readUploadedLogs } from '../../adapters/uploaded-logs.js'
import { ArchiveLimitError } from '../../adapters/logs/open-input.js'
import { MemoryStore } from '../../engine/store/memory-store.js'

const LOGS = path.join(import.meta.dirname, '..', 'incidents', 'seed-000-stw-session-expiry', 'broker-1')

/** The private copies made while reading, in this file's own temp root (nothing else writes there). */
async function uploadDirs(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((n) => n.startsWith('kafka-why-upload-'))
}

describe('adapters/uploaded-logs', () => {
  const outer = process.env.TMPDIR
  let root = ''
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'uploaded-root-'))
    process.env.TMPDIR = root
  })
  afterAll(async () => {
    if (outer === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = outer
    await rm(root, { recursive: true, force: true })
  })

  it('reads a zipped server.log + gc.log as the broker its name says, in the offset the GC log carries, and leaves no file behind', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'uploaded-test-'))
    let zip: Buffer
    try {
      execFileSync('zip', ['-q', '-j', path.join(dir, 'b.zip'), path.join(LOGS, 'server.log'), path.join(LOGS, 'gc.log')])
      zip = await readFile(path.join(dir, 'b.zip'))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    const store = new MemoryStore()
    const read = await readUploadedLogs([{ name: '../../etc/broker-3.zip', bytes: zip }], store, { cluster: 'c' })
    expect(read.brokers).toEqual(['3'])
    expect(read.stats.zone).toEqual({ zone: '-04:00', why: 'the offset gc.log carries' })
    expect(read.stats.files.map((f) => f.file).sort()).toEqual(['broker-3.zip/gc.log', 'broker-3.zip/server.log'])
    // 22:16:09,762 in server.log is 02:16:09.762Z once read in the GC log's -04:00.
    const expiry = (await store.query({ cluster: 'c', broker: '3', from: 0, to: Date.now() })).find((s) => s.name === 'zk.session_timeout')
    expect(expiry?.at).toBe(Date.parse('2018-08-14T02:16:09.762Z'))
    expect(await uploadDirs()).toEqual([])
  })

  it('names the upload, not its private copy, when an archive goes past a limit, and still cleans up', async () => {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x41))
    const err = await readUploadedLogs([{ name: 'server.log.gz', bytes: bomb }], new MemoryStore(), { cluster: 'c', archiveLimits: { maxBytes: 2 * 1024 ** 2, maxEntries: 10, maxRatio: 1e6 } }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ArchiveLimitError)
    expect((err as Error).message).toMatch(/^server\.log\.gz: expands past 2 MiB/)
    expect(await uploadDirs()).toEqual([])
  })
})
