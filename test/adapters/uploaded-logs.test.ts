import { execFileSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readUploadedLogs } from '../../adapters/uploaded-logs.js'
import { ArchiveLimitError } from '../../adapters/logs/open-input.js'
import { MemoryStore } from '../../engine/store/memory-store.js'

const LOGS = path.join(import.meta.dirname, '..', 'incidents', 'seed-000-stw-session-expiry', 'broker-1')
/** A broker log with ERROR lines: planted outside the upload as the host file an upload must never reach. */
const HOST_LOG = path.join(import.meta.dirname, '..', 'incidents', 'lab-direct-memory-oom', 'broker-1', 'server.log')

/** A zip made by Info-ZIP from `files` (relative to `cwd`), `-y` keeping symlinks as links. */
function zipOf(cwd: string, files: string[]): Buffer {
  const out = path.join(cwd, `out-${Math.random().toString(36).slice(2)}.zip`)
  execFileSync('zip', ['-q', '-y', out, ...files], { cwd })
  return execFileSync('cat', [out])
}

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

  describe('uploads are data, never paths', () => {
    let host = ''
    let hostFile = ''
    beforeAll(async () => {
      // The host file sits beside where the old reader wrote uploads, so `../` reaches it from there.
      host = await mkdtemp(path.join(tmpdir(), 'host-secret-'))
      hostFile = path.join(host, 'server.log')
      await copyFile(HOST_LOG, hostFile)
    })

    const manifest = (paths: string[], extra = '') => Buffer.from(`cluster: other\nsources:\n${paths.map((p) => `  - { path: ${JSON.stringify(p)}, broker: 7${extra} }`).join('\n')}\n`)

    /** What an answer could show of a read: counters, files, skips, brokers (names made comparable). */
    const visible = (read: Awaited<ReturnType<typeof readUploadedLogs>>, swap: [string, string]) => JSON.stringify({ s: read.stats, b: read.brokers, a: read.accepted }).split(swap[0]).join(swap[1])

    it.each([
      { how: 'traversal', path: () => `../${path.basename(host)}/server.log`, missing: () => `../${path.basename(host)}/nothing.log` },
      { how: 'absolute path', path: () => hostFile, missing: () => path.join(host, 'nothing.log') },
      { how: 'traversal after a real name', path: () => `sub/../../${path.basename(host)}/server.log`, missing: () => `sub/../../${path.basename(host)}/nothing.log` },
    ])('an uploaded incident.yaml naming a host file by $how reads nothing of it, and answers as for a file that does not exist', async ({ path: p, missing }) => {
      const store = new MemoryStore()
      const read = await readUploadedLogs([{ name: 'incident.yaml', bytes: manifest([p()]) }], store, { cluster: 'c' })
      expect(read.accepted).toBe(0)
      expect(await store.query({ cluster: 'other', broker: '7', from: 0, to: Date.now() })).toEqual([])
      expect(await store.query({ cluster: 'c', broker: '7', from: 0, to: Date.now() })).toEqual([])
      expect(read.stats.logs.lines).toBe(0)
      const absent = await readUploadedLogs([{ name: 'incident.yaml', bytes: manifest([missing()]) }], new MemoryStore(), { cluster: 'c' })
      expect(visible(read, [p(), 'X'])).toBe(visible(absent, [missing(), 'X']))
    })

    it('an incident.yaml inside a bundle reads only entries of that bundle, with the broker it gives them', async () => {
      const work = await mkdtemp(path.join(tmpdir(), 'uploaded-bundle-'))
      try {
        await mkdir(path.join(work, 'inc'))
        await copyFile(path.join(LOGS, 'server.log'), path.join(work, 'inc', 'server.log'))
        const yaml = `cluster: other\nsources:\n  - { path: server.log, broker: 5 }\n  - { path: ../../${path.basename(host)}/server.log, broker: 6 }\n  - { path: ${hostFile}, broker: 6 }\n`
        await import('node:fs/promises').then((fs) => fs.writeFile(path.join(work, 'inc', 'incident.yaml'), yaml))
        const zip = zipOf(work, ['inc/incident.yaml', 'inc/server.log'])
        const store = new MemoryStore()
        const read = await readUploadedLogs([{ name: 'bundle.zip', bytes: zip }], store, { cluster: 'c' })
        expect(read.brokers).toEqual(['5'])
        expect(read.stats.files.map((f) => f.file)).toEqual(['bundle.zip/inc/server.log'])
        expect((await store.query({ cluster: 'c', broker: '5', from: 0, to: Date.now() })).some((s) => s.name === 'zk.session_timeout')).toBe(true)
        expect(await store.query({ cluster: 'c', broker: '6', from: 0, to: Date.now() })).toEqual([])
        // The two host names are echoed as the manifest wrote them, with the reason a missing entry gets.
        expect(read.stats.skipped.map((k) => k.reason)).toEqual(['not a file of this upload', 'not a file of this upload'])
      } finally {
        await rm(work, { recursive: true, force: true })
      }
    })

    it('a symlink inside a zip or a tar is not followed', async () => {
      const work = await mkdtemp(path.join(tmpdir(), 'uploaded-links-'))
      try {
        await symlink(hostFile, path.join(work, 'server.log'))
        const zip = zipOf(work, ['server.log'])
        execFileSync('tar', ['-czf', 'links.tgz', 'server.log'], { cwd: work })
        const tgz = await readFile(path.join(work, 'links.tgz'))
        for (const u of [{ name: 'links.zip', bytes: zip }, { name: 'links.tgz', bytes: tgz }]) {
          const store = new MemoryStore()
          const read = await readUploadedLogs([u], store, { cluster: 'c', broker: '1' })
          expect(read.accepted).toBe(0)
          expect(read.stats.logs.lines).toBe(0)
        }
      } finally {
        await rm(work, { recursive: true, force: true })
      }
    })

    it('an uploaded manifest pins a log shared beside it, by its shared name', async () => {
      const store = new MemoryStore()
      const read = await readUploadedLogs(
        [
          { name: 'incident.yaml', bytes: Buffer.from('cluster: other\ntimeZone: "-04:00"\nsources:\n  - { path: server.log, broker: 4 }\n') },
          { name: 'server.log', bytes: await readFile(path.join(LOGS, 'server.log')) },
        ],
        store,
        { cluster: 'c' },
      )
      expect(read.brokers).toEqual(['4'])
      const expiry = (await store.query({ cluster: 'c', broker: '4', from: 0, to: Date.now() })).find((s) => s.name === 'zk.session_timeout')
      expect(expiry?.at).toBe(Date.parse('2018-08-14T02:16:09.762Z'))
    })
  })
})
