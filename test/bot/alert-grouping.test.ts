import { webApi } from '@slack/bolt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notifyAlerts, GROUP_WINDOW_MS, type AlertEvent } from '../../bot/alerts/notify-alerts.js'
import { parseBotConfig } from '../../bot/config.js'
import { loadIncident, loadRuleSet } from '../../bot/engine-bridge.js'
import { SlackPoster } from '../../bot/slack/slack-poster.js'
import type { Rule } from '../../dsl/ast.js'
import { diagnose } from '../../engine/diagnose.js'
import type { Cause } from '../../engine/diagnosis.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { AlertRecord } from '../../engine/store/store.js'
import { ROOT, TEST_CONFIG } from './support/bot-context.js'
import { SlackStandIn } from './support/slack-stand-in.js'

const CONFIG = parseBotConfig(TEST_CONFIG.replace('clusters:\n', 'clusters:\n  lab:\n    brokers: [127.0.0.1:9093]\n    channel: C0LAB\n'))

/** An alert record as the engine opens one for a cause, firing at its match. */
function alertOf(cause: Cause, broker: string, firedAt = cause.matchedAt): AlertRecord {
  return { fingerprint: `${cause.ruleId}|lab|${broker}|${JSON.stringify(cause.labels)}`, ruleId: cause.ruleId, cluster: 'lab', broker, labels: cause.labels, state: 'firing', activeAt: cause.firstAt, firedAt, lastSeenAt: cause.lastAt, firstEvidenceAt: cause.firstAt, evidenceAt: cause.lastAt }
}

describe('bot/alerts: one alert for a cluster event (lab-disk-full, broker 3 full)', { timeout: 120_000 }, () => {
  const slack = new SlackStandIn()
  let client: InstanceType<typeof webApi.WebClient>
  let rules: Rule[]
  let diskFull: Cause
  let fetcher1: Cause
  beforeAll(async () => {
    await slack.start()
    client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } })
    rules = (await loadRuleSet(CONFIG.rules)).rules
    const store = new MemoryStore()
    const loaded = await loadIncident(store, `${ROOT}test/incidents/lab-disk-full`)
    const w = { cluster: 'lab', from: 0, to: loaded.lastAt! + 1000, now: loaded.lastAt! + 1000, record: false }
    diskFull = (await diagnose(rules, store, { ...w, broker: '3' })).causes.find((c) => c.ruleId === 'disk_full')!
    fetcher1 = (await diagnose(rules, store, { ...w, broker: '1' })).causes.find((c) => c.ruleId === 'fetcher_cannot_reach_leader')!
  })
  afterAll(() => slack.stop())

  function deps(store: MemoryStore, now: number) {
    const poster = new SlackPoster(async (m, a) => (await client.apiCall(m, a)) as unknown as Record<string, unknown>)
    return { store, poster, config: CONFIG, now: () => now, rules }
  }

  it('posts a peer fetcher alert naming broker 3 in broker 3\'s disk_full thread, and its updates and resolution there too', async () => {
    expect(diskFull).toBeDefined()
    expect(fetcher1.labels.leader).toBe('3')
    const store = new MemoryStore()
    const origin = alertOf(diskFull, '3')
    const peer = alertOf(fetcher1, '1', diskFull.matchedAt + 5_000)
    await store.transitionAlert(undefined, origin)
    await store.transitionAlert(undefined, peer)
    const start = slack.calls.length
    const d = deps(store, peer.firedAt! + 1_000)
    await notifyAlerts(d, [{ type: 'firing', alert: origin, cause: diskFull }])
    await notifyAlerts(d, [{ type: 'firing', alert: peer, cause: fetcher1 }])
    await notifyAlerts(d, [{ type: 'updated', alert: peer, cause: { ...fetcher1, evidence: [...fetcher1.evidence, { ...fetcher1.evidence[0], at: fetcher1.lastAt + 1000 }] } }])
    await notifyAlerts(d, [{ type: 'resolved', alert: { ...peer, state: 'resolved', resolvedAt: peer.firedAt! + 60_000 }, cause: fetcher1 }])
    const calls = slack.calls.slice(start).filter((c) => c.status === 200)
    const originTs = (await store.getAlert(origin.fingerprint))!.message!.ts
    const peerMsg = (await store.getAlert(peer.fingerprint))!.message!
    expect(peerMsg.threadTs).toBe(originTs)
    // One top-level message for the event: broker 3's.
    const topLevel = calls.filter((c) => c.method === 'chat.postMessage' && !c.args.thread_ts)
    expect(topLevel).toHaveLength(1)
    expect(topLevel[0].args.text).toContain('broker 3')
    const peerPost = calls.find((c) => c.method === 'chat.postMessage' && c.args.thread_ts === originTs)!
    expect(JSON.stringify(peerPost.args.blocks)).toContain("A consequence of broker 3's `disk_full` alert")
    // The update edits the peer's reply and threads under broker 3's message, as does the resolution.
    const later = calls.slice(calls.indexOf(peerPost) + 1)
    expect(later.map((c) => `${c.method} ${c.args.ts === peerMsg.ts ? 'peer' : ''}${c.args.thread_ts === originTs ? 'origin-thread' : ''}`)).toEqual([
      'chat.update peer',
      'chat.postMessage origin-thread',
      'chat.update peer',
      'chat.postMessage origin-thread',
    ])
    expect(slack.allProblems()).toEqual([])
  })

  it('makes broker 3\'s disk_full alert the thread\'s head when the peer\'s fetcher alert was posted first', async () => {
    const store = new MemoryStore()
    // The follower's fetches fail before the leader's own lines prove its disk full: its alert fires first.
    const peer = alertOf(fetcher1, '1', diskFull.matchedAt - 20_000)
    const origin = alertOf(diskFull, '3')
    await store.transitionAlert(undefined, peer)
    const start = slack.calls.length
    await notifyAlerts(deps(store, peer.firedAt! + 1_000), [{ type: 'firing', alert: peer, cause: fetcher1 }])
    const peerTopTs = (await store.getAlert(peer.fingerprint))!.message!.ts
    await store.transitionAlert(undefined, origin)
    const d = deps(store, origin.firedAt! + 1_000)
    await notifyAlerts(d, [{ type: 'firing', alert: origin, cause: diskFull }])
    const originTs = (await store.getAlert(origin.fingerprint))!.message!.ts
    expect((await store.getAlert(origin.fingerprint))!.message!.threadTs).toBeUndefined()
    // The peer's alert now lives in broker 3's thread.
    const peerMsg = (await store.getAlert(peer.fingerprint))!.message!
    expect(peerMsg.threadTs).toBe(originTs)
    expect(peerMsg.ts).not.toBe(peerTopTs)
    const calls = slack.calls.slice(start).filter((c) => c.status === 200)
    // Its first message is edited into a pointer at broker 3's alert, and says nothing is firing on its own.
    const pointer = calls.find((c) => c.method === 'chat.update' && c.args.ts === peerTopTs)!
    expect(pointer).toBeDefined()
    expect(pointer.args.text).toContain("A consequence of broker 3's disk_full alert")
    expect(JSON.stringify(pointer.args.blocks)).not.toContain('Firing')
    const reply = calls.find((c) => c.method === 'chat.postMessage' && c.args.thread_ts === originTs)!
    expect(JSON.stringify(reply.args.blocks)).toContain("A consequence of broker 3's `disk_full` alert")
    // Updates and the resolution follow it there, and its reply keeps saying whose consequence it is.
    await notifyAlerts(d, [{ type: 'updated', alert: peer, cause: { ...fetcher1, evidence: [...fetcher1.evidence, { ...fetcher1.evidence[0], at: fetcher1.lastAt + 1000 }] } }])
    await notifyAlerts(d, [{ type: 'resolved', alert: { ...peer, state: 'resolved', resolvedAt: origin.firedAt! + 60_000 }, cause: fetcher1 }])
    const later = slack.calls.slice(start).filter((c) => c.status === 200).slice(calls.length)
    expect(later.map((c) => `${c.method} ${c.args.ts === peerMsg.ts ? 'peer' : ''}${c.args.thread_ts === originTs ? 'origin-thread' : ''}`)).toEqual([
      'chat.update peer',
      'chat.postMessage origin-thread',
      'chat.update peer',
      'chat.postMessage origin-thread',
    ])
    expect(JSON.stringify(later[0].args.blocks)).toContain("A consequence of broker 3's `disk_full` alert")
    // The channel shows one firing alert for the event: broker 3's, with the peer's as its thread.
    const posted = slack.calls.slice(start).filter((c) => c.status === 200 && c.method === 'chat.postMessage' && !c.args.thread_ts)
    expect(posted).toHaveLength(2)
    const lastTextOf = (ts: string) => slack.calls.slice(start).filter((c) => c.status === 200 && c.method === 'chat.update' && c.args.ts === ts).map((c) => String(c.args.text)).pop()
    expect(lastTextOf(peerTopTs)).toMatch(/^A consequence of broker 3's disk_full alert/)
    expect(lastTextOf(originTs) ?? String(posted[1].args.text)).toMatch(/^Firing/)
    expect(slack.allProblems()).toEqual([])
  })

  it('leaves an earlier alert of a peer alone when the new alert does not account for it', async () => {
    const store = new MemoryStore()
    const peer = alertOf({ ...fetcher1, labels: { leader: '2' } }, '1', diskFull.matchedAt - 20_000)
    await store.transitionAlert(undefined, peer)
    await notifyAlerts(deps(store, peer.firedAt! + 1_000), [{ type: 'firing', alert: peer, cause: { ...fetcher1, labels: { leader: '2' } } }])
    const origin = alertOf(diskFull, '3')
    await store.transitionAlert(undefined, origin)
    const start = slack.calls.length
    await notifyAlerts(deps(store, origin.firedAt! + 1_000), [{ type: 'firing', alert: origin, cause: diskFull }])
    expect(slack.calls.slice(start).filter((c) => c.status === 200).map((c) => `${c.method} ${c.args.thread_ts ?? 'top-level'}`)).toEqual(['chat.postMessage top-level'])
    expect((await store.getAlert(peer.fingerprint))!.message!.threadTs).toBeUndefined()
  })

  it('posts it on its own when the origin alert is another cluster\'s, too old, or absent', async () => {
    for (const [name, origin] of [
      ['another cluster', { ...alertOf(diskFull, '3'), cluster: 'perf-lab', fingerprint: 'other-cluster' }],
      ['too old', alertOf(diskFull, '3', diskFull.matchedAt - GROUP_WINDOW_MS - 60_000)],
      ['absent', undefined],
    ] as const) {
      const store = new MemoryStore()
      const peer = alertOf(fetcher1, '1', diskFull.matchedAt + 5_000)
      const d = deps(store, peer.firedAt! + 1_000)
      if (origin) {
        await store.transitionAlert(undefined, origin)
        await notifyAlerts(d, [{ type: 'firing', alert: origin, cause: diskFull } satisfies AlertEvent])
      }
      await store.transitionAlert(undefined, peer)
      const start = slack.calls.length
      await notifyAlerts(d, [{ type: 'firing', alert: peer, cause: fetcher1 }])
      const posts = slack.calls.slice(start).filter((c) => c.status === 200 && c.method === 'chat.postMessage')
      expect(posts.map((c) => c.args.thread_ts ?? 'top-level'), name).toEqual(['top-level'])
      expect((await store.getAlert(peer.fingerprint))!.message!.threadTs, name).toBeUndefined()
    }
  })
})
