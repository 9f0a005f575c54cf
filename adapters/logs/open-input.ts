import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { createGunzip, createInflateRaw } from 'node:zlib'
import { Readable, type Transform } from 'node:stream'

/**
 * Opens what support teams actually send as logs — a plain file, a `.gz`, a `.tar`/`.tar.gz`/`.tgz` or a
 * `.zip` bundle — as a sequence of named byte streams, one per log inside. Archives are read with
 * limits (bytes, entries, expansion ratio) so a bundle cannot exhaust memory or disk: past a limit the
 * read stops with an ArchiveLimitError naming the limit, and nothing already read is lost.
 */

/** Bounds on what one archive may expand to. */
export type ArchiveLimits = {
  /** Total uncompressed bytes read from one archive. */
  maxBytes: number
  /** Entries (files) in one archive. */
  maxEntries: number
  /**
   * Uncompressed bytes out / compressed bytes read so far, checked on every chunk once past 1 MiB of
   * output: real logs compress 5–30x (a log of one line repeated about 150x), a bomb 250–1000x, so a bomb
   * is refused after a few MiB of output whatever the archive's total size.
   */
  maxRatio: number
}

/** Defaults: 4 GiB, 10,000 files, 200x. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxBytes: 4 * 1024 ** 3, maxEntries: 10_000, maxRatio: 200 }

/** A tar long-name (`L`) or pax (`x`) header body is read whole; a real one is a path, far below this. */
const MAX_TAR_META_BYTES = 1024 * 1024

/** Compressed bytes are fed to the inflater in chunks this size, so the ratio is judged on what was read. */
const FEED_BYTES = 16 * 1024

/** An archive went past one of its limits; the message names the archive and the limit. */
export class ArchiveLimitError extends Error {}

/** One log inside an input: its display name and its bytes, to be read once, in order. */
export type InputEntry = { name: string; chunks: AsyncIterable<Buffer> }

/** What a path is, judged by its name. */
export type InputKind = 'plain' | 'gzip' | 'tar' | 'tar.gz' | 'zip'

/** The kind of input a file name says it is. */
export function inputKind(file: string): InputKind {
  const f = file.toLowerCase()
  if (f.endsWith('.tar.gz') || f.endsWith('.tgz')) return 'tar.gz'
  if (f.endsWith('.tar')) return 'tar'
  if (f.endsWith('.zip')) return 'zip'
  if (f.endsWith('.gz')) return 'gzip'
  return 'plain'
}

/** Reads at a position, for a zip's directory and bodies: a file handle's or a buffer's bytes. */
type RandomAccess = { size: number; read(into: Buffer, position: number): Promise<number> }

/** The bytes an input comes from: read in order, or at positions. */
type ByteSource = { stream(): AsyncIterable<Buffer>; withAccess<T>(use: (a: RandomAccess) => AsyncIterable<T>): AsyncIterable<T> }

/**
 * The logs inside one file. Entries must be consumed in order (a tar is one stream); an entry whose
 * name says it is not a log (`.md`, `.png`, …) is still yielded — the caller decides what to skip.
 */
export async function* openInput(file: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): AsyncIterable<InputEntry> {
  if (inputKind(file) === 'plain') {
    yield { name: file, chunks: createReadStream(file, { highWaterMark: 4 * 1024 * 1024 }) }
    return
  }
  yield* openSource(file, fileSource(file), limits)
}

/**
 * The logs inside bytes handed over whole (an upload): the same reading as openInput, named `name`,
 * without a file on the host ever being named or opened.
 */
export async function* openInputBytes(name: string, bytes: Buffer, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): AsyncIterable<InputEntry> {
  if (inputKind(name) === 'plain') {
    yield { name, chunks: sliceChunks(bytes, 0, bytes.length, 4 * 1024 * 1024) }
    return
  }
  yield* openSource(name, bufferSource(bytes), limits)
}

async function* openSource(name: string, source: ByteSource, limits: ArchiveLimits): AsyncIterable<InputEntry> {
  const kind = inputKind(name)
  const guard = new ExpansionGuard(name, limits)
  if (kind === 'gzip') {
    yield { name: name.replace(/\.gz$/i, ''), chunks: guard.count(inflate(guard.feed(source.stream()), createGunzip())) }
    return
  }
  if (kind === 'tar') {
    yield* readTar(name, guard.count(guard.feed(source.stream())), guard)
    return
  }
  if (kind === 'tar.gz') {
    yield* readTar(name, guard.count(inflate(guard.feed(source.stream()), createGunzip())), guard)
    return
  }
  yield* source.withAccess((a) => readZip(name, a, guard))
}

function fileSource(file: string): ByteSource {
  return {
    stream: () => createReadStream(file, { highWaterMark: FEED_BYTES }),
    async *withAccess(use) {
      const fh = await open(file, 'r')
      try {
        const size = (await fh.stat()).size
        yield* use({ size, read: async (into, position) => (await fh.read(into, 0, into.length, position)).bytesRead })
      } finally {
        // The one close of this descriptor: entry bodies read through `read`, never through a stream of their own.
        await fh.close()
      }
    },
  }
}

function bufferSource(bytes: Buffer): ByteSource {
  return {
    stream: () => sliceChunks(bytes, 0, bytes.length, FEED_BYTES),
    withAccess: (use) => use({ size: bytes.length, read: async (into, position) => bytes.copy(into, 0, position, Math.min(bytes.length, position + into.length)) }),
  }
}

async function* sliceChunks(bytes: Buffer, from: number, to: number, size: number): AsyncIterable<Buffer> {
  for (let p = from; p < to; p += size) yield bytes.subarray(p, Math.min(to, p + size))
}

/** `len` bytes from `start`, read in chunks through the archive's one handle. */
async function* rangeChunks(a: RandomAccess, start: number, len: number): AsyncIterable<Buffer> {
  for (let p = start, end = start + len; p < end; ) {
    const buf = Buffer.allocUnsafe(Math.min(FEED_BYTES, end - p))
    const n = await a.read(buf, p)
    if (n <= 0) return
    p += n
    yield buf.subarray(0, n)
  }
}

/**
 * Compressed chunks through an inflater, one chunk at a time (so what was read is what was fed); when
 * the reader stops, both ends are torn down and the source's own cleanup runs.
 */
function inflate(src: AsyncIterable<Buffer>, inflater: Transform): Readable {
  const input = Readable.from(src, { highWaterMark: 1 })
  input.on('error', (err) => inflater.destroy(err))
  inflater.on('close', () => input.destroy())
  return input.pipe(inflater)
}

/** Counts compressed bytes read and expanded bytes and entries out of one archive, against its limits. */
class ExpansionGuard {
  private bytes = 0
  private fed = 0
  private entries = 0
  constructor(
    private readonly file: string,
    private readonly limits: ArchiveLimits,
  ) {}

  entry(): void {
    if (++this.entries > this.limits.maxEntries) throw new ArchiveLimitError(`${this.file}: more than ${this.limits.maxEntries} files in the archive; unpack it and pass a directory`)
  }

  add(n: number): void {
    this.bytes += n
    if (this.bytes > this.limits.maxBytes) {
      throw new ArchiveLimitError(`${this.file}: expands past ${Math.round(this.limits.maxBytes / 1024 ** 2)} MiB; unpack it and pass a directory`)
    }
    if (this.bytes > 1024 * 1024 && this.bytes > this.limits.maxRatio * Math.max(1, this.fed)) {
      throw new ArchiveLimitError(`${this.file}: expands more than ${this.limits.maxRatio}x the compressed bytes read (an archive bomb?); refused`)
    }
  }

  /** Compressed bytes as they are read. */
  async *feed(src: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    try {
      for await (const chunk of src) {
        this.fed += chunk.length
        yield chunk
      }
    } finally {
      ;(src as Readable).destroy?.()
    }
  }

  /** Expanded bytes as they come out. */
  async *count(stream: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    try {
      for await (const chunk of stream) {
        this.add(chunk.length)
        yield chunk
      }
    } finally {
      // Stop decompressing when the reader stops early (a limit, or an error downstream).
      ;(stream as Readable).destroy?.()
    }
  }
}

/** Pulls exact byte counts out of a chunk stream (a tar's headers and bodies are not chunk-aligned). */
class ByteReader {
  private buf: Buffer = Buffer.alloc(0)
  private readonly it: AsyncIterator<Buffer>
  private done = false
  constructor(src: AsyncIterable<Buffer>) {
    this.it = src[Symbol.asyncIterator]()
  }

  /** Up to `max` bytes (fewer only at the end of the stream); an empty buffer means the end. */
  async take(max: number): Promise<Buffer> {
    while (this.buf.length === 0 && !this.done) {
      const r = await this.it.next()
      if (r.done) this.done = true
      else this.buf = r.value
    }
    const out = this.buf.subarray(0, max)
    this.buf = this.buf.subarray(out.length)
    return out
  }

  /** Exactly `n` bytes, or fewer at the end of the stream. */
  async exact(n: number): Promise<Buffer> {
    const parts: Buffer[] = []
    let got = 0
    while (got < n) {
      const b = await this.take(n - got)
      if (b.length === 0) break
      parts.push(b)
      got += b.length
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts)
  }

  async close(): Promise<void> {
    await this.it.return?.()
  }
}

const cstr = (b: Buffer, from: number, len: number) => {
  const s = b.subarray(from, from + len)
  const z = s.indexOf(0)
  return (z < 0 ? s : s.subarray(0, z)).toString('utf8')
}

/** ustar / GNU / pax tar entries, regular files only, in archive order. */
async function* readTar(file: string, bytes: AsyncIterable<Buffer>, guard: ExpansionGuard): AsyncIterable<InputEntry> {
  const r = new ByteReader(bytes)
  let longName: string | undefined
  try {
    for (;;) {
      const h = await r.exact(512)
      if (h.length < 512 || h.every((x) => x === 0)) return
      const size = parseInt(cstr(h, 124, 12).trim() || '0', 8)
      if (!Number.isFinite(size) || size < 0) throw new ArchiveLimitError(`${file}: not a tar archive (bad header)`)
      const type = String.fromCharCode(h[156] || 48)
      const prefix = h.subarray(257, 262).toString('latin1') === 'ustar' ? cstr(h, 345, 155) : ''
      let name = longName ?? (prefix ? `${prefix}/${cstr(h, 0, 100)}` : cstr(h, 0, 100))
      longName = undefined
      const padded = Math.ceil(size / 512) * 512
      if (type === 'L' || type === 'x') {
        if (size > MAX_TAR_META_BYTES) throw new ArchiveLimitError(`${file}: a tar name header of ${(size / 1024 ** 2).toFixed(1)} MiB; refused`)
        const body = (await r.exact(padded)).subarray(0, size)
        if (type === 'L') longName = cstr(body, 0, body.length)
        else {
          const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1]
          if (path) longName = path
        }
        continue
      }
      if (type !== '0' && type !== '7') {
        await r.exact(padded)
        continue
      }
      guard.entry()
      name = `${file}/${name}`
      let left = size
      const chunks = async function* (): AsyncIterable<Buffer> {
        while (left > 0) {
          const b = await r.take(Math.min(left, 1024 * 1024))
          if (b.length === 0) return
          left -= b.length
          yield b
        }
      }
      yield { name, chunks: chunks() }
      // Whatever the reader did not consume of this entry is skipped, then the padding.
      while (left > 0) {
        const b = await r.take(Math.min(left, 1024 * 1024))
        if (b.length === 0) return
        left -= b.length
      }
      await r.exact(padded - size)
    }
  } finally {
    await r.close()
  }
}

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

/** Zip entries (stored or deflated), read through the central directory; zip64 is refused clearly. */
async function* readZip(file: string, a: RandomAccess, guard: ExpansionGuard): AsyncIterable<InputEntry> {
  const size = a.size
  const tailLen = Math.min(size, 65_557)
  const tail = Buffer.alloc(tailLen)
  await a.read(tail, size - tailLen)
  let e = -1
  for (let i = tailLen - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      e = i
      break
    }
  }
  if (e < 0) throw new ArchiveLimitError(`${file}: not a zip archive (no end-of-central-directory record)`)
  const count = tail.readUInt16LE(e + 10)
  const cdSize = tail.readUInt32LE(e + 12)
  const cdOffset = tail.readUInt32LE(e + 16)
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ArchiveLimitError(`${file}: zip64 archives are not read; unpack it and pass a directory`)
  if (cdOffset + cdSize > size) throw new ArchiveLimitError(`${file}: damaged zip archive (central directory past the end)`)
  const cd = Buffer.alloc(cdSize)
  await a.read(cd, cdOffset)
  let p = 0
  for (let k = 0; k < count; k++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) throw new ArchiveLimitError(`${file}: damaged zip archive (entry ${k + 1})`)
    const method = cd.readUInt16LE(p + 10)
    const compSize = cd.readUInt32LE(p + 20)
    const nameLen = cd.readUInt16LE(p + 28)
    const extraLen = cd.readUInt16LE(p + 30)
    const commentLen = cd.readUInt16LE(p + 32)
    // Unix mode in the high half of the external attributes: a symlink's body is its target's path.
    const unixMode = cd.readUInt32LE(p + 38) >>> 16
    const localOffset = cd.readUInt32LE(p + 42)
    const name = cd.subarray(p + 46, p + 46 + nameLen).toString('utf8')
    p += 46 + nameLen + extraLen + commentLen
    if (name.endsWith('/') || (unixMode & 0o170000) === 0o120000) continue
    guard.entry()
    if (method !== 0 && method !== 8) throw new ArchiveLimitError(`${file}: ${name} uses zip compression method ${method}; only stored and deflated entries are read`)
    const lh = Buffer.alloc(30)
    await a.read(lh, localOffset)
    if (lh.readUInt32LE(0) !== LOCAL) throw new ArchiveLimitError(`${file}: damaged zip archive (local header of ${name})`)
    const dataStart = localOffset + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28)
    if (dataStart + compSize > size) throw new ArchiveLimitError(`${file}: damaged zip archive (${name} runs past the end)`)
    const raw = guard.feed(rangeChunks(a, dataStart, compSize))
    yield { name: `${file}/${name}`, chunks: guard.count(method === 8 ? inflate(raw, createInflateRaw()) : raw) }
  }
}

/**
 * True when the first bytes of a file are not text a logger writes: NUL bytes, or mostly control
 * characters. Judged on the first 8 KiB (a log never starts with binary).
 */
export function looksBinary(head: Buffer): boolean {
  if (head.length === 0) return false
  let control = 0
  for (const b of head) {
    if (b === 0) return true
    if (b < 9 || (b > 13 && b < 32) || b === 127) control++
  }
  return control / head.length > 0.1
}
