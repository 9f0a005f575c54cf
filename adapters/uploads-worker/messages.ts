import type { Signal } from '../../signals/signal.js'
import type { UploadedRead } from '../uploaded-logs.js'

/** What the upload worker posts: signal batches as they are read, then the read's summary or its failure. */
export type WorkerReply = { kind: 'batch'; batch: Signal[] } | { kind: 'done'; read: UploadedRead } | { kind: 'failed'; limit: boolean; message: string }
