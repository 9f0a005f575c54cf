import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ArchiveLimitError, openInput, openInputBytes, type InputEntry } from '../../../adapters/logs/open-input.js'

// Archives are read as streams with their limits counted as bytes come out: a bomb is refused after a
// few MiB of output, not after 200x the whole file; an entry's body is never held whole; a stored zip
// entry reads like a deflated one; every descriptor is closed exactly once.

const LOGS = path.join(import.meta.dirname, '..', '..', 'incidents', 'seed-000-stw-session-expiry', 'broker-1')
let dir = ''
let serverLog: Buffer

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'open-input-'))
  serverLog = await readFile(path.join(LOGS, 'server.log'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/**
 * Real log text repeated to `totalBytes`, 4 MiB of it compressed once and the member concatenated (gunzip
 * reads concatenated members as one stream): a big gzip made in milliseconds. The whole server.log
 * repeated compresses about 150x (a log that is only very repetitive); its first line repeated about
 * 255x (a bomb).
 */
function repeatedGzip(totalBytes: number, text: Buffer = serverLog): Buffer {
  const unit = Buffer.concat(Array.from({ length: Math.ceil((4 * 1024 * 1024) / text.length) }, () => text)).subarray(0, 4 * 1024 * 1024)
  const member = gzipSync(unit)
  return Buffer.concat(Array.from({ length: Math.ceil(totalBytes / unit.length) }, () => member))
}

/** Drains every entry; gives the bytes read and the error that ended it, if any. */
async function drain(entries: AsyncIterable<InputEntry>): Promise<{ names: string[]; bytes: number; bodies: Buffer[]; err?: unknown; peakRssMiB: number }> {
  const names: string[] = []
  const bodies: Buffer[] = []
  let bytes = 0
  const rss0 = process.memoryUsage.rss()
  let peak = rss0
  try {
    for await (const e of entries) {
      names.push(e.name)
      const keep: Buffer[] = []
      for await (const c of e.chunks) {
        bytes += c.length
        if (bytes < 8 * 1024 * 1024) keep.push(Buffer.from(c))
        peak = Math.max(peak, process.memoryUsage.rss())
      }
      bodies.push(Buffer.concat(keep))
    }
  } catch (err) {
    return { names, bytes, bodies, err, peakRssMiB: (peak - rss0) / 1024 ** 2 }
  }
  return { names, bytes, bodies, peakRssMiB: (peak - rss0) / 1024 ** 2 }
}

async function openFds(): Promise<number> {
  return (await readdir('/proc/self/fd')).length
}

describe('adapters/logs/open-input', () => {
  it('reads stored (uncompressed) and deflated zip entries alike, and closes the file once', async () => {
    const stored = path.join(dir, 'stored.zip')
    const deflated = path.join(dir, 'deflated.zip')
    execFileSync('zip', ['-q', '-0', '-j', stored, path.join(LOGS, 'server.log'), path.join(LOGS, 'gc.log')])
    execFileSync('zip', ['-q', '-j', deflated, path.join(LOGS, 'server.log'), path.join(LOGS, 'gc.log')])
    const before = await openFds()
    for (const zip of [stored, deflated]) {
      const r = await drain(openInput(zip))
      expect(r.err).toBeUndefined()
      expect(r.names).toEqual([`${zip}/server.log`, `${zip}/gc.log`])
      expect(r.bodies[0].equals(serverLog)).toBe(true)
      // From bytes, the same entries.
      const m = await drain(openInputBytes('b.zip', await readFile(zip)))
      expect(m.names).toEqual(['b.zip/server.log', 'b.zip/gc.log'])
      expect(m.bodies[0].equals(serverLog)).toBe(true)
    }
    // A reader that stops early closes the archive too.
    for await (const e of openInput(stored)) {
      for await (const _ of e.chunks) break
      break
    }
    await new Promise((r) => setTimeout(r, 50))
    expect(await openFds()).toBe(before)
  })

  it('refuses a gzip bomb after a few MiB of output, counting the compressed bytes read so far', async () => {
    // 1 GiB of one real log line in 4.1 MB: 200x the file would be 820 MB of output before a refusal.
    const bomb = path.join(dir, 'bomb.log.gz')
    const line = Buffer.from(`${serverLog.toString('utf8').split('\n')[0]}\n`)
    await writeFile(bomb, repeatedGzip(1024 ** 3, line))
    const t0 = performance.now()
    const r = await drain(openInput(bomb))
    const ms = performance.now() - t0
    expect(r.err).toBeInstanceOf(ArchiveLimitError)
    expect((r.err as Error).message).toMatch(/bomb\.log\.gz: expands more than 200x/)
    expect(r.bytes).toBeLessThan(32 * 1024 ** 2)
    expect(ms).toBeLessThan(5000)
    // A very repetitive log (150x) is not a bomb: read whole.
    const repetitive = path.join(dir, 'repetitive.log.gz')
    await writeFile(repetitive, repeatedGzip(64 * 1024 ** 2))
    const ok = await drain(openInput(repetitive))
    expect(ok.err).toBeUndefined()
    expect(ok.bytes).toBe(64 * 1024 ** 2)
  }, 60_000)

  it('streams a 400 MiB tar.gz entry body without holding it (RSS grows by far less than the body)', async () => {
    // A tar whose one entry is 400 MiB of real lines; the gzip is members concatenated, so it is small.
    const size = 400 * 1024 ** 2
    const header = Buffer.alloc(512)
    header.write('server.log', 0)
    header.write('0000644\0', 100)
    header.write('0000000\0', 108)
    header.write('0000000\0', 116)
    header.write(size.toString(8).padStart(11, '0') + '\0', 124)
    header.write('00000000000\0', 136)
    header.write('0', 156)
    header.write('ustar\0', 257)
    header.write('00', 263)
    header.fill(0x20, 148, 156)
    let sum = 0
    for (const b of header) sum += b
    header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148)
    const body = repeatedGzip(size)
    const tgz = path.join(dir, 'big.tar.gz')
    await writeFile(tgz, Buffer.concat([gzipSync(header), body, gzipSync(Buffer.alloc(1024))]))
    const r = await drain(openInput(tgz, { maxBytes: 4 * 1024 ** 3, maxEntries: 10, maxRatio: 1e6 }))
    expect(r.err).toBeUndefined()
    expect(r.bytes).toBe(size)
    expect(r.peakRssMiB).toBeLessThan(150)
  }, 120_000)

  it('refuses a tar long-name or pax header too large to be one, without reading it into memory', async () => {
    const header = Buffer.alloc(512)
    header.write('././@LongLink', 0)
    header.write((1024 ** 3).toString(8).padStart(11, '0') + '\0', 124)
    header.write('L', 156)
    const r = await drain(openInputBytes('long.tar', Buffer.concat([header, Buffer.alloc(4096)])))
    expect(r.err).toBeInstanceOf(ArchiveLimitError)
    expect((r.err as Error).message).toMatch(/long\.tar: a tar name header of 1024\.0 MiB/)
  })

  it('never follows a symlink inside a tar: it is not read, and a later entry of the same name is its own bytes', async () => {
    const src = path.join(dir, 'links')
    execFileSync('mkdir', ['-p', src])
    execFileSync('ln', ['-sf', '/etc/passwd', path.join(src, 'server.log')])
    const tgz = path.join(dir, 'links.tar.gz')
    execFileSync('tar', ['-czf', tgz, '-C', src, 'server.log'])
    const r = await drain(openInputBytes('links.tar.gz', await readFile(tgz)))
    expect(r.err).toBeUndefined()
    expect(r.names).toEqual([])
    expect(r.bytes).toBe(0)
  })
})
