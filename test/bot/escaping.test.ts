import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { notifyAlerts } from '../../bot/alerts/notify-alerts.js'
import { loadIncident } from '../../bot/engine-bridge.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { AlertRecord } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { fallbackProblems, mrkdwnProblems } from './support/validate-blocks.js'
import { ROOT, SEED_000, testContext, type TestContext } from './support/bot-context.js'
import { startHttpBot } from './support/http-bot.js'

// Names a hostile or careless client can give its consumer group and topic: Slack would read the
// first as a broadcast to the channel and the second as a link with a label of the attacker's choice.
const GROUP = '<!channel>'
const TOPIC = '<http://evil|click>'
const SECRET = 'escaping-signing-secret-012345'
const SEED_003 = `${ROOT}test/incidents/seed-003-selector-leak-group-churn`

/**
 * The recorded incidents with every topic and group renamed to the hostile names, labels and raw
 * log text alike, both moved in time to end together (so one digest window holds both).
 */
async function hostileStore(): Promise<{ store: MemoryStore; end: number }> {
  const store = new MemoryStore()
  let end: number | undefined
  for (const dir of [SEED_000, SEED_003]) {
    const scratch = new MemoryStore()
    const { lastAt } = await loadIncident(scratch, dir)
    end ??= lastAt!
    const shift = end - lastAt!
    const signals: Signal[] = []
    for (const ref of await scratch.brokers()) {
      const got = await scratch.query({ cluster: ref.cluster, broker: ref.broker, from: 0, to: Number.MAX_SAFE_INTEGER })
      const facts = await scratch.facts(ref.cluster, ref.broker)
      for (const s of [...got, ...facts]) {
        const labels = s.labels ? { ...s.labels } : undefined
        let text = s.text
        if (labels?.topic) {
          text = text?.split(labels.topic).join(TOPIC)
          labels.topic = TOPIC
        }
        if (labels?.group) {
          text = text?.split(labels.group).join(GROUP)
          labels.group = GROUP
        }
        signals.push({ ...s, ...(labels ? { labels } : {}), ...(text !== undefined ? { text } : {}), cluster: 'perf-lab', at: s.at + shift })
      }
    }
    const r = await store.append(signals)
    expect(r.rejected).toEqual({})
    await scratch.close()
  }
  return { store, end: end! }
}

describe('bot/render escaping (hostile group and topic names through the real HTTP receiver)', () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let t: TestContext
  let url: string

  beforeAll(async () => {
    await slack.start()
    const { store, end } = await hostileStore()
    t = await testContext({ store, replay: false, now: end + 1000 })
    ;({ bot, url } = await startHttpBot(t.ctx, slack, SECRET))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
  })

  async function ask(text: string): Promise<Record<string, unknown>> {
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({ token: 'x', team_id: 'TTEAM', channel_id: 'C0PERF', user_id: 'U0CAROL', command: '/kafka', text, response_url: responseUrl, trigger_id: '1' }).toString()
    expect((await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })).status).toBe(200)
    const path = new URL(responseUrl).pathname
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === path), 20_000)
    return slack.responses.find((r) => r.args.__path === path)!.args
  }

  /**
   * The hostile names must be in the payload (the test means something) and, in every field Slack
   * renders as markup (fallback text, mrkdwn), only in escaped form. plain_text (headers, buttons)
   * is shown literally by Slack and may hold them as they are.
   */
  function expectEscaped(payload: Record<string, unknown>, names: string[]): void {
    const rendered: string[] = [String(payload.text ?? '')]
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit)
      else if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>
        if (o.type === 'mrkdwn' && typeof o.text === 'string') rendered.push(o.text)
        Object.values(o).forEach(visit)
      }
    }
    visit(payload.blocks)
    const all = rendered.join('\n')
    expect(all).not.toContain('<!channel>')
    expect(all).not.toContain('<http://evil')
    for (const n of names) expect(all).toContain(n.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'))
  }

  it('the validator itself refuses a broadcast, a data link and a raw bracket', () => {
    expect(mrkdwnProblems(`group ${GROUP} rebalanced`)).toEqual(['broadcast <!channel> in mrkdwn'])
    expect(mrkdwnProblems(`topic ${TOPIC}`)).toEqual(['link <http://evil|click> not to a runbook (from data?)'])
    expect(mrkdwnProblems('<@UEVIL> and <https://kafka.apache.org/documentation/>')).toEqual(['mention <@UEVIL> not of the test world (from data?)'])
    expect(fallbackProblems(`Firing: ${GROUP}`)).toHaveLength(1)
  })

  it('a diagnosis naming the topic reaches Slack escaped, in blocks and fallback text', async () => {
    const reply = await ask('why 1')
    expect(String(reply.text)).toMatch(/^Broker 1 \(perf-lab\)/)
    expectEscaped(reply, [TOPIC])
    expect(slack.allProblems()).toEqual([])
  })

  it('the digest listing the group reaches Slack escaped', async () => {
    const reply = await ask('digest perf-lab')
    expectEscaped(reply, [GROUP])
    expect(slack.allProblems()).toEqual([])
  })

  it('an alert whose labels and cause carry both names is posted escaped, and status lists it escaped', async () => {
    const now = t.ctx.now()
    const d = await t.ctx.diagnose(t.ctx.rules.rules, t.store, { cluster: 'perf-lab', broker: '1', from: now - 3_600_000 * 24 * 30, to: now, now })
    const cause = d.causes.find((c) => c.cause.includes(TOPIC))
    expect(cause, d.causes.map((c) => c.cause).join('\n')).toBeDefined()
    const alert: AlertRecord = { fingerprint: 'fp-hostile', ruleId: cause!.ruleId, cluster: 'perf-lab', broker: '1', labels: { group: GROUP, topic: TOPIC }, state: 'firing', activeAt: now, firedAt: now, lastSeenAt: now, summary: `${cause!.cause} (${GROUP})` }
    await t.store.transitionAlert(undefined, alert)
    await notifyAlerts({ store: t.store, poster: bot.poster, config: t.ctx.config, now: () => now }, [{ type: 'firing', alert, cause: cause! }])
    const post = slack.ok('chat.postMessage').find((c) => String(c.args.text).startsWith('Firing:'))!
    expect(post.args.channel).toBe('C0PERF')
    expectEscaped(post.args, [TOPIC, GROUP])
    // The alert's summary is the cause as posted, which names the topic.
    const status = await ask('status perf-lab')
    expectEscaped(status, [TOPIC])
    expect(slack.allProblems()).toEqual([])
  })
})
