import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import type { Signal } from '../signals/signal.js'

/**
 * Signals that must wait for the end of their input (records naming no broker, whose broker may be
 * named later in the file), held in memory up to a count and written to a private temporary file
 * past it: a 1 GiB server.log held every unnamed signal (about a quarter of its 3.6 M) in memory
 * until its last line. Read back in the order they were held, then the file is removed.
 */
export class SignalSpill {
  private held: Signal[] = []
  private dir?: string
  private file?: string
  private out?: WriteStream
  private spilled = 0

  /** `inMemory`: signals kept in memory before anything is written to disk. */
  constructor(private readonly inMemory: number) {}

  /** How many signals are held, in memory and on disk. */
  get size(): number {
    return this.spilled + this.held.length
  }

  async add(s: Signal): Promise<void> {
    this.held.push(s)
    if (this.held.length >= this.inMemory) await this.flush()
  }

  /** Everything held, in order, in batches of at most `batchSize`; the file goes once it is read. */
  async *drain(batchSize: number): AsyncIterable<Signal[]> {
    try {
      if (!this.file) {
        for (let i = 0; i < this.held.length; i += batchSize) yield this.held.slice(i, i + batchSize)
        this.held = []
        return
      }
      await this.flush()
      const out = this.out!
      out.end()
      await once(out, 'finish')
      this.out = undefined
      let batch: Signal[] = []
      for await (const line of createInterface({ input: createReadStream(this.file), crlfDelay: Infinity })) {
        batch.push(JSON.parse(line) as Signal)
        if (batch.length >= batchSize) {
          yield batch
          batch = []
        }
      }
      if (batch.length) yield batch
    } finally {
      await this.dispose()
    }
  }

  /** Removes the temporary file (also when the reader stopped early or failed). */
  async dispose(): Promise<void> {
    this.held = []
    this.out?.destroy()
    this.out = undefined
    if (this.dir) await rm(this.dir, { recursive: true, force: true })
    this.dir = undefined
    this.file = undefined
  }

  private async flush(): Promise<void> {
    if (this.held.length === 0) return
    if (!this.out) {
      this.dir = await mkdtemp(path.join(tmpdir(), 'kafka-why-spill-'))
      this.file = path.join(this.dir, 'unnamed.jsonl')
      this.out = createWriteStream(this.file, { mode: 0o600 })
    }
    const text = `${this.held.map((s) => JSON.stringify(s)).join('\n')}\n`
    this.spilled += this.held.length
    this.held = []
    if (!this.out.write(text)) await once(this.out, 'drain')
  }
}
