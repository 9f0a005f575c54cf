import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fallbackProblems, validateBlocks } from './slack-validate-blocks.js'

/**
 * A local stand-in for slack.com/api and for response_url: records every call, validates each
 * payload (required fields, Block Kit limits) and can answer HTTP 429 with Retry-After, so the bot's
 * real WebClient and Bolt's `respond` are exercised over real HTTP.
 * The lab's live runs (`lab <scenario> --live`) point serve's bot at it too.
 */

export type RecordedCall = { method: string; args: Record<string, any>; at: number; problems: string[]; status: number }

const REQUIRED: Record<string, string[]> = {
  'chat.postMessage': ['channel'],
  'chat.update': ['channel', 'ts'],
  'files.getUploadURLExternal': ['filename', 'length'],
  'files.completeUploadExternal': ['files'],
  'files.info': ['file'],
  'conversations.replies': ['channel', 'ts'],
  'conversations.history': ['channel'],
}

/** A file shared in the stand-in's workspace: what files.info tells and what its private URL serves. */
export type SharedFile = { name: string; bytes: Buffer; size?: number; mode?: string; chunked?: boolean }

export class SlackStandIn {
  readonly calls: RecordedCall[] = []
  readonly responses: RecordedCall[] = []
  readonly uploads = new Map<string, Buffer>()
  private server?: Server
  private limited = new Map<string, { count: number; retryAfterSec: number }>()
  private seq = 0
  /** What apps.connections.open answers (the Socket Mode WebSocket URL). */
  socketUrl = ''
  private waiters: { pred: () => boolean; resolve: () => void }[] = []
  base = ''

  /** auth.test answers invalid_auth this many more times (a revoked or mistyped token). */
  authFailures = 0

  /** The bot token the private file URLs require, as Slack does (`Authorization: Bearer …`). */
  botToken = 'xoxb-test'
  /** Files by id, served by files.info and at their private download URL. */
  readonly files = new Map<string, SharedFile>()
  /** Thread messages by `channel/thread_ts`, parent first, for conversations.replies. */
  readonly threads = new Map<string, Record<string, any>[]>()
  /** A channel's messages, newest first, for conversations.history. */
  readonly histories = new Map<string, Record<string, any>[]>()

  /** Shares a file: its id, to put in a message's `files`. */
  shareFile(file: SharedFile): string {
    const id = `F${String(++this.seq).padStart(8, '0')}`
    this.files.set(id, file)
    return id
  }

  /** Listens on `port` (0: any free one); a stand-in restarted on its old port is Slack coming back. */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r))
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  /** The WebClient's slackApiUrl (it appends the method name). */
  get apiUrl(): string {
    return `${this.base}/api/`
  }

  /** A fresh response_url. */
  responseUrl(): string {
    return `${this.base}/respond/${++this.seq}`
  }

  /** The next `count` calls of `method` get HTTP 429 with Retry-After. */
  rateLimit(method: string, count: number, retryAfterSec: number): void {
    this.limited.set(method, { count, retryAfterSec })
  }

  /** Resolves once `pred` holds (checked after every request), or rejects after `timeoutMs`. */
  waitFor(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (pred()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const w = { pred, resolve }
      this.waiters.push(w)
      setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w)
        reject(new Error(`stand-in: condition not met in ${timeoutMs} ms; calls: ${this.calls.map((c) => c.method).join(', ')}; responses: ${this.responses.length}`))
      }, timeoutMs).unref()
    })
  }

  /** Every problem any payload had. */
  allProblems(): string[] {
    return [...this.calls, ...this.responses].flatMap((c) => c.problems.map((p) => `${c.method}: ${p}`))
  }

  ok(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && c.status === 200)
  }

  /** The port listened on, to start again on it after stop(). */
  get port(): number {
    return Number(new URL(this.base).port)
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()))
  }

  private async handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks)
    const url = new URL(req.url ?? '/', this.base)
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(payload))
      for (const w of [...this.waiters]) if (w.pred()) {
        this.waiters = this.waiters.filter((x) => x !== w)
        w.resolve()
      }
    }
    if (url.pathname.startsWith('/files-pri/')) {
      // Like Slack: without the bot token the private URL redirects to a sign-in page, never the file.
      const id = url.pathname.split('/')[2]
      const file = this.files.get(id)
      const authorized = req.headers.authorization === `Bearer ${this.botToken}`
      this.calls.push({ method: 'download', args: { id, authorized }, at: Date.now(), problems: authorized ? [] : ['download without the bot token'], status: authorized && file ? 200 : 302 })
      if (!authorized || !file) {
        res.writeHead(302, { location: `${this.base}/signin`, 'content-type': 'text/html' })
        res.end('<html>sign in</html>')
      } else {
        // chunked: no content-length, so only counting while reading can tell the size.
        res.writeHead(200, { 'content-type': 'application/octet-stream', ...(file.chunked ? {} : { 'content-length': String(file.bytes.length) }) })
        res.end(file.bytes)
      }
      for (const w of [...this.waiters]) if (w.pred()) {
        this.waiters = this.waiters.filter((x) => x !== w)
        w.resolve()
      }
      return
    }
    if (url.pathname.startsWith('/upload/')) {
      this.uploads.set(url.pathname.slice(8), body)
      this.calls.push({ method: 'upload', args: { id: url.pathname.slice(8), bytes: body.length }, at: Date.now(), problems: body.length ? [] : ['empty upload'], status: 200 })
      return send(200, { ok: true })
    }
    const args = parseBody(req.headers['content-type'] ?? '', body)
    if (url.pathname.startsWith('/respond/')) {
      const problems = [...(args.blocks !== undefined ? validateBlocks(args.blocks) : []), ...fallbackProblems(args.text), ...(args.text || args.blocks ? [] : ['respond: text or blocks required'])]
      this.responses.push({ method: 'respond', args: { ...args, __path: url.pathname }, at: Date.now(), problems, status: 200 })
      return send(200, { ok: true })
    }
    const method = url.pathname.replace(/^\/api\//, '')
    const limit = this.limited.get(method)
    if (limit && limit.count > 0) {
      limit.count--
      this.calls.push({ method, args, at: Date.now(), problems: [], status: 429 })
      return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limit.retryAfterSec) })
    }
    const problems: string[] = []
    for (const f of REQUIRED[method] ?? []) if (args[f] === undefined || args[f] === '') problems.push(`${f} required`)
    if ((method === 'chat.postMessage' || method === 'chat.update') && !args.text && !args.blocks) problems.push('text or blocks required')
    if (args.blocks !== undefined) problems.push(...validateBlocks(args.blocks))
    problems.push(...fallbackProblems(args.text))
    if (typeof args.text === 'string' && args.text.length > 40_000) problems.push('text > 40000')
    this.calls.push({ method, args, at: Date.now(), problems, status: 200 })
    if (problems.length) return send(200, { ok: false, error: method === 'chat.postMessage' || method === 'chat.update' ? 'invalid_blocks' : 'invalid_arguments', problems })
    switch (method) {
      case 'auth.test':
        if (this.authFailures > 0) {
          this.authFailures--
          return send(200, { ok: false, error: 'invalid_auth' })
        }
        return send(200, { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'TTEAM', url: 'https://example.slack.com/' })
      case 'chat.postMessage':
        return send(200, { ok: true, channel: args.channel, ts: `${1700000000 + this.calls.length}.000100` })
      case 'chat.update':
        return send(200, { ok: true, channel: args.channel, ts: args.ts })
      case 'files.getUploadURLExternal': {
        const id = `F${++this.seq}`
        return send(200, { ok: true, upload_url: `${this.base}/upload/${id}`, file_id: id })
      }
      case 'apps.connections.open':
        return send(200, this.socketUrl ? { ok: true, url: this.socketUrl } : { ok: false, error: 'invalid_auth' })
      case 'files.completeUploadExternal':
        return send(200, { ok: true, files: args.files })
      case 'files.info': {
        const f = this.files.get(String(args.file))
        if (!f) return send(200, { ok: false, error: 'file_not_found' })
        const id = String(args.file)
        const download = `${this.base}/files-pri/${id}/download/${encodeURIComponent(f.name)}`
        return send(200, { ok: true, file: { id, name: f.name, size: f.size ?? f.bytes.length, mode: f.mode ?? 'hosted', url_private: download, url_private_download: download } })
      }
      case 'conversations.history':
        return send(200, { ok: true, messages: (this.histories.get(String(args.channel)) ?? []).slice(0, Number(args.limit ?? 100)), has_more: false })
      case 'conversations.replies': {
        const messages = this.threads.get(`${args.channel}/${args.ts}`)
        return send(200, messages ? { ok: true, messages, has_more: false } : { ok: false, error: 'thread_not_found' })
      }
      default:
        return send(200, { ok: true })
    }
  }
}

function parseBody(type: string, body: Buffer): Record<string, any> {
  const text = body.toString('utf8')
  if (type.includes('application/json')) return text ? JSON.parse(text) : {}
  const out: Record<string, any> = {}
  for (const [k, v] of new URLSearchParams(text)) {
    out[k] = /^[[{]/.test(v) ? safeJson(v) : v
  }
  return out
}

function safeJson(v: string): unknown {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}
