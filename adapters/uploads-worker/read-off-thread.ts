import { Worker } from 'node:worker_threads'
import type { Store } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'
import { ArchiveLimitError } from '../logs/open-input.js'
import type { UploadCut, UploadedLog, UploadedRead, UploadedReadOptions } from '../uploaded-logs.js'
import type { WorkerReply } from './messages.js'

/**
 * Uploads are parsed in a worker thread with a time and a memory budget, so a hostile or merely huge
 * upload never holds the event loop that runs the alert loop and answers Slack: the main thread only
 * appends the batches the worker posts. Past a budget the worker is stopped and the caller gets an
 * UploadBudgetError that says which budget, in words fit for the user.
 */

/**
 * How long and how much heap one request's uploads may take to parse, and how many signals (and how
 * many characters of them) the main thread takes from the worker into the request's store: a 50 MiB
 * bundle may expand to 4 GiB, and every signal taken is held on the thread that answers Slack.
 */
export type UploadBudget = { timeMs: number; heapMiB: number; signals?: number; signalChars?: number }

/**
 * Defaults: 120 s and 512 MiB of heap — a day of a busy broker's server.log parses in a fraction of
 * either; 200,000 signals and 64 Mi characters of them (text, labels, source), about 250 MiB of heap
 * on the main thread at most, where a day of a busy broker yields a few thousand.
 */
export const DEFAULT_UPLOAD_BUDGET: Required<UploadBudget> = { timeMs: 120_000, heapMiB: 512, signals: 200_000, signalChars: 64 * 1024 ** 2 }

/** The characters a signal holds on the main thread (text, source, labels, names), as the caps count them. */
export function signalChars(s: Signal): number {
  let n = s.name.length + s.cluster.length + (s.broker?.length ?? 0) + (s.source?.length ?? 0) + (s.text?.length ?? 0)
  if (s.labels) for (const k in s.labels) n += k.length + String(s.labels[k]).length
  return n
}

/** Parsing uploads went past its time or memory budget; the message is meant for the user. */
export class UploadBudgetError extends Error {
  override readonly name = 'UploadBudgetError'
}

/** readUploadedLogs, run in a worker thread under `budget`; signals are appended to `store` here. */
export async function readUploadedLogsOffThread(uploads: readonly UploadedLog[], store: Pick<Store, 'append'>, opts: UploadedReadOptions, budget: UploadBudget = DEFAULT_UPLOAD_BUDGET): Promise<UploadedRead> {
  const maxSignals = budget.signals ?? DEFAULT_UPLOAD_BUDGET.signals
  const maxChars = budget.signalChars ?? DEFAULT_UPLOAD_BUDGET.signalChars
  // The bytes are copied once into buffers of their own and handed over, not serialized on this thread.
  const copies = uploads.map((u) => ({ name: u.name, bytes: new Uint8Array(u.bytes) }))
  const worker = new Worker(new URL('./entry.mjs', import.meta.url), {
    workerData: { uploads: copies, opts },
    transferList: copies.map((c) => c.bytes.buffer),
    resourceLimits: { maxOldGenerationSizeMb: budget.heapMiB, maxYoungGenerationSizeMb: Math.min(64, Math.max(4, Math.round(budget.heapMiB / 8))) },
  })
  let accepted = 0
  let taken = 0
  let chars = 0
  let cut: UploadCut | undefined
  /** The part of a batch that fits the caps; what does not is counted, never held. */
  const within = (batch: Signal[]): Signal[] => {
    if (!Array.isArray(batch)) return []
    if (cut) {
      cut.signals += batch.length
      return []
    }
    for (let n = 0; n < batch.length; n++) {
      const size = signalChars(batch[n])
      if (taken + 1 > maxSignals || chars + size > maxChars) {
        cut = { signals: batch.length - n, limit: taken + 1 > maxSignals ? 'signals' : 'characters', kept: taken }
        return batch.slice(0, n)
      }
      taken++
      chars += size
    }
    return batch
  }
  // Appends run in order, one after another, as the batches arrive.
  let appended: Promise<unknown> = Promise.resolve()
  try {
    return await new Promise<UploadedRead>((resolve, reject) => {
      const timer = setTimeout(() => reject(new UploadBudgetError(`Reading these logs took longer than ${duration(budget.timeMs)}, the most I spend on shared logs. Share the part around the incident (a few hours of server.log and gc.log).`)), budget.timeMs)
      const settle = <T>(fn: (v: T) => void) => (v: T) => {
        clearTimeout(timer)
        fn(v)
      }
      const ok = settle(resolve)
      const fail = settle(reject)
      worker.on('message', (m: WorkerReply) => {
        if (m.kind === 'batch') {
          // Past a cap the worker reads on (its summary still counts every line), but nothing more is kept.
          const kept = within(m.batch)
          if (kept.length === 0) return
          appended = appended.then(async () => {
            accepted += (await store.append(kept)).accepted
          })
          appended.catch(fail)
        } else if (m.kind === 'done') appended.then(() => ok({ ...m.read, accepted, ...(cut ? { cut } : {}) }), fail)
        else fail(m.limit ? new ArchiveLimitError(m.message) : new Error(`reading uploads failed: ${m.message}`))
      })
      worker.on('error', (err: Error & { code?: string }) => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(new UploadBudgetError(`Reading these logs needed more than ${budget.heapMiB} MiB of memory, the most I spend on shared logs. Share the part around the incident (a few hours of server.log and gc.log).`))
        else fail(new Error(`reading uploads failed: ${err.message}`))
      })
      // After the batches and the summary it posted (messages arrive before the exit).
      worker.on('exit', (code) => void appended.then(() => fail(new Error(`the upload reader stopped (exit ${code}) before it finished`)), () => undefined))
    })
  } finally {
    await worker.terminate()
  }
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`
}
