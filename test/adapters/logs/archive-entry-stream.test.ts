import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptySourceStats, readSignalSources } from '../../../adapters/incident.js'
import { DEFAULT_ARCHIVE_LIMITS } from '../../../adapters/logs/open-input.js'

// A tar.gz whose one entry body is hundreds of MiB goes through the whole replay reader (archive,
// line cutting, parser) as a stream: memory grows by a bounded amount and time by the body's size.
// These are archive-limit tests, not parser tests, so the bodies are made, not recorded: a sparse file
// of zeros (tar of a `truncate`d file), and a body of one letter with no newline at all. The second
// was held and re-joined at every 16 KiB piece the inflater gave (quadratic): 16 MiB took 137 s and
// 400 MiB was still being read after 10 minutes; a body past 64 MiB without a newline is now dropped
// as it streams and counted as one over-long line.

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'archive-entry-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A ustar header for one regular file of `size` bytes. */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512)
  h.write(name, 0)
  h.write('0000644\0', 100)
  h.write('0000000\0', 108)
  h.write('0000000\0', 116)
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124)
  h.write('00000000000\0', 136)
  h.write('0', 156)
  h.write('ustar\0', 257)
  h.write('00', 263)
  h.fill(0x20, 148, 156)
  let sum = 0
  for (const b of h) sum += b
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  return h
}

/** Reads every path through the replay reader; gives what it counted, the time and the RSS growth. */
async function readThrough(file: string, limits = DEFAULT_ARCHIVE_LIMITS) {
  const stats = emptySourceStats()
  const rss0 = process.memoryUsage.rss()
  let peak = rss0
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10)
  const t0 = performance.now()
  let signals = 0
  let err: unknown
  try {
    for await (const b of readSignalSources([file], { stats, archiveLimits: limits })) signals += b.length
  } catch (e) {
    err = e
  } finally {
    clearInterval(sample)
  }
  peak = Math.max(peak, process.memoryUsage.rss())
  return { stats, signals, err, ms: performance.now() - t0, growthMiB: (peak - rss0) / 1024 ** 2 }
}

describe('adapters/logs archive entry bodies stream', () => {
  it('a tar.gz of a 400 MiB sparse file: refused by the expansion ratio after a few MiB, or read as a stream and skipped as binary', async () => {
    const body = path.join(dir, 'server.log')
    await writeFile(body, '')
    await truncate(body, 400 * 1024 ** 2)
    const tgz = path.join(dir, 'zeros.tar.gz')
    execFileSync('tar', ['czf', tgz, '-C', dir, 'server.log'])
    await rm(body)
    const refused = await readThrough(tgz)
    expect((refused.err as Error).message).toMatch(/zeros\.tar\.gz: expands more than 200x/)
    expect(refused.growthMiB).toBeLessThan(100)
    const read = await readThrough(tgz, { ...DEFAULT_ARCHIVE_LIMITS, maxRatio: 1e6 })
    expect(read.err).toBeUndefined()
    expect(read.stats.skipped).toEqual([{ file: `${tgz}/server.log`, reason: 'not a log: binary content' }])
    expect(read.growthMiB).toBeLessThan(150)
  }, 180_000)

  it('a tar.gz entry of 96 MiB with no newline: dropped as it streams, counted, in time linear in its size', async () => {
    const size = 96 * 1024 ** 2
    const piece = gzipSync(Buffer.alloc(4 * 1024 ** 2, 'x'))
    const tgz = path.join(dir, 'one-line.tar.gz')
    await writeFile(tgz, Buffer.concat([gzipSync(tarHeader('server.log', size)), ...Array.from({ length: size / (4 * 1024 ** 2) }, () => piece), gzipSync(Buffer.alloc(1024))]))
    const r = await readThrough(tgz, { ...DEFAULT_ARCHIVE_LIMITS, maxRatio: 1e6 })
    expect(r.err).toBeUndefined()
    expect(r.signals).toBe(0)
    expect(r.stats.files[0].stats?.bytes).toBe(size)
    expect(r.stats.logs.unparsed['line-too-long']).toBe(1)
    // The 64 MiB held before the line is judged too long, and nothing after it.
    expect(r.growthMiB).toBeLessThan(200)
    // Linear: about 5 s on the loaded 2-core machine; the quadratic join needed minutes for 16 MiB.
    expect(r.ms).toBeLessThan(60_000)
  }, 180_000)
})
