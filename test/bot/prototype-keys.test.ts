import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KafkaAdminOps } from '../../adapters/admin/ops.js'
import type { SlackBot } from '../../bot/app.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { testContext, type TestContext } from './support/bot-context.js'
import { slashCommandRequest, startHttpBot } from './support/http-bot.js'

// Text a user types becomes a lookup key in places: a config key in the topic's configs, a command
// name in the help table. A plain object answers `constructor` from its prototype, so
// `config topic orders set constructor=1` used to get a change prompt. Every such lookup must take
// only the object's own keys. The admin client is a stand-in answering the shape kafkajs gives
// (describeConfigs entries collected into a plain object), so no Kafka cluster is started.

const SECRET = 'prototype-keys-signing-secret-012'
const configs = (): Record<string, { value: string | null; isDefault: boolean; source: string }> => ({
  'segment.ms': { value: '604800000', isDefault: true, source: 'DEFAULT_CONFIG' },
  'retention.ms': { value: '604800000', isDefault: true, source: 'DEFAULT_CONFIG' },
})
const admin = {
  topicConfig: async () => configs(),
  setTopicConfig: async () => undefined,
  resetTopicConfig: async () => undefined,
  close: async () => undefined,
} as unknown as KafkaAdminOps

describe('bot/commands lookups keyed by user text take own keys only', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let t: TestContext
  let url: string

  beforeAll(async () => {
    await slack.start()
    t = await testContext({ admin })
    ;({ bot, url } = await startHttpBot(t.ctx, slack, SECRET))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
  })

  async function command(text: string): Promise<Record<string, any>> {
    const { body, responseUrl } = slashCommandRequest(slack, text, 'U0ALICE', 'C0OPS')
    expect((await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })).status).toBe(200)
    const path = new URL(responseUrl).pathname
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === path), 20_000)
    return slack.responses.find((r) => r.args.__path === path)!.args
  }

  it('config topic orders set constructor=1 is an unknown key, not a change prompt', async () => {
    const reply = await command('config topic orders set constructor=1')
    expect(reply.text).toMatch(/has no config key 'constructor'/)
    expect(JSON.stringify(reply.blocks)).not.toContain('kafka_config_confirm')
    expect(await t.store.listAudit(10)).toEqual([])
  })

  it('config topic orders reset constructor is an unknown key too', async () => {
    expect((await command('config topic orders reset constructor')).text).toMatch(/has no config key 'constructor'/)
  })

  it.each(['constructor', 'hasownproperty', '__proto__'])('help %s names no command', async (word) => {
    const reply = await command(`help ${word}`)
    expect(reply.text).toMatch(/No command|Unknown command|not/i)
    expect(reply.text).not.toMatch(/went wrong/)
  })

  it('a real key still gets its prompt', async () => {
    expect(JSON.stringify((await command('config topic orders set segment.ms=100000')).blocks)).toContain('kafka_config_confirm')
  })
})
