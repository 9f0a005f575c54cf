import { open } from 'node:fs/promises'
import type { Signal } from '../../signals/signal.js'
import { LogParser, type ParserLimits } from './parser.js'
import type { LogSourceConfig, ParseStats } from './types.js'

/**
 * Replay of one log file of any size: read in large chunks cut at a newline, decode (invalid UTF-8
 * becomes U+FFFD and is counted by the parser), and yield each chunk's signals. Memory stays at about
 * one chunk however large the file.
 */

/** Past this many bytes without a newline the bytes are dropped (and counted) up to the next newline. */
const MAX_LINE_BYTES = 64 * 1024 * 1024

/** Options for reading a file; `chunkBytes` trades memory for fewer calls. */
export type ReadLogOptions = { chunkBytes?: number; limits?: Partial<ParserLimits> }

/** A file being replayed: its signals as batches, and the parser's counters once read. */
export type LogFileReader = { batches: AsyncIterable<Signal[]>; stats: ParseStats; parser: LogParser }

/** Opens a log file for replay. Read errors end the batches and are counted as `unreadable`. */
export function readLogFile(cfg: LogSourceConfig, file: string, opts: ReadLogOptions = {}): LogFileReader {
  const parser = new LogParser(cfg, opts.limits)
  const chunkBytes = opts.chunkBytes ?? 4 * 1024 * 1024
  async function* batches(): AsyncGenerator<Signal[]> {
    let fh
    try {
      fh = await open(file, 'r')
    } catch {
      parser.stats.unparsed.unreadable++
      return
    }
    try {
      let buf = Buffer.allocUnsafe(chunkBytes)
      let held = 0
      let skipping = false
      for (;;) {
        if (held === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2)
          buf.copy(bigger, 0, 0, held)
          buf = bigger
        }
        let n: number
        try {
          ;({ bytesRead: n } = await fh.read(buf, held, buf.length - held, null))
        } catch {
          parser.stats.unparsed.unreadable++
          break
        }
        if (n === 0) break
        const filled = held + n
        const cut = buf.lastIndexOf(10, filled - 1) + 1
        if (cut === 0) {
          held = filled
          if (held >= MAX_LINE_BYTES) {
            // A "line" this long is not a log line: count it and drop bytes up to its end.
            parser.stats.unparsed['line-too-long']++
            parser.stats.bytes += held
            held = 0
            skipping = true
          }
          continue
        }
        let begin = 0
        if (skipping) {
          begin = buf.indexOf(10) + 1
          parser.stats.bytes += begin
          skipping = false
        }
        parser.stats.bytes += cut - begin
        const out = parser.push(buf.toString('utf8', begin, cut))
        held = filled - cut
        buf.copy(buf, 0, cut, filled)
        if (out.length) yield out
      }
      parser.stats.bytes += held
      const tail = parser.push(skipping ? '' : buf.toString('utf8', 0, held), true)
      const rest = parser.end()
      if (tail.length || rest.length) yield [...tail, ...rest]
    } finally {
      await fh.close()
    }
  }
  return { batches: batches(), stats: parser.stats, parser }
}
