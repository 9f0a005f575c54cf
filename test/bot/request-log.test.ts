import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { createLogger } from '../../logging/logger.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { testContext } from './support/bot-context.js'
import { startHttpBot } from './support/http-bot.js'

const SECRET = 'request-log-signing-secret-0123456789'
// A bot token of the real shape, so a leak would be recognisable in the log.
const TOKEN = 'xoxb-4444444444-5555555555555-RequestLogTokenValue0123'

describe('bot/listeners request log (through the HTTP receiver)', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let url: string
  let text = ''
  const records = () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)

  beforeAll(async () => {
    await slack.start()
    const t = await testContext()
    const out = new PassThrough()
    out.on('data', (d) => (text += d))
    // Debug level: Bolt's and the Web API client's own lines are written too, and must be redacted as well.
    const log = createLogger({ level: 'debug', format: 'json', destination: out, env: {} })
    const ctx = { ...t.ctx, log, diagnose: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:6379')) }
    ;({ bot, url } = await startHttpBot(ctx, slack, SECRET, TOKEN))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
  })

  it('logs a command and its internal error under one request id, the error id the user was given as a field', async () => {
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({ channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text: 'why 1', response_url: responseUrl, team_id: 'T', api_app_id: 'A' }).toString()
    const res = await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })
    expect(res.status).toBe(200)
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === new URL(responseUrl).pathname))
    const answer = slack.responses.find((r) => r.args.__path === new URL(responseUrl).pathname)!.args
    const errorId = /error id (E-[0-9a-f]{8})/.exec(String(answer.text))?.[1]
    expect(errorId).toBeDefined()

    const received = records().find((r) => r.msg === '/kafka why')
    expect(received).toMatchObject({ level: 'info', user: 'U0CAROL', channel: 'C0PERF', requestId: expect.stringMatching(/^R-[0-9a-f]{8}$/) })
    const failure = records().find((r) => r.errorId === errorId)
    expect(failure).toMatchObject({ level: 'error', requestId: received!.requestId, err: { message: 'connect ECONNREFUSED 10.0.0.5:6379' } })
    expect(typeof failure!.time).toBe('number')
  })

  it('never writes the bot token or the signing secret, even at debug level', () => {
    expect(text.length).toBeGreaterThan(0)
    expect(text).not.toContain('RequestLogTokenValue0123')
    expect(text).not.toContain(SECRET)
  })
})
