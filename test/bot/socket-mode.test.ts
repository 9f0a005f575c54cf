import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSlackBot, type SlackBot } from '../../bot/app.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { WsEndpoint } from './support/ws-endpoint.js'
import { testContext, type TestContext } from './support/bot-context.js'

describe('bot/app (Socket Mode)', () => {
  const slack = new SlackStandIn()
  const ws = new WsEndpoint()
  let bot: SlackBot
  let t: TestContext

  beforeAll(async () => {
    await slack.start()
    await ws.start()
    slack.socketUrl = ws.url
    t = await testContext()
    bot = createSlackBot({ mode: 'socket', botToken: 'xoxb-test', appToken: 'xapp-test', port: 0, slackApiUrl: slack.apiUrl, configPath: '' }, t.ctx)
    await bot.start()
    await ws.waitFor(() => ws.connected > 0)
  })
  afterAll(async () => {
    await bot?.stop()
    await ws.stop()
    await slack.stop()
  })

  it('opens its connection through apps.connections.open with the app token', () => {
    expect(slack.ok('apps.connections.open')).toHaveLength(1)
  })

  it.each([
    ['why 1', 'in_channel', /JVM stop-the-world pause on broker 1/],
    ['config topic orders set segment.ms=1; rm -rf /', 'ephemeral', /The character ";" is not accepted/],
  ])('acks the envelope for %j and answers through the response_url', async (text, type, message) => {
    const envelope = `env-${Math.random().toString(36).slice(2)}`
    const responseUrl = slack.responseUrl()
    ws.send({
      envelope_id: envelope,
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: { token: 'x', team_id: 'TTEAM', channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text, api_app_id: 'AAPP', response_url: responseUrl, trigger_id: '1' },
    })
    await ws.waitFor(() => ws.received.some((m) => m.envelope_id === envelope))
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === new URL(responseUrl).pathname))
    const reply = slack.responses.find((r) => r.args.__path === new URL(responseUrl).pathname)!.args
    expect(reply.response_type).toBe(type)
    expect(reply.text).toMatch(message)
    expect(t.adminCalls).toEqual([])
    expect(slack.allProblems()).toEqual([])
  })
})
