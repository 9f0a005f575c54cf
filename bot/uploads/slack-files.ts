import type { UploadedLog } from '../../adapters/uploaded-logs.js'
import { UserError } from '../errors.js'
import type { SlackCall } from '../slack/slack-poster.js'

/**
 * Fetching the logs a user shared in a thread: which files a mention points at (its own files, else
 * the thread's), each file's download address taken from `files.info` for that file id only — never
 * an address a message carries — and the download itself with the bot token, stopped at a size cap
 * while reading so an oversized file never sits in memory.
 */

/** Largest file the bot downloads: big enough for a day of a broker's server.log, zipped or not. */
export const MAX_UPLOAD_BYTES = 50 * 1024 ** 2

/** Files read from one thread at most: a support bundle is one file; a handful of logs is enough. */
export const MAX_UPLOAD_FILES = 10

/** Where downloads may come from: Slack's file host, and the configured API's own host (a stand-in). */
export type DownloadOptions = { token: string; maxBytes?: number; allowedOrigins: string[]; fetchImpl?: typeof fetch }

/** The download origins for a deployment: Slack's, plus the origin of a configured `slackApiUrl`. */
export function downloadOrigins(slackApiUrl: string | undefined): string[] {
  const out = ['https://files.slack.com']
  if (slackApiUrl) out.push(new URL(slackApiUrl).origin)
  return out
}

/** A Slack message as conversations.replies and events give it: the fields read here. */
export type SharedMessage = { ts?: string; text?: string; files?: { id?: string }[] }

/**
 * The messages of a thread, parent first (at most 50): where a mention finds the files and pasted
 * lines it is about when it carries none itself.
 */
export async function threadMessages(call: SlackCall, channel: string, threadTs: string): Promise<SharedMessage[]> {
  const r = await call('conversations.replies', { channel, ts: threadTs, limit: 50 })
  return Array.isArray(r.messages) ? (r.messages as SharedMessage[]) : []
}

/**
 * Lines pasted in code blocks (```…```), as one log: Slack escapes `&`, `<` and `>` in message text,
 * so they are unescaped back to what the broker wrote.
 */
export function pastedLines(messages: readonly SharedMessage[]): UploadedLog | undefined {
  const blocks: string[] = []
  for (const m of messages) {
    for (const b of (m.text ?? '').matchAll(/```([\s\S]*?)```/g)) {
      const text = b[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/^\n+|\n+$/g, '')
      if (text.trim()) blocks.push(text)
    }
  }
  return blocks.length ? { name: 'pasted.log', bytes: Buffer.from(`${blocks.join('\n')}\n`, 'utf8') } : undefined
}

/** File ids of the messages, in order, without repeats, at most MAX_UPLOAD_FILES. */
export function sharedFileIds(messages: readonly SharedMessage[]): string[] {
  const ids: string[] = []
  for (const m of messages) for (const f of m.files ?? []) if (typeof f.id === 'string' && /^F[A-Z0-9]+$/.test(f.id) && !ids.includes(f.id)) ids.push(f.id)
  if (ids.length > MAX_UPLOAD_FILES) throw new UserError(`This thread shares ${ids.length} files; I read at most ${MAX_UPLOAD_FILES}. Zip the logs into one bundle and share that.`)
  return ids
}

/**
 * One shared file's name and bytes: `files.info` for the id, a size check against the cap, then the
 * private download with `Authorization: Bearer`, stopped as soon as the cap is passed. Refusals are
 * UserErrors naming the file; the body of a failed download is never shown.
 */
export async function downloadSharedFile(call: SlackCall, fileId: string, opts: DownloadOptions): Promise<UploadedLog> {
  const max = opts.maxBytes ?? MAX_UPLOAD_BYTES
  const info = await call('files.info', { file: fileId })
  const file = (info.file ?? {}) as { id?: string; name?: string; size?: number; url_private_download?: string; url_private?: string; mode?: string }
  const name = typeof file.name === 'string' && file.name ? file.name : fileId
  if (file.id !== undefined && file.id !== fileId) throw new Error(`files.info answered for ${String(file.id)}, asked ${fileId}`)
  if (file.mode === 'external') throw new UserError(`${name} is not a file uploaded to Slack; upload the log itself (or paste the lines in a code block).`)
  if (typeof file.size === 'number' && file.size > max) throw new UserError(`${name} is ${mib(file.size)}; I read files up to ${mib(max)}. Share the part around the incident, or zip the logs.`)
  const address = file.url_private_download ?? file.url_private
  if (typeof address !== 'string') throw new UserError(`Slack gave no download address for ${name}.`)
  let url: URL
  try {
    url = new URL(address)
  } catch {
    throw new Error(`files.info gave a malformed address for ${fileId}`)
  }
  if (!opts.allowedOrigins.includes(url.origin)) throw new Error(`files.info gave a download address outside ${opts.allowedOrigins.join(', ')} for ${fileId}`)
  const res = await (opts.fetchImpl ?? fetch)(url, { headers: { authorization: `Bearer ${opts.token}` }, redirect: 'manual', signal: AbortSignal.timeout(60_000) })
  if (res.status !== 200 || /text\/html/i.test(res.headers.get('content-type') ?? '')) {
    await res.body?.cancel()
    throw new UserError(`Slack did not hand over ${name} (HTTP ${res.status}). The app needs the files:read scope and access to this conversation.`)
  }
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (declared > max) {
    await res.body?.cancel()
    throw new UserError(`${name} is ${mib(declared)}; I read files up to ${mib(max)}. Share the part around the incident, or zip the logs.`)
  }
  const parts: Buffer[] = []
  let got = 0
  if (res.body) {
    const reader = res.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      got += value.length
      if (got > max) {
        await reader.cancel()
        throw new UserError(`${name} is larger than ${mib(max)}, the most I read. Share the part around the incident, or zip the logs.`)
      }
      parts.push(Buffer.from(value))
    }
  }
  return { name, bytes: Buffer.concat(parts) }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`
}
