import { webApi } from '@slack/bolt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notifyAlerts } from '../../bot/alerts/notify-alerts.js'
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

/** An alert record as the engine opens one for a cause, firing at `firedAt`. */
function alertOf(cause: Cause, broker: string, firedAt: number): AlertRecord {
  return { fingerprint: `${cause.ruleId}|lab|${broker}|${JSON.stringify(cause.labels)}`, ruleId: cause.ruleId, cluster: 'lab', broker, labels: cause.labels, state: 'firing', activeAt: cause.firstAt, firedAt, lastSeenAt: cause.lastAt, firstEvidenceAt: cause.firstAt, evidenceAt: cause.lastAt }
}

/**
 * lab-stw, broker 1 frozen 9 s by a safepoint stall, with its failed scrapes (rules/tests/outside):
 * the outside evidence names the broker while it is frozen; the broker's own safepoint line, once it
 * runs again, names the stall. One message in the channel, edited, not two.
 */
describe('bot/alerts: an early cause refined in place (lab-stw, broker 1)', { timeout: 120_000 }, () => {
  const slack = new SlackStandIn()
  let client: InstanceType<typeof webApi.WebClient>
  let rules: Rule[]
  let early: Cause
  let stall: Cause
  beforeAll(async () => {
    await slack.start()
    client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } })
    rules = (await loadRuleSet(CONFIG.rules)).rules
    const store = new MemoryStore()
    const loaded = await loadIncident(store, `${ROOT}test/incidents/lab-stw`)
    await loadIncident(store, `${ROOT}rules/tests/outside/lab-stw-scrapes.jsonl`)
    const w = { cluster: 'lab', broker: '1', from: 0, to: loaded.lastAt! + 1000, now: loaded.lastAt! + 1000, record: false }
    const causes = (await diagnose(rules, store, w)).causes
    early = causes.find((c) => c.ruleId === 'broker_stopped_responding')!
    stall = causes.find((c) => c.ruleId === 'stw_pause_session_expiry')!
  })
  afterAll(() => slack.stop())

  function deps(store: MemoryStore, now: number) {
    const poster = new SlackPoster(async (m, a) => (await client.apiCall(m, a)) as unknown as Record<string, unknown>)
    return { store, poster, config: CONFIG, now: () => now, rules }
  }
  /** When the early rule's evidence was complete: the controller dropping the frozen broker. */
  const earlyAt = () => early.evidence.find((e) => e.signal === 'controller.broker_lost')!.at
  const ok = (from: number) => slack.calls.slice(from).filter((c) => c.status === 200)

  it('edits the first message to name the stall when the broker\'s own evidence arrives; the first alert then says nothing more', async () => {
    expect(early).toBeDefined()
    expect(stall).toBeDefined()
    const store = new MemoryStore()
    const first = alertOf(early, '1', earlyAt() + 2_000)
    const named = alertOf(stall, '1', stall.matchedAt + 500)
    expect(named.firedAt).toBeGreaterThan(first.firedAt!)
    await store.transitionAlert(undefined, first)
    await store.transitionAlert(undefined, named)
    const start = slack.calls.length
    await notifyAlerts(deps(store, first.firedAt!), [{ type: 'firing', alert: first, cause: early }])
    const d = deps(store, named.firedAt!)
    await notifyAlerts(d, [{ type: 'firing', alert: named, cause: stall }])
    // The early alert keeps matching and later resolves: neither reaches the channel.
    await notifyAlerts(d, [{ type: 'updated', alert: first, cause: early }])
    await notifyAlerts(d, [{ type: 'resolved', alert: { ...first, state: 'resolved', resolvedAt: named.firedAt! + 300_000 }, cause: early }])
    const calls = ok(start)
    expect(calls.map((c) => c.method)).toEqual(['chat.postMessage', 'chat.update'])
    const [post, update] = calls
    const ts = (await store.getAlert(first.fingerprint))!.message!.ts
    expect(JSON.stringify(post.args.blocks)).toContain('broker_stopped_responding')
    expect(update.args.ts).toBe(ts)
    expect(update.args.channel).toBe(post.args.channel)
    const text = JSON.stringify(update.args.blocks)
    expect(text).toContain('stw_pause_session_expiry')
    expect(text).toContain('First posted')
    expect(update.problems).toEqual([])
    const stored = (await store.getAlert(named.fingerprint))!
    expect(stored.message?.ts).toBe(ts)
    expect((await store.getAlert(first.fingerprint))!.supersededBy).toBe(named.fingerprint)
    // The alert that named the mechanism owns the message: its resolution edits it and is told in its thread.
    const before = slack.calls.length
    await notifyAlerts(d, [{ type: 'resolved', alert: { ...named, ...stored, state: 'resolved', resolvedAt: named.firedAt! + 300_000 }, cause: stall }])
    expect(ok(before).map((c) => [c.method, c.args.ts ?? c.args.thread_ts])).toEqual([
      ['chat.update', ts],
      ['chat.postMessage', ts],
    ])
  })

  it('posts nothing for the outside alert when the stall was named first: it joins that message', async () => {
    const store = new MemoryStore()
    const named = alertOf(stall, '1', stall.matchedAt + 500)
    const late = alertOf(early, '1', stall.matchedAt + 1_500)
    await store.transitionAlert(undefined, named)
    await store.transitionAlert(undefined, late)
    const start = slack.calls.length
    await notifyAlerts(deps(store, named.firedAt!), [{ type: 'firing', alert: named, cause: stall }])
    await notifyAlerts(deps(store, late.firedAt!), [{ type: 'firing', alert: late, cause: early }])
    const calls = ok(start)
    expect(calls.map((c) => c.method)).toEqual(['chat.postMessage'])
    expect(JSON.stringify(calls[0].args.blocks)).toContain('stw_pause_session_expiry')
    const joined = (await store.getAlert(late.fingerprint))!
    expect(joined.message?.ts).toBe((await store.getAlert(named.fingerprint))!.message!.ts)
    expect(joined.supersededBy).toBe(named.fingerprint)
  })

  it('leaves an unrelated cause on the same broker to a message of its own', async () => {
    const store = new MemoryStore()
    const first = alertOf(early, '1', earlyAt() + 2_000)
    const unrelated: Cause = { ...early, ruleId: 'fd_exhaustion', cause: 'Broker 1 ran out of file descriptors', evidence: [], explainsRules: [] }
    const fd = alertOf(unrelated, '1', stall.matchedAt + 600)
    for (const a of [first, fd]) await store.transitionAlert(undefined, a)
    const start = slack.calls.length
    await notifyAlerts(deps(store, first.firedAt!), [{ type: 'firing', alert: first, cause: early }])
    await notifyAlerts(deps(store, fd.firedAt!), [{ type: 'firing', alert: fd, cause: unrelated }])
    expect(ok(start).map((c) => c.method)).toEqual(['chat.postMessage', 'chat.postMessage'])
    expect((await store.getAlert(first.fingerprint))!.supersededBy).toBeUndefined()
  })
})
