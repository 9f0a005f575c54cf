import type { BotMessage } from '../message.js'
import { toBlockKit } from '../render/block-kit.js'

/**
 * Everything the bot sends to Slack on its own (alerts, digests, audit posts) goes through here: one
 * FIFO queue per channel, so an alert's update never overtakes its first post, and HTTP 429 answers
 * are waited out for the Retry-After the server gave and then retried, so nothing is dropped.
 */

/** One Web API call; with Bolt this is `client.apiCall` on a WebClient with rejectRateLimitedCalls. */
export type SlackCall = (method: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>

/** Injection points for tests and the retry budget for transport failures. */
export type PosterOptions = {
  /** Waits; injectable so tests can count waits without sleeping. */
  sleep?: (ms: number) => Promise<void>
  /** Uploads bytes to files.getUploadURLExternal's upload_url. */
  upload?: (url: string, data: Buffer) => Promise<void>
  log?: { warn(...a: unknown[]): void }
  /** Retries for transport failures (not 429, which is retried as long as Slack asks). */
  transportRetries?: number
}

const RATE_LIMITED = 'slack_webapi_rate_limited_error'
const TRANSPORT = new Set(['slack_webapi_request_error', 'slack_webapi_http_error'])

/** Per-channel FIFO queues over the Web API, retrying through 429s. */
export class SlackPoster {
  private readonly queues = new Map<string, Promise<unknown>>()
  private readonly sleep: (ms: number) => Promise<void>
  private readonly upload: (url: string, data: Buffer) => Promise<void>
  /** Total time spent waiting out 429s, for the status line and tests. */
  rateLimitedWaitMs = 0
  rateLimitedCount = 0

  constructor(
    private readonly call: SlackCall,
    private readonly opts: PosterOptions = {},
  ) {
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
    this.upload = opts.upload ?? defaultUpload
  }

  /** Runs `task` after every earlier task of the same channel has finished. */
  enqueue<T>(channel: string, task: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(channel) ?? Promise.resolve()
    const next = prev.then(task, task)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    this.queues.set(channel, settled)
    void settled.then(() => {
      if (this.queues.get(channel) === settled) this.queues.delete(channel)
    })
    return next
  }

  /** Waits until every queued call has run. */
  async drain(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()])
  }

  /** A Web API call in the channel's queue, retried through 429s. */
  callInChannel(channel: string, method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.enqueue(channel, () => this.withRetry(method, args))
  }

  /** Posts a message (optionally in a thread); resolves with its ts. */
  async postMessage(channel: string, msg: BotMessage, thread?: { ts: string; broadcast?: boolean }): Promise<{ channel: string; ts: string }> {
    const payload = toBlockKit(msg)
    const args: Record<string, unknown> = { channel, text: payload.text, blocks: payload.blocks, unfurl_links: false }
    if (thread) {
      args.thread_ts = thread.ts
      if (thread.broadcast) args.reply_broadcast = true
    }
    const res = await this.callInChannel(channel, 'chat.postMessage', args)
    return { channel: String(res.channel ?? channel), ts: String(res.ts) }
  }

  /** Edits a message in place. */
  async update(channel: string, ts: string, msg: BotMessage): Promise<void> {
    const payload = toBlockKit(msg)
    await this.callInChannel(channel, 'chat.update', { channel, ts, text: payload.text, blocks: payload.blocks })
  }

  /**
   * Uploads a file to a channel the current way (files.getUploadURLExternal, then the bytes, then
   * files.completeUploadExternal), queued behind the channel's messages.
   */
  async uploadFile(channel: string, file: { filename: string; title: string; data: Buffer }, opts: { threadTs?: string; comment?: string } = {}): Promise<string> {
    return this.enqueue(channel, async () => {
      const url = await this.withRetry('files.getUploadURLExternal', { filename: file.filename, length: file.data.length })
      await this.upload(String(url.upload_url), file.data)
      const complete: Record<string, unknown> = { files: [{ id: String(url.file_id), title: file.title }], channel_id: channel }
      if (opts.threadTs) complete.thread_ts = opts.threadTs
      if (opts.comment) complete.initial_comment = opts.comment
      await this.withRetry('files.completeUploadExternal', complete)
      return String(url.file_id)
    })
  }

  /**
   * A call outside any queue, still retried through 429s. For work already running inside a
   * channel's queue (enqueue), which must not wait behind itself.
   */
  async callNow(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.withRetry(method, args)
  }

  private async withRetry(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    let transportFailures = 0
    for (;;) {
      try {
        return await this.call(method, args)
      } catch (err) {
        const e = err as { code?: string; retryAfter?: number }
        if (e.code === RATE_LIMITED) {
          const waitMs = Math.max(1, Number(e.retryAfter ?? 1)) * 1000
          this.rateLimitedCount++
          this.rateLimitedWaitMs += waitMs
          this.opts.log?.warn(`slack ${method} rate limited; retrying in ${waitMs} ms`)
          await this.sleep(waitMs)
          continue
        }
        if (e.code && TRANSPORT.has(e.code) && transportFailures < (this.opts.transportRetries ?? 3)) {
          transportFailures++
          await this.sleep(500 * 2 ** transportFailures)
          continue
        }
        throw err
      }
    }
  }
}

/** chat.postMessage / chat.update arguments for a message. */
export function messageArgs(channel: string, msg: BotMessage): Record<string, unknown> {
  const payload = toBlockKit(msg)
  return { channel, text: payload.text, blocks: payload.blocks }
}

async function defaultUpload(url: string, data: Buffer): Promise<void> {
  const res = await fetch(url, { method: 'POST', body: new Uint8Array(data), headers: { 'content-type': 'application/octet-stream' } })
  if (!res.ok) throw new Error(`file upload failed: HTTP ${res.status}`)
}
