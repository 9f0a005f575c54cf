import { Worker } from 'node:worker_threads'
import type { Store } from '../../engine/store/store.js'
import { ArchiveLimitError } from '../logs/open-input.js'
import type { UploadedLog, UploadedRead, UploadedReadOptions } from '../uploaded-logs.js'
import type { WorkerReply } from './messages.js'

/**
 * Uploads are parsed in a worker thread with a time and a memory budget, so a hostile or merely huge
 * upload never holds the event loop that runs the alert loop and answers Slack: the main thread only
 * appends the batches the worker posts. Past a budget the worker is stopped and the caller gets an
 * UploadBudgetError that says which budget, in words fit for the user.
 */

/** How long and how much heap one request's uploads may take to parse. */
export type UploadBudget = { timeMs: number; heapMiB: number }

/** Defaults: 120 s and 512 MiB of heap — a day of a busy broker's server.log parses in a fraction of either. */
export const DEFAULT_UPLOAD_BUDGET: UploadBudget = { timeMs: 120_000, heapMiB: 512 }

/** Parsing uploads went past its time or memory budget; the message is meant for the user. */
export class UploadBudgetError extends Error {
  override readonly name = 'UploadBudgetError'
}

/** readUploadedLogs, run in a worker thread under `budget`; signals are appended to `store` here. */
export async function readUploadedLogsOffThread(uploads: readonly UploadedLog[], store: Pick<Store, 'append'>, opts: UploadedReadOptions, budget: UploadBudget = DEFAULT_UPLOAD_BUDGET): Promise<UploadedRead> {
  // The bytes are copied once into buffers of their own and handed over, not serialized on this thread.
  const copies = uploads.map((u) => ({ name: u.name, bytes: new Uint8Array(u.bytes) }))
  const worker = new Worker(new URL('./entry.mjs', import.meta.url), {
    workerData: { uploads: copies, opts },
    transferList: copies.map((c) => c.bytes.buffer),
    resourceLimits: { maxOldGenerationSizeMb: budget.heapMiB, maxYoungGenerationSizeMb: Math.min(64, Math.max(4, Math.round(budget.heapMiB / 8))) },
  })
  let accepted = 0
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
          appended = appended.then(async () => {
            accepted += (await store.append(m.batch)).accepted
          })
          appended.catch(fail)
        } else if (m.kind === 'done') appended.then(() => ok({ ...m.read, accepted }), fail)
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
