import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { MAX_BODY_BYTES } from '../../bot/slack/request-guard.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { testContext, type TestContext } from './support/bot-context.js'
import { startHttpBot } from './support/http-bot.js'

const SECRET = 'guard-signing-secret-0123456789'

/** Sends `total` bytes of body in 1 MiB chunks as fast as the socket takes them; resolves with the status (or the socket error). */
function sendLarge(port: number, total: number, headers: Record<string, string>): Promise<{ status?: number; error?: string; sent: number }> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61)
    let sent = 0
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/slack/events', headers }, (res) => {
      res.resume()
      resolve({ status: res.statusCode, sent })
    })
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message, sent }))
    const pump = () => {
      while (sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  })
}

describe('bot/slack/request-guard (through the HTTP receiver)', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let t: TestContext
  let port: number
  let url: string

  beforeAll(async () => {
    await slack.start()
    t = await testContext()
    ;({ bot, port, url } = await startHttpBot(t.ctx, slack, SECRET))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
  })

  const silenceBody = () =>
    new URLSearchParams({ token: 'x', team_id: 'TTEAM', channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text: 'silence stw_pause_session_expiry 1h', response_url: slack.responseUrl(), trigger_id: '1' }).toString()

  it('accepts a signed request once: two replays of it are refused and one silence exists', async () => {
    const before = (await t.store.listSilences(t.ctx.now())).length
    const body = silenceBody()
    const headers = signedHeaders(SECRET, body)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await fetch(url, { method: 'POST', body, headers })).status)
    expect(statuses).toEqual([200, 409, 409])
    await slack.waitFor(() => slack.responses.some((r) => /Silenced/.test(String(r.args.text))))
    await new Promise((r) => setTimeout(r, 300))
    expect((await t.store.listSilences(t.ctx.now())).length).toBe(before + 1)
  })

  it.each([
    ['a year in the future', 365 * 86_400],
    ['6 minutes in the future', 360],
    ['6 minutes old', -360],
  ])('refuses a validly signed request stamped %s', async (_, offsetSec) => {
    const body = silenceBody()
    const res = await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body, Math.floor(Date.now() / 1000) + offsetSec) })
    expect(res.status).toBe(401)
    expect(await res.text()).toMatch(/more than 5 minutes/)
  })

  it('accepts a request stamped 4 minutes ahead (clock skew within Slack\'s tolerance)', async () => {
    const body = new URLSearchParams({ token: 'x', team_id: 'TTEAM', channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text: 'help', response_url: slack.responseUrl(), trigger_id: '1' }).toString()
    const res = await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body, Math.floor(Date.now() / 1000) + 240) })
    expect(res.status).toBe(200)
  })

  it('refuses a body declared over 1 MiB before reading it, and one sent chunked at the limit', async () => {
    const declared = await sendLarge(port, 2 * MAX_BODY_BYTES, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(2 * MAX_BODY_BYTES) })
    expect(declared.status ?? declared.error).toSatisfy((s: unknown) => s === 413 || s === 'EPIPE' || s === 'ECONNRESET')
    const chunked = await sendLarge(port, 4 * MAX_BODY_BYTES, { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' })
    expect(chunked.status ?? chunked.error).toSatisfy((s: unknown) => s === 413 || s === 'EPIPE' || s === 'ECONNRESET')
    // The bot still answers afterwards.
    const body = silenceBody()
    expect((await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })).status).toBe(200)
  })

  it('does not buffer a 100 MiB unsigned body: resident memory grows by far less than the body', async () => {
    const total = 100 * 1024 * 1024
    global.gc?.()
    const before = process.memoryUsage().rss
    const chunked = await sendLarge(port, total, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })
    const after = process.memoryUsage().rss
    const growthMiB = (after - before) / 1024 / 1024
    console.log(`request-guard: 100 MiB unsigned chunked body → ${chunked.status ?? chunked.error} after ${(chunked.sent / 1024 / 1024).toFixed(0)} MiB written; RSS growth ${growthMiB.toFixed(1)} MiB`)
    expect(chunked.status ?? chunked.error).toSatisfy((s: unknown) => s === 413 || s === 'EPIPE' || s === 'ECONNRESET')
    expect(growthMiB).toBeLessThan(50)
  })
})
