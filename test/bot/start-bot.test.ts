import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { ConfigError } from '../../bot/config.js'
import { loadIncident } from '../../bot/engine-bridge.js'
import { startBot, type RunningBot } from '../../bot/start-bot.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { SEED_000, TEST_CONFIG } from './support/bot-context.js'

const SECRET = 'start-bot-secret'

describe('bot/start-bot', () => {
  const slack = new SlackStandIn()
  const dir = mkdtempSync(join(tmpdir(), 'kafka-why-bot-'))
  let running: RunningBot
  let lastAt = 0

  beforeAll(async () => {
    await slack.start()
    writeFileSync(join(dir, 'bot.yaml'), TEST_CONFIG)
    const store = new MemoryStore()
    lastAt = (await loadIncident(store, SEED_000)).lastAt!
    const env = { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1', SLACK_API_URL: slack.apiUrl, KAFKA_WHY_CONFIG: join(dir, 'bot.yaml') }
    running = await startBot(env, { store, log: { error: () => undefined, warn: () => undefined, info: () => undefined } })
  })
  afterAll(async () => {
    await running?.stop()
    await slack.stop()
  })

  it('listens for signed slash commands on the configured interface', async () => {
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({ command: '/kafka', text: 'status perf-lab', user_id: 'U0CAROL', channel_id: 'C0PERF', response_url: responseUrl, team_id: 'T', token: 'x', trigger_id: '1' }).toString()
    const res = await fetch(`http://127.0.0.1:${running.port}/slack/events`, { method: 'POST', body, headers: signedHeaders(SECRET, body) })
    expect(res.status).toBe(200)
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === new URL(responseUrl).pathname))
    const reply = slack.responses.find((r) => r.args.__path === new URL(responseUrl).pathname)!.args
    expect(reply.text).toMatch(/^perf-lab: 0 firing, 0 silences, 1 brokers reporting$/)
  })

  it('posts alert events handed to notify into the cluster channel', async () => {
    const fp = 'start-bot-alert'
    const alert = { fingerprint: fp, ruleId: 'stw_pause_session_expiry', cluster: 'perf-lab', broker: '1', labels: {}, state: 'firing' as const, activeAt: lastAt, firedAt: lastAt, lastSeenAt: lastAt }
    await running.store.transitionAlert(undefined, alert)
    const cause = { ruleId: alert.ruleId, severity: 'critical' as const, cause: 'JVM stop-the-world pause', run: [], labels: {}, firstAt: lastAt, lastAt, matchedAt: lastAt, evidence: [], corroboration: 1, score: 1, explainsRules: [] }
    await running.notify([{ type: 'firing', alert, cause }])
    const post = slack.ok('chat.postMessage').find((c) => c.args.text?.startsWith('Firing: JVM stop-the-world pause'))
    expect(post?.args.channel).toBe('C0PERF')
    expect((await running.store.getAlert(fp))?.message).toEqual({ channel: 'C0PERF', ts: expect.stringMatching(/^\d+\.\d+$/) })
  })

  it.each<[Record<string, string>, RegExp]>([
    [{ SLACK_BOT_TOKEN: 'xoxb-test' }, /SLACK_SIGNING_SECRET: required in HTTP mode/],
    [{ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 's', KAFKA_WHY_CONFIG: '/nonexistent/bot.yaml' }, /cannot read '\/nonexistent\/bot.yaml': ENOENT/],
    [{ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 's', KAFKA_WHY_CONFIG: 'BAD' }, /bot-bad\.yaml:6:12: time_zone: 'Mars\/Olympus' is not an IANA time zone/],
  ])('refuses to start with %j, naming the problem', async (env, message) => {
    const bad = join(dir, 'bot-bad.yaml')
    writeFileSync(bad, TEST_CONFIG.replace('time_zone: America/New_York', 'time_zone: Mars/Olympus'))
    const e = { ...env, ...(env.KAFKA_WHY_CONFIG === 'BAD' ? { KAFKA_WHY_CONFIG: bad } : {}) }
    await expect(startBot(e)).rejects.toThrow(ConfigError)
    await expect(startBot(e)).rejects.toThrow(message)
  })
})
