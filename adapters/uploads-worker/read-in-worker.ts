import { parentPort, workerData } from 'node:worker_threads'
import type { Signal } from '../../signals/signal.js'
import { ArchiveLimitError } from '../logs/open-input.js'
import { readUploadedLogs, type UploadedLog, type UploadedReadOptions } from '../uploaded-logs.js'
import type { WorkerReply } from './messages.js'

/**
 * The worker side of readUploadedLogsOffThread: reads the uploads it was handed and posts their signals
 * back in batches, then what was read. The store stays on the main thread; this thread holds only the
 * bytes and one batch at a time, under the memory limit it was started with.
 */

const { uploads, opts } = workerData as { uploads: UploadedLog[]; opts: UploadedReadOptions }
const port = parentPort!
const post = (m: WorkerReply) => port.postMessage(m)

/** Signals per message: the main thread appends one message at a time, so no append holds its loop long. */
const SLICE = 2000

const sink = {
  async append(batch: Signal[]) {
    for (let i = 0; i < batch.length; i += SLICE) post({ kind: 'batch', batch: batch.slice(i, i + SLICE) })
    return { accepted: batch.length, rejected: {} }
  },
}

try {
  const read = await readUploadedLogs(
    uploads.map((u) => ({ name: u.name, bytes: Buffer.from(u.bytes.buffer, u.bytes.byteOffset, u.bytes.byteLength) })),
    sink,
    opts,
  )
  post({ kind: 'done', read })
} catch (err) {
  post({ kind: 'failed', limit: err instanceof ArchiveLimitError, message: err instanceof Error ? err.message : String(err) })
}
