import { webApi } from '@slack/bolt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Cause } from '../../engine/diagnosis.js'
import type { AlertRecord } from '../../engine/store/store.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { notifyAlerts, type AlertEvent } from '../../bot/alerts/notify-alerts.js'
import { parseBotConfig } from '../../bot/config.js'
import { SlackPoster } from '../../bot/slack/slack-poster.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { TEST_CONFIG } from './support/bot-context.js'

const config = parseBotConfig(TEST_CONFIG)
const T0 = Date.UTC(2018, 7, 14, 2, 16, 9)

function cause(evidence: number): Cause {
  return {
    ruleId: 'stw_pause_session_expiry',
    severity: 'critical',
    cause: 'JVM stop-the-world pause of 3.3s on broker 1 outlived the ZooKeeper session',
    run: ['config broker 1'],
    labels: {},
    firstAt: T0 - 3300,
    lastAt: T0,
    matchedAt: T0,
    evidence: Array.from({ length: evidence }, (_, i) => ({
      at: T0 + i * 1000,
      signal: 'zk.session_timeout',
      broker: '1',
      valueText: '7.77s',
      text: '[2018-08-13 22:16:09,762] WARN Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)',
      source: 'log:server.log:1',
    })),
    corroboration: 2,
    score: 3020,
    explainsRules: [],
  }
}

function alert(fingerprint: string, state: AlertRecord['state'] = 'firing'): AlertRecord {
  return { fingerprint, ruleId: 'stw_pause_session_expiry', cluster: 'perf-lab', broker: '1', labels: {}, state, activeAt: T0 - 3300, firedAt: T0, lastSeenAt: T0 }
}

describe('bot/alerts/notify-alerts', () => {
  const slack = new SlackStandIn()
  let client: InstanceType<typeof webApi.WebClient>
  beforeAll(async () => {
    await slack.start()
    client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } })
  })
  afterAll(() => slack.stop())

  function deps(store: MemoryStore, now = T0) {
    const poster = new SlackPoster(async (m, a) => (await client.apiCall(m, a)) as unknown as Record<string, unknown>)
    return { store, poster, config, now: () => now }
  }

  it('posts a firing alert once, edits it and threads each update, then posts a resolved notice; a 429 delays but drops nothing', async () => {
    const store = new MemoryStore()
    const fp = 'fp-lifecycle'
    await store.transitionAlert(undefined, alert(fp))
    slack.rateLimit('chat.postMessage', 1, 1)
    const start = slack.calls.length
    const d = deps(store)
    const events: AlertEvent[] = [
      { type: 'firing', alert: alert(fp), cause: cause(1) },
      { type: 'firing', alert: alert(fp), cause: cause(1) },
      { type: 'updated', alert: alert(fp), cause: cause(3) },
      { type: 'resolved', alert: { ...alert(fp, 'resolved'), resolvedAt: T0 + 600_000 }, cause: cause(3) },
    ]
    const began = Date.now()
    await notifyAlerts(d, events)
    const calls = slack.calls.slice(start)
    // The second firing (a re-notification) refreshes the one message and broadcasts from its thread.
    expect(calls.map((c) => `${c.status} ${c.method}${c.args.thread_ts ? ' thread' : ''}${c.args.reply_broadcast ? ' broadcast' : ''}`)).toEqual([
      '429 chat.postMessage',
      '200 chat.postMessage',
      '200 chat.update',
      '200 chat.postMessage thread broadcast',
      '200 chat.update',
      '200 chat.postMessage thread',
      '200 chat.update',
      '200 chat.postMessage thread broadcast',
    ])
    expect(calls.filter((c) => c.status === 200 && c.method === 'chat.postMessage' && !c.args.thread_ts)).toHaveLength(1)
    expect(Date.now() - began).toBeGreaterThanOrEqual(1000)
    expect(d.poster.rateLimitedCount).toBe(1)
    const ts = calls[1] && (await store.getAlert(fp))!.message!.ts
    expect(ts).toMatch(/^\d+\.\d+$/)
    expect(calls.slice(2).every((c) => c.args.ts === ts || c.args.thread_ts === ts)).toBe(true)
    expect(calls.every((c) => c.args.channel === 'C0PERF')).toBe(true)
    expect(calls[3].args.text).toMatch(/^Still firing/)
    expect(calls[5].args.text).toContain('New evidence')
    // Only the two lines not yet shown in the channel.
    expect(calls[5].args.blocks[0].text.text).toMatch(/: 2 lines since /)
    expect((await store.getAlert(fp))!.shownEvidenceAt).toBe(T0 + 2000)
    // The first post (only) counts as one of the day's diagnoses for the digest.
    expect((await store.recentDiagnoses(0)).map((x) => [x.ruleId, x.broker, x.severity])).toEqual([['stw_pause_session_expiry', '1', 'critical']])
    expect(calls[7].args.text).toContain('Resolved')
    expect(slack.allProblems()).toEqual([])
  })

  it('keeps order per channel through several 429s: every message arrives, in the order queued', async () => {
    const store = new MemoryStore()
    const fps = ['a', 'b', 'c', 'd']
    for (const fp of fps) await store.transitionAlert(undefined, alert(fp))
    slack.rateLimit('chat.postMessage', 2, 1)
    const start = slack.calls.length
    await notifyAlerts(deps(store), fps.map((fp) => ({ type: 'firing' as const, alert: alert(fp), cause: cause(1) })))
    const posted = slack.calls.slice(start).filter((c) => c.status === 200)
    expect(posted.map((c) => c.args.blocks.find((b: { type: string }) => b.type === 'context' && JSON.stringify(b).includes('Fingerprint')).elements[0].text)).toEqual(fps.map((fp) => `Fingerprint \`${fp}\``))
    for (const fp of fps) expect((await store.getAlert(fp))!.message).toBeDefined()
  })

  it('posts nothing for a silenced alert', async () => {
    const store = new MemoryStore()
    await store.transitionAlert(undefined, alert('muted'))
    await store.addSilence({ id: 's1', matcher: 'stw_pause_session_expiry', createdBy: 'U0ALICE', createdAt: T0 - 1000, expiresAt: T0 + 3_600_000 })
    const start = slack.calls.length
    const r = await notifyAlerts(deps(store), [{ type: 'firing', alert: alert('muted'), cause: cause(1) }])
    expect(r).toEqual({ posted: 0, silenced: 1 })
    expect(slack.calls.length).toBe(start)
  })

  it('posts a redelivered firing that was never posted, once, and drops one whose first post landed meanwhile', async () => {
    const store = new MemoryStore()
    await store.transitionAlert(undefined, alert('lost'))
    await store.transitionAlert(undefined, alert('landed'))
    await store.updateAlert('landed', { message: { channel: 'C0PERF', ts: '1534212969.000100' } })
    const start = slack.calls.length
    await notifyAlerts(deps(store), [
      { type: 'firing', alert: alert('lost'), cause: cause(1), redelivered: true },
      { type: 'firing', alert: alert('landed'), cause: cause(1), redelivered: true },
    ])
    const calls = slack.calls.slice(start)
    expect(calls.map((c) => `${c.status} ${c.method}${c.args.thread_ts ? ' thread' : ''}`)).toEqual(['200 chat.postMessage'])
    expect(calls[0].args.channel).toBe('C0PERF')
    expect((await store.getAlert('lost'))?.message).toMatchObject({ channel: 'C0PERF' })
    expect((await store.getAlert('landed'))?.message?.ts).toBe('1534212969.000100')
  })
})
