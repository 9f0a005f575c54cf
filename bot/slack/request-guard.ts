import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Store } from '../../engine/store/store.js'

/**
 * The checks every request from Slack passes before Bolt sees it, in the order that costs an
 * attacker the most and the bot the least: the declared size (refused before a byte of the body is
 * read), the size actually read (refused at the limit, the rest never buffered), the timestamp
 * (more than five minutes either way is refused; Bolt alone accepts any future time), the v0
 * signature, and last the replay cache in the store, so a signed request is accepted once across
 * every replica sharing the store. Bolt's own checks still run after these.
 */

/** Slack's own payloads stay far below this; larger bodies are refused unread. */
export const MAX_BODY_BYTES = 1024 * 1024
/**
 * Requests read at once before their signature is checked: each may hold up to MAX_BODY_BYTES
 * while it arrives, so this bounds what strangers can make the bot buffer (150 held 1 MiB bodies
 * were +134 MiB RSS). Slack sends a few requests a second; a burst beyond this is answered 503 and
 * Slack retries it.
 */
export const MAX_PENDING_REQUESTS = 32

/** Slack's documented tolerance for the request timestamp, applied both ways. */
export const MAX_SKEW_MS = 5 * 60_000

export type RequestGuardOptions = {
  signingSecret: string
  store: Pick<Store, 'claimOnce'>
  maxBodyBytes?: number
  /** Requests being read (not yet checked) at once; default MAX_PENDING_REQUESTS. */
  maxPending?: number
  /** Epoch ms. */
  now?: () => number
  log: { warn(...a: unknown[]): void; error(...a: unknown[]): void }
}

/** What a refused request is answered with, by reason (counted in tests and logs). */
export type Refusal = { status: number; reason: string }

/** Wraps Bolt's request listener; only requests that pass reach it, with their body already read. */
export function guardSlackRequests(listener: RequestListener, opts: RequestGuardOptions): RequestListener {
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES
  const maxPending = opts.maxPending ?? MAX_PENDING_REQUESTS
  let pending = 0
  const now = opts.now ?? Date.now
  const refuse = (req: IncomingMessage, res: ServerResponse, r: Refusal) => {
    opts.log.warn(`slack request refused (${r.status}): ${r.reason}`)
    if (!res.headersSent) res.writeHead(r.status, { 'content-type': 'text/plain', connection: 'close' })
    res.end(`${r.reason}\n`)
    // Stop reading whatever the client still sends; the socket closes once the answer is out.
    req.unpipe()
    req.resume()
    res.once('finish', () => req.socket.destroy())
  }
  return (req, res) => {
    if (req.method !== 'POST') return listener(req, res)
    const declared = Number(req.headers['content-length'] ?? NaN)
    if (Number.isFinite(declared) && declared > limit) return refuse(req, res, { status: 413, reason: `body of ${declared} bytes exceeds ${limit}` })
    if (pending >= maxPending) return refuse(req, res, { status: 503, reason: `${pending} requests are being read already; retry` })
    pending++
    let counted = true
    const done = () => {
      if (counted) pending--
      counted = false
    }
    req.once('close', done)
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    req.on('data', (c: Buffer) => {
      if (over) return
      size += c.length
      if (size > limit) {
        over = true
        chunks.length = 0
        refuse(req, res, { status: 413, reason: `body exceeds ${limit} bytes` })
        return
      }
      chunks.push(c)
    })
    req.on('error', () => undefined)
    req.on('end', () => {
      done()
      if (over) return
      const body = Buffer.concat(chunks)
      void check(req, body, opts, now()).then(
        (refusal) => {
          if (refusal) return refuse(req, res, refusal)
          // Bolt reads the already-buffered body from here instead of the spent stream.
          ;(req as IncomingMessage & { rawBody?: Buffer }).rawBody = body
          listener(req, res)
        },
        (err: unknown) => {
          opts.log.error('slack request: replay cache unavailable, refusing', err)
          refuse(req, res, { status: 503, reason: 'cannot check the request against the replay cache; retry' })
        },
      )
    })
  }
}

async function check(req: IncomingMessage, body: Buffer, opts: RequestGuardOptions, nowMs: number): Promise<Refusal | undefined> {
  const type = String(req.headers['content-type'] ?? '')
  // Slack's certificate check carries no signature; Bolt answers it and drops anything else in it.
  if (type.startsWith('application/x-www-form-urlencoded') && new URLSearchParams(body.toString('utf8')).get('ssl_check') === '1') return undefined
  const tsHeader = req.headers['x-slack-request-timestamp']
  const signature = req.headers['x-slack-signature']
  if (typeof tsHeader !== 'string' || !/^\d{1,12}$/.test(tsHeader) || typeof signature !== 'string') return { status: 401, reason: 'missing or malformed signature headers' }
  const skewMs = Number(tsHeader) * 1000 - nowMs
  if (skewMs > MAX_SKEW_MS) return { status: 401, reason: 'request timestamp is more than 5 minutes in the future' }
  if (skewMs < -MAX_SKEW_MS) return { status: 401, reason: 'request timestamp is more than 5 minutes old' }
  const expected = `v0=${createHmac('sha256', opts.signingSecret).update(`v0:${tsHeader}:`).update(body).digest('hex')}`
  const a = Buffer.from(signature)
  const b = Buffer.from(expected)
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { status: 401, reason: 'signature mismatch' }
  // Held for both halves of the window, so a replay inside it is caught whatever its timestamp.
  if (!(await opts.store.claimOnce(`slack:${signature.slice(3)}`, 2 * MAX_SKEW_MS))) return { status: 409, reason: 'request already accepted once (replay)' }
  return undefined
}
