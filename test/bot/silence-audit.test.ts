import { Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { createKeys } from '../../engine/store/keys.js'
import type { PendingChange } from '../../engine/store/store.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { testContext, type TestContext } from './support/bot-context.js'
import { buttonClickRequest, slashCommandRequest, startHttpBot } from './support/http-bot.js'

// Silences and cancels through the real HTTP receiver over the real Redis. The audit record is
// written before the effect: when Redis refuses the audit write (here its stream key holds a string,
// so XADD fails with WRONGTYPE while every other key works), nothing is silenced or cancelled and
// the reply says so. A user may hold a bounded number of silences, and `unsilence` lifts one.

const SECRET = 'silence-audit-signing-secret-0123'
const PREFIX = `test-silence-audit-${process.pid}:`
const RULE = 'stw_pause_session_expiry'

describe('bot/commands/silence and bot/actions/config-change: audit before effect, bounded silences, unsilence', () => {
  const slack = new SlackStandIn()
  const store = new RedisStore({ url: TEST_REDIS_URL, prefix: PREFIX })
  const redis = new Redis(TEST_REDIS_URL)
  const auditKey = createKeys(PREFIX).audit()
  let bot: SlackBot
  let t: TestContext
  let url: string

  beforeAll(async () => {
    await slack.start()
    t = await testContext({ store })
    ;({ bot, url } = await startHttpBot(t.ctx, slack, SECRET))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
    await store.close()
    redis.disconnect()
    await deletePrefixes([PREFIX])
  })
  beforeEach(async () => {
    await redis.del(auditKey)
    for (const s of await store.listSilences(t.ctx.now())) await store.removeSilence(s.id)
  })

  async function send(body: string, responseUrl: string): Promise<Record<string, any>> {
    const res = await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })
    expect(res.status).toBe(200)
    const path = new URL(responseUrl).pathname
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === path), 20_000)
    return slack.responses.find((r) => r.args.__path === path)!.args
  }
  function command(text: string, user = 'U0CAROL', channel = 'C0PERF'): Promise<Record<string, any>> {
    const { body, responseUrl } = slashCommandRequest(slack, text, user, channel)
    return send(body, responseUrl)
  }
  function click(actionId: string, value: string, user = 'U0ALICE', channel = 'C0OPS'): Promise<Record<string, any>> {
    const { body, responseUrl } = buttonClickRequest(slack, actionId, value, user, channel)
    return send(body, responseUrl)
  }
  const breakAudit = () => redis.set(auditKey, 'not a stream')

  it('a silence whose audit record cannot be written is not stored, and the reply says nothing was silenced', async () => {
    await breakAudit()
    const reply = await command(`silence ${RULE} 1h`)
    expect(reply.text).toMatch(/audit trail could not be written.*nothing was silenced/i)
    expect(await store.listSilences(t.ctx.now())).toEqual([])
  })

  it('a cancel whose audit record cannot be written leaves the change as it was, and says so', async () => {
    const now = t.ctx.now()
    const pending: PendingChange = { id: 'chg-audit-first-01', cluster: 'perf-lab', topic: 'orders', op: 'set', key: 'segment.ms', value: '1', before: '2', requestedBy: 'U0ALICE', channel: 'C0OPS', risky: false, state: 'requested', createdAt: now, expiresAt: now + 900_000 }
    expect(await store.transitionPendingChange(undefined, pending, 3_600_000)).toBe(true)
    await breakAudit()
    const reply = await click('kafka_config_cancel', pending.id)
    expect(reply.text).toMatch(/audit trail could not be written.*nothing was cancelled/i)
    expect((await store.getPendingChange(pending.id))?.state).toBe('requested')
  })

  it('a user holds at most 20 active silences; unsilence lifts one, audited, and frees a place', async () => {
    const fingerprints: string[] = []
    for (let i = 0; i < 21; i++) {
      const fp = `fp-cap-${i}`
      const at = t.ctx.now()
      await store.transitionAlert(undefined, { fingerprint: fp, ruleId: RULE, cluster: 'perf-lab', broker: '1', labels: {}, state: 'firing', activeAt: at, firedAt: at, lastSeenAt: at, summary: 's' })
      fingerprints.push(fp)
    }
    for (const fp of fingerprints.slice(0, 20)) expect((await command(`silence ${fp} 1h`)).text).toMatch(/^Silenced/)
    const refused = await command(`silence ${fingerprints[20]} 1h`)
    expect(refused.text).toMatch(/20 active silences.*unsilence/i)
    expect(await store.listSilences(t.ctx.now())).toHaveLength(20)
    const lifted = await command(`unsilence ${fingerprints[0]}`)
    expect(lifted.text).toMatch(/^Unsilenced/)
    expect((await store.listSilences(t.ctx.now())).map((s) => s.matcher)).not.toContain(fingerprints[0])
    expect((await store.listAudit(5)).some((r) => r.action === 'unsilence' && r.target === fingerprints[0] && r.outcome === 'applied')).toBe(true)
    expect((await command(`silence ${fingerprints[20]} 1h`)).text).toMatch(/^Silenced/)
    // Nothing to lift is said plainly; another user may not lift what they may not silence.
    expect((await command(`unsilence ${fingerprints[0]}`)).text).toMatch(/no active silence/i)
    expect((await command(`unsilence ${fingerprints[1]}`, 'U0EVE')).text).toMatch(/may not/i)
  }, 60_000)
})
