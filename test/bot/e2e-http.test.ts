import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { SERIES_COLOURS } from '../../bot/digest/chart.js'
import { countColour, decodePngPixels, readPngHeader } from './support/png.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { testContext, type TestContext } from './support/bot-context.js'
import { buttonClickRequest, startHttpBot, type SlackRequest } from './support/http-bot.js'

const SECRET = 'test-signing-secret-0123456789'

describe('bot/app (end to end through the HTTP receiver)', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let t: TestContext
  let url: string

  beforeAll(async () => {
    await slack.start()
    t = await testContext()
    ;({ bot, url } = await startHttpBot(t.ctx, slack, SECRET))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
  })

  function commandBody(text: string, user = 'U0CAROL', channel = 'C0PERF'): { body: string; responseUrl: string } {
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({
      token: 'x',
      team_id: 'TTEAM',
      team_domain: 'example',
      channel_id: channel,
      channel_name: 'kafka',
      user_id: user,
      user_name: user.toLowerCase(),
      command: '/kafka',
      text,
      api_app_id: 'AAPP',
      response_url: responseUrl,
      trigger_id: '1.2.3',
    }).toString()
    return { body, responseUrl }
  }

  function actionBody(actionId: string, value: string, user = 'U0CAROL', channel = 'C0PERF'): SlackRequest {
    return buttonClickRequest(slack, actionId, value, user, channel)
  }

  async function send(body: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
    const started = performance.now()
    const res = await fetch(url, { method: 'POST', body, headers })
    await res.text()
    return { status: res.status, ms: performance.now() - started }
  }

  async function reply(responseUrl: string): Promise<Record<string, any>> {
    await slack.waitFor(() => findResponse(responseUrl) !== undefined)
    return findResponse(responseUrl)!
  }

  function findResponse(responseUrl: string): Record<string, any> | undefined {
    return slack.responses.find((r) => r.args.__path === new URL(responseUrl).pathname)?.args
  }

  it('answers a signed /kafka why with the ranked diagnosis, acked well inside 3 s', async () => {
    const { body, responseUrl } = commandBody('why 1')
    const { status, ms } = await send(body, signedHeaders(SECRET, body))
    expect(status).toBe(200)
    expect(ms).toBeLessThan(3000)
    const r = await reply(responseUrl)
    expect(r.response_type).toBe('in_channel')
    expect(r.text).toContain('JVM stop-the-world pause on broker 1')
    expect(JSON.stringify(r.blocks)).toContain('Client session timed out, have not heard from server in 7768ms')
    expect(slack.allProblems()).toEqual([])
  })

  it('answers /kafka digest with the digest and uploads its chart to the channel', async () => {
    const { body, responseUrl } = commandBody('digest')
    expect((await send(body, signedHeaders(SECRET, body))).status).toBe(200)
    const r = await reply(responseUrl)
    expect(r.text).toMatch(/^Kafka digest perf-lab: 1 brokers/)
    await slack.waitFor(() => slack.ok('files.completeUploadExternal').length > 0)
    const [complete] = slack.ok('files.completeUploadExternal')
    expect(complete.args.channel_id).toBe('C0PERF')
    expect(complete.args.files).toEqual([{ id: expect.stringMatching(/^F\d+$/), title: 'Kafka digest perf-lab' }])
    const bytes = slack.uploads.get(complete.args.files[0].id)!
    // A whole PNG (every chunk's CRC right) that decodes to the chart: seed-000's broker 1 line is drawn.
    const header = readPngHeader(bytes)
    const { width, height, rgba } = decodePngPixels(bytes)
    expect([width, height]).toEqual([header.width, header.height])
    expect(countColour(rgba, SERIES_COLOURS[0], 20)).toBeGreaterThan(100)
    expect(slack.ok('files.getUploadURLExternal')[0].args).toMatchObject({ filename: 'kafka-digest-perf-lab.png', length: String(bytes.length) })
  })

  it.each([
    ['frobnicate', /Unknown command 'frobnicate'.*\/kafka help/],
    // A bare `why` in this cluster channel is the cluster's answer (test/bot/cluster-why.test.ts); a bad broker is refused.
    ['why three', /'three' is not a broker id/],
    ['why 7', /Broker 7 is unknown in cluster perf-lab.*Known brokers: 1\./],
    ['describe topic', /Missing arguments/],
    ['config topic orders set segment.ms=1; rm -rf /', /The character ";" is not accepted.*Nothing was run/],
    ['describe topic "orders"', /Quotes are not accepted/],
    ['why 1\nconfig topic orders set segment.ms=1', /must fit on one line/],
    ['config topic orders set segment.ms=1', /You may not change configuration here.*Nothing was changed/],
    ['silence nosuchrule 1h', /neither a loaded rule nor a known alert fingerprint/],
    ['help', /^kafka-why commands/],
  ])('replies to %j with a clear ephemeral message and runs nothing', async (text, message) => {
    const changes = async () => (await t.store.listAudit(1000)).filter((a) => a.outcome !== 'denied').length
    const audits = await changes()
    const silences = (await t.store.listSilences(t.ctx.now())).length
    const { body, responseUrl } = commandBody(text)
    expect((await send(body, signedHeaders(SECRET, body))).status).toBe(200)
    const r = await reply(responseUrl)
    expect(r.response_type).toBe('ephemeral')
    expect(r.text).toMatch(message)
    expect(t.adminCalls).toEqual([])
    expect((await t.store.listSilences(t.ctx.now())).length).toBe(silences)
    expect(await changes()).toBe(audits)
  })

  it('records a denied change by a user who is not allowed', async () => {
    const audit = await t.store.listAudit(1000)
    expect(audit.some((a) => a.outcome === 'denied' && a.user === 'U0CAROL' && a.target === 'perf-lab:topic/orders:segment.ms')).toBe(true)
  })

  it('silences a rule for an hour from the button, writing a Silence and an audit record', async () => {
    const { body, responseUrl } = actionBody('kafka_silence_1h', JSON.stringify({ matcher: 'stw_pause_session_expiry' }))
    expect((await send(body, signedHeaders(SECRET, body))).status).toBe(200)
    const r = await reply(responseUrl)
    expect(r.text).toContain('Silenced stw_pause_session_expiry for 1h')
    const s = (await t.store.listSilences(t.ctx.now())).find((x) => x.matcher === 'stw_pause_session_expiry')
    expect(s).toMatchObject({ createdBy: 'U0CAROL', expiresAt: t.ctx.now() + 3_600_000 })
    expect((await t.store.listAudit(10)).some((a) => a.action === 'silence' && a.outcome === 'applied')).toBe(true)
    await slack.waitFor(() => slack.ok('chat.postMessage').some((c) => c.args.channel === 'C0AUDIT' && c.args.text === 'audit: applied silence stw_pause_session_expiry by U0CAROL'))
  })

  it('runs the Show rule button through the same command path', async () => {
    const { body, responseUrl } = actionBody('kafka_show_rule', 'stw_pause_session_expiry')
    expect((await send(body, signedHeaders(SECRET, body))).status).toBe(200)
    const r = await reply(responseUrl)
    expect(r.text).toContain('Rule stw_pause_session_expiry')
    expect(JSON.stringify(r.blocks)).toContain('safepoint.sync')
  })

  it('refuses a Run button whose command carries shell metacharacters', async () => {
    const { body, responseUrl } = actionBody('kafka_run', 'config broker 1; reboot')
    expect((await send(body, signedHeaders(SECRET, body))).status).toBe(200)
    expect((await reply(responseUrl)).text).toMatch(/The character ";" is not accepted/)
    expect(t.adminCalls).toEqual([])
  })

  it.each([
    ['a forged signature', (body: string) => ({ ...signedHeaders('not-the-secret', body) })],
    ['a stale timestamp', (body: string) => signedHeaders(SECRET, body, Math.floor(Date.now() / 1000) - 10 * 60)],
    ['no signature at all', () => ({ 'content-type': 'application/x-www-form-urlencoded' })],
  ])('refuses %s and runs nothing', async (_, headers) => {
    const before = slack.responses.length
    const audits = (await t.store.listAudit(1000)).length
    const { body } = actionBody('kafka_silence_1h', JSON.stringify({ matcher: 'not_leader_errors' }))
    const { status } = await send(body, headers(body) as Record<string, string>)
    expect(status).toBe(401)
    await new Promise((r) => setTimeout(r, 300))
    expect(slack.responses.length).toBe(before)
    expect((await t.store.listSilences(t.ctx.now())).some((s) => s.matcher === 'not_leader_errors')).toBe(false)
    expect((await t.store.listAudit(1000)).length).toBe(audits)
  })

  it('validated every payload it sent against Block Kit limits', () => {
    expect(slack.responses.length).toBeGreaterThan(10)
    expect(slack.allProblems()).toEqual([])
  })
})
