import { createServer, type Server } from 'node:net'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSlackBot, type SlackBot } from '../../bot/app.js'
import { MAX_PENDING_REQUESTS } from '../../bot/slack/request-guard.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { testContext, type TestContext } from './support/bot-context.js'

// Connections a stranger holds open cost the bot nothing for long: headers and bodies have a
// deadline, and only so many unsigned requests are read at once (150 connections each sending
// 1 MiB − 1 byte and never finishing were all held, +134 MiB RSS; a trickling one was closed after
// 278 s). And while Slack's Web API cannot be reached, a signed command is still accepted and
// answered through its response_url (it was refused 401 "Authorization of incoming event did not
// succeed").

const SECRET = 'connections-signing-secret-01234'

/** A raw connection that sends `head` and then nothing; resolves with what the server wrote and when it closed. */
function hold(port: number, head: string): { socket: Socket; closed: Promise<{ ms: number; answer: string }> } {
  const started = performance.now()
  const socket = connect(port, '127.0.0.1')
  let answer = ''
  socket.on('data', (d) => (answer += d.toString('latin1')))
  socket.on('error', () => undefined)
  socket.write(head)
  const closed = new Promise<{ ms: number; answer: string }>((resolve) => socket.on('close', () => resolve({ ms: performance.now() - started, answer })))
  return { socket, closed }
}

const postHead = (length: number) => `POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`

describe('bot/app connections (the real HTTP receiver)', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let t: TestContext
  let port: number
  let deadApi: Server
  let deadUrl: string

  beforeAll(async () => {
    await slack.start()
    t = await testContext()
    // Slack's Web API "unreachable": a port that accepts and immediately closes every connection.
    deadApi = createServer((s) => s.destroy())
    await new Promise<void>((r) => deadApi.listen(0, '127.0.0.1', () => r()))
    deadUrl = `http://127.0.0.1:${(deadApi.address() as { port: number }).port}/api/`
    bot = createSlackBot({ mode: 'http', botToken: 'xoxb-test', signingSecret: SECRET, port: 0, slackApiUrl: deadUrl, configPath: '' }, t.ctx, { headersTimeoutMs: 1000, requestTimeoutMs: 2000, retryMs: 60_000 })
    port = (await bot.start({ port: 0, host: '127.0.0.1' }))!
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
    await new Promise<void>((r) => deadApi.close(() => r()))
  })

  it('closes a connection that never finishes its headers, and one that trickles its body, at their deadlines', async () => {
    const headers = hold(port, 'POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    const body = hold(port, postHead(1000))
    const trickle = setInterval(() => body.socket.write('a'), 200)
    try {
      const [h, b] = await Promise.all([headers.closed, body.closed])
      expect(h.ms).toBeLessThan(5000)
      expect(b.ms).toBeLessThan(6000)
      expect(b.answer).toMatch(/^HTTP\/1\.1 408/)
    } finally {
      clearInterval(trickle)
    }
  }, 20_000)

  it(`reads at most ${MAX_PENDING_REQUESTS} unsigned requests at once; the next is refused 503 at once`, async () => {
    const held = Array.from({ length: MAX_PENDING_REQUESTS }, () => hold(port, `${postHead(1024 * 1024 - 1)}${'a'.repeat(1024)}`))
    await new Promise((r) => setTimeout(r, 300))
    const started = performance.now()
    const extra = hold(port, `${postHead(100)}${'a'.repeat(10)}`)
    const r = await extra.closed
    expect(r.answer).toMatch(/^HTTP\/1\.1 503/)
    expect(performance.now() - started).toBeLessThan(1000)
    for (const h of held) h.socket.destroy()
  }, 20_000)

  it('answers a signed command through its response_url while the Web API is unreachable', async () => {
    expect(bot.link.up).toBe(false)
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({ token: 'x', team_id: 'TTEAM', channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text: 'why 1', response_url: responseUrl, trigger_id: '1' }).toString()
    const res = await fetch(`http://127.0.0.1:${port}/slack/events`, { method: 'POST', body, headers: signedHeaders(SECRET, body) })
    expect(res.status).toBe(200)
    const path = new URL(responseUrl).pathname
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === path), 20_000)
    expect(String(slack.responses.find((r) => r.args.__path === path)!.args.text)).toMatch(/^Broker 1 \(perf-lab\)/)
  }, 30_000)
})
