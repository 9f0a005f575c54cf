import { watch, type FSWatcher } from 'node:fs'
import { mkdir, open, readFile, rename, stat, writeFile, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import type { Signal } from '../../signals/signal.js'
import { LogParser, type ParserLimits } from './parser.js'
import { decodeUtf8 } from './read-file.js'
import { addStats, emptyStats, type LogSourceConfig, type ParseStats } from './types.js'

/**
 * Live log following for `serve` and the agent: polls a file, survives rotation by rename + create and
 * by copytruncate, persists how far it got so a restart neither loses nor repeats a record, and
 * flushes a record still waiting for its stack trace once the file has been quiet for a while.
 * Polling rather than fs.watch: watch events are lost across renames and on network file systems.
 */

export type TailOptions = {
  /** Receives each batch of signals; awaited before the offset is persisted. */
  onSignals: (signals: Signal[]) => void | Promise<void>
  /** JSON file remembering { ino, offset, line }; without it a restart reads from `fromEnd`. */
  offsetFile?: string
  /** With no saved offset, start at the end of the file instead of its start. */
  fromEnd?: boolean
  pollMs?: number
  /**
   * A pending multi-line record is emitted after the file is quiet this long (default 150 ms). log4j
   * and the JVM's unified logging write a record with its stack trace in one go (one flush of the
   * appender's buffer), so a record whose continuation has not come within a moment is complete;
   * waiting longer only delays the last line before a silence, which is the line a frozen or failing
   * broker leaves.
   */
  flushAfterMs?: number
  /** A last line still without its newline is taken as complete after the file is quiet this long. */
  partialAfterMs?: number
  /** A line still without its newline after this many bytes is dropped and counted. */
  maxPartialBytes?: number
  limits?: Partial<ParserLimits>
  signal?: AbortSignal
}

/** A running tail: its counters, and a promise that settles when it stops. */
export type Tail = { stats: () => ParseStats; done: Promise<void>; stop: () => void }

type Saved = { ino: number; offset: number; line: number }

/** How much of a file's start is remembered to notice copytruncate that the size alone would miss. */
const HEAD_BYTES = 256

async function loadOffset(file: string | undefined): Promise<Saved | undefined> {
  if (!file) return undefined
  try {
    const o = JSON.parse(await readFile(file, 'utf8')) as Partial<Saved>
    if (typeof o.ino === 'number' && typeof o.offset === 'number' && typeof o.line === 'number') return o as Saved
  } catch {
    return undefined
  }
  return undefined
}

async function saveOffset(file: string, saved: Saved): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const tmp = `${file}.tmp`
  await writeFile(tmp, JSON.stringify(saved))
  await rename(tmp, file)
}

const sleep = (ms: number, signal?: AbortSignal, wake?: Wake) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      if (wake) wake.waiter = undefined
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
    if (wake) {
      if (wake.changed) {
        wake.changed = false
        return done()
      }
      wake.waiter = done
    }
  })

/**
 * The kernel's word that the followed file changed (inotify), so a written line is read at once
 * instead of at the next poll; polling stays for what a watch misses (rotation, NFS, a watch limit).
 */
type Wake = { waiter?: () => void; changed: boolean; watcher?: FSWatcher }

function watchFile(file: string, wake: Wake): void {
  wake.watcher?.close()
  wake.watcher = undefined
  try {
    wake.watcher = watch(file, { persistent: false }, () => {
      if (wake.waiter) wake.waiter()
      else wake.changed = true
    })
    wake.watcher.on('error', () => {
      wake.watcher?.close()
      wake.watcher = undefined
    })
  } catch {
    // no watch (a limit reached, a file system without inotify): the poll alone reads it
  }
}

/** Lines after which a followed file's format is decided even when no line has settled it. */
const EARLY_SAMPLE_LINES = 20

/**
 * Newlines in the first `end` bytes: the number of the line a tail starting there is on, less one.
 * Read in 1 MiB chunks and counted with the native byte search; the cost is one sequential read of
 * the skipped part (docs/live.md gives the measured rate).
 */
export async function countLines(handle: FileHandle, end: number): Promise<number> {
  const buf = Buffer.allocUnsafe(1024 * 1024)
  let n = 0
  for (let at = 0; at < end; ) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, end - at), at)
    if (bytesRead === 0) break
    const chunk = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead)
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++
    at += bytesRead
  }
  return n
}

/** Follows `file` until stopped. Errors reading the file are counted as `unreadable` and retried. */
export function tailLogFile(cfg: LogSourceConfig, file: string, opts: TailOptions): Tail {
  const ctrl = new AbortController()
  const signal = opts.signal ? AbortSignal.any([opts.signal, ctrl.signal]) : ctrl.signal
  const pollMs = opts.pollMs ?? 250
  const flushAfterMs = opts.flushAfterMs ?? 150
  const wake: Wake = { changed: false }
  const maxPartial = opts.maxPartialBytes ?? 8 * 1024 * 1024
  const partialAfterMs = opts.partialAfterMs ?? 30_000
  const finished = emptyStats()
  // A followed file is decided on its first recognisable line: a busy gc.log is never quiet.
  const limits = { earlySampleLines: EARLY_SAMPLE_LINES, ...opts.limits }
  let parser = new LogParser(cfg, limits)
  let handle: FileHandle | undefined
  let ino = -1
  let position = 0
  let held: Buffer = Buffer.alloc(0)
  let head: Buffer | undefined
  /** A rotated or truncated file starts again at line 1 with fresh record state. */
  const restart = (line = 1) => {
    head = undefined
    addStats(finished, parser.stats)
    parser = new LogParser(cfg, limits, line)
  }
  let lastData = 0

  const emit = async (signals: Signal[]) => {
    if (signals.length) await opts.onSignals(signals)
    if (opts.offsetFile && ino >= 0) {
      const r = parser.resumePoint()
      await saveOffset(opts.offsetFile, { ino, offset: position - held.length - r.pendingBytes, line: r.line })
    }
  }

  const feed = async (chunk: Buffer) => {
    let buf = held.length ? Buffer.concat([held, chunk]) : chunk
    const cut = buf.lastIndexOf(10) + 1
    if (cut === 0) {
      if (buf.length > maxPartial) {
        parser.stats.unparsed['line-too-long']++
        buf = Buffer.alloc(0)
      }
      held = buf
      return
    }
    held = Buffer.from(buf.subarray(cut))
    parser.stats.bytes += cut
    await emit(parser.push(decodeUtf8(buf.subarray(0, cut))))
  }

  // fromEnd applies to the file as found at start; a file created by rotation is read from its start.
  let openedOnce = false
  const openCurrent = async (resume?: Saved) => {
    handle = await open(file, 'r')
    watchFile(file, wake)
    const st = await handle.stat()
    ino = st.ino
    held = Buffer.alloc(0)
    if (resume && resume.ino === st.ino && resume.offset <= st.size) {
      position = resume.offset
      restart(resume.line)
    } else if (!resume && opts.fromEnd && !openedOnce) {
      // Evidence names the file's own line numbers, so the skipped head is counted, not assumed empty.
      position = st.size
      restart((await countLines(handle, position)) + 1)
    } else {
      position = 0
    }
    openedOnce = true
  }

  /**
   * copytruncate followed by new writes can leave the file as long as before, or longer, by the next
   * poll; a changed first line still shows it was truncated.
   */
  const headChanged = async () => {
    if (!handle || position === 0) return false
    const want = Math.min(HEAD_BYTES, position)
    const cur = Buffer.alloc(want)
    const { bytesRead } = await handle.read(cur, 0, want, 0)
    if (head === undefined || head.length < want) {
      head = cur.subarray(0, bytesRead)
      return false
    }
    return bytesRead < want || !cur.equals(head.subarray(0, want))
  }

  const drain = async () => {
    if (!handle) return false
    const buf = Buffer.allocUnsafe(1024 * 1024)
    let any = false
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, position)
      if (bytesRead === 0) break
      position += bytesRead
      any = true
      await feed(Buffer.from(buf.subarray(0, bytesRead)))
    }
    return any
  }

  const flush = async (partialToo: boolean) => {
    if (held.length && partialToo) {
      parser.stats.bytes += held.length
      const text = decodeUtf8(held)
      held = Buffer.alloc(0)
      await emit([...parser.push(text, true), ...parser.end()])
    } else if (parser.hasPending()) {
      await emit(parser.end())
    }
  }

  const run = async () => {
    let resume = await loadOffset(opts.offsetFile)
    while (!signal.aborted) {
      try {
        if (!handle) {
          await openCurrent(resume)
          resume = undefined
          lastData = Date.now()
        }
        if (await drain()) lastData = Date.now()
        let st
        try {
          st = await stat(file)
        } catch {
          st = undefined
        }
        if (st && st.ino !== ino) {
          await drain()
          await flush(true)
          await handle?.close()
          handle = undefined
          position = 0
          restart()
          continue
        }
        if (st && (st.size < position || (await headChanged()))) {
          await flush(true)
          position = 0
          held = Buffer.alloc(0)
          restart()
          continue
        }
        const quiet = Date.now() - lastData
        if (held.length && quiet >= partialAfterMs) await flush(true)
        else if (parser.hasPending() && quiet >= flushAfterMs) await flush(false)
      } catch {
        parser.stats.unparsed.unreadable++
        await handle?.close().catch(() => undefined)
        handle = undefined
      }
      // A record waiting for its continuation is looked at again when its quiet time is up.
      const pendingIn = parser.hasPending() ? Math.max(10, lastData + flushAfterMs - Date.now()) : pollMs
      await sleep(Math.min(pollMs, pendingIn), signal, wake)
    }
    wake.watcher?.close()
    await handle?.close().catch(() => undefined)
  }

  const stats = () => {
    const total = emptyStats()
    addStats(total, finished)
    addStats(total, parser.stats)
    return total
  }
  return { stats, done: run(), stop: () => ctrl.abort() }
}
