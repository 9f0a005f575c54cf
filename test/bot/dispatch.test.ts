import { beforeAll, describe, expect, it } from 'vitest'
import { handleAction } from '../../bot/actions/handle-action.js'
import { runCommand } from '../../bot/dispatch.js'
import { toConsole } from '../../bot/render/console.js'
import { testContext, type TestContext } from './support/bot-context.js'

// Handlers called directly with a built request, over the real engine, rules and seed-000 incident.
const req = (text: string, user = 'U0CAROL', channel = 'C0PERF') => ({ user, channel, text })

describe('bot/dispatch', () => {
  let t: TestContext
  beforeAll(async () => {
    t = await testContext()
  })

  it('keeps internal failures out of the reply and logs them under the id it quotes', async () => {
    const broken = { ...t.ctx, diagnose: async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:6379 (secret-host)')) }
    const r = await runCommand(broken, req('why 1'))
    expect(r.isError).toBe(true)
    const id = /error id (E-[0-9a-f]{8})/.exec(r.text)?.[1]
    expect(id).toBeDefined()
    expect(JSON.stringify(r)).not.toContain('secret-host')
    expect(t.errors.some((e) => e[0] === `[${id}]` && String(e[1]).includes('secret-host'))).toBe(true)
  })

  it.each([
    ['why 1 30m', /^Broker 1 \(perf-lab\)/],
    ['why perf-lab:1', /^Broker 1 \(perf-lab\)/],
    ['why nowhere:1', /Unknown cluster 'nowhere'\. Known clusters: perf-lab\./],
    ['rules', /^\d+ rules: .*stw_pause_session_expiry/],
    ['explain stw_pause_sesion_expiry', /No rule named 'stw_pause_sesion_expiry'\. Did you mean `stw_pause_session_expiry`\?/],
    ['status', /^perf-lab: 0 firing, 0 silences, 1 brokers reporting$/],
    ['help silence', /^\/kafka silence &lt;rule\|fingerprint&gt; &lt;duration&gt;/],
    ['help frobnicate', /No command 'frobnicate'/],
    ['describe topic orders', /No Kafka admin connection in this test/],
  ])('%s', async (text, expected) => {
    expect((await runCommand(t.ctx, req(text))).text).toMatch(expected)
  })

  it('explains a rule with its source, its signals and where it is defined', async () => {
    const out = toConsole(await runCommand(t.ctx, req('explain stw_pause_session_expiry')))
    expect(out).toMatch(/rule stw_pause_session_expiry/)
    expect(out).toMatch(/• safepoint\.sync: time to bring all threads to a safepoint/)
    expect(out).toMatch(/Defined in .*zookeeper\.rules:\d+|Defined in .*jvm\.rules:\d+/)
  })

  it('silences by alert fingerprint, and the "why another broker" menu runs why', async () => {
    await t.store.transitionAlert(undefined, { fingerprint: 'fp-1', ruleId: 'stw_pause_session_expiry', cluster: 'perf-lab', broker: '1', labels: {}, state: 'firing', activeAt: 1, firedAt: 1, lastSeenAt: 1 })
    const s = await runCommand(t.ctx, req('silence fp-1 2h'))
    expect(s.text).toBe('Silenced fp-1 for 2h')
    const status = await runCommand(t.ctx, req('status'))
    expect(status.text).toBe('perf-lab: 1 firing, 1 silences, 1 brokers reporting')
    const menu = await handleAction(t.ctx, { user: 'U0CAROL', channel: 'C0PERF', actionId: 'kafka_why_broker', value: 'perf-lab:1' })
    expect(menu.text).toMatch(/^Broker 1 \(perf-lab\)/)
  })

  it.each([
    ['a user neither in silencers nor allowed', 'U0MALLORY', 'C0OPS', false],
    ['an allowed user outside the allowed channels', 'U0ALICE', 'C0PERF', false],
    ['an allowed user in an allowed channel', 'U0BOB', 'C0OPS', true],
    ['a listed silencer anywhere', 'U0CAROL', 'C0PERF', true],
  ])('lets %s silence or not, and audits either way', async (_, user, channel, allowed) => {
    const before = (await t.store.listSilences(t.ctx.now())).length
    const typed = await runCommand(t.ctx, { user, channel, text: 'silence not_leader_errors 1h' })
    const clicked = await handleAction(t.ctx, { user, channel, actionId: 'kafka_silence_1h', value: '{"matcher":"not_leader_errors"}' })
    for (const r of [typed, clicked]) expect(r.text).toMatch(allowed ? /^Silenced not_leader_errors for 1h$/ : /You may not silence alerts/)
    expect((await t.store.listSilences(t.ctx.now())).length).toBe(before + (allowed ? 2 : 0))
    const audits = (await t.store.listAudit(2)).filter((a) => a.user === user && a.action === 'silence')
    expect(audits.map((a) => a.outcome)).toEqual(allowed ? ['applied', 'applied'] : ['denied', 'denied'])
  })

  it.each([
    ['kafka_silence_1h', '{"matcher":"x; rm -rf /"}', /carries no valid rule or fingerprint/],
    ['kafka_silence_1h', 'not json', /carries no valid rule or fingerprint/],
    ['kafka_config_confirm', '{"cluster":"perf-lab"}', /no longer carries a valid change/],
    ['kafka_delete_everything', 'x', /is not one kafka-why knows/],
  ])('refuses a %s click carrying %j', async (actionId, value, message) => {
    const calls = t.adminCalls.length
    const r = await handleAction(t.ctx, { user: 'U0ALICE', channel: 'C0OPS', actionId, value })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(message)
    expect(t.adminCalls.length).toBe(calls)
  })
})
