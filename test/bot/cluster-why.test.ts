import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlackBot } from '../../bot/app.js'
import { whyUploaded } from '../../bot/commands/why-upload.js'
import { CONSOLE_CHANNEL, CONSOLE_USER, openConsole } from '../../bot/console/console-context.js'
import { runCommand } from '../../bot/dispatch.js'
import { loadIncident } from '../../bot/engine-bridge.js'
import type { BotMessage } from '../../bot/message.js'
import { toBlockKit } from '../../bot/render/block-kit.js'
import { toConsole } from '../../bot/render/console.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { ROOT, TEST_CONFIG, testContext, type TestContext } from './support/bot-context.js'
import { expectGolden } from './support/golden.js'
import { startHttpBot } from './support/http-bot.js'
import { signedHeaders } from './support/sign.js'
import { SlackStandIn } from './support/slack-stand-in.js'
import { validateBlocks } from './support/validate-blocks.js'

const TEST_FILE = 'test/bot/cluster-why.test.ts'
const DISK_FULL = `${ROOT}test/incidents/lab-disk-full`
const SECRET = 'test-signing-secret-0123456789'
/** The test configuration plus the recording's cluster, `lab`, whose channel is C0LAB. */
const CONFIG = TEST_CONFIG.replace('clusters:\n', 'clusters:\n  lab:\n    brokers: [127.0.0.1:9093]\n    channel: C0LAB\n')

function shown(m: BotMessage): string {
  return [m.text, ...m.parts.map((p) => ('text' in p ? String(p.text) : ''))].join('\n')
}

describe('/kafka why with no broker: the cluster answer (lab-disk-full, broker 3 full)', { timeout: 120_000 }, () => {
  let t: TestContext
  beforeAll(async () => {
    const store = new MemoryStore()
    const loaded = await loadIncident(store, DISK_FULL)
    t = await testContext({ store, config: CONFIG, replay: false, now: loaded.lastAt! + 1000 })
  })

  it('in the cluster channel names broker 3 the origin, and brokers 1 and 2 its consequences', async () => {
    const reply = await runCommand(t.ctx, { user: 'U0ALICE', channel: 'C0LAB', text: 'why' })
    expect(reply.isError).toBeFalsy()
    const header = reply.parts[0]
    expect(header).toEqual({ kind: 'header', text: 'Cluster lab: origin broker 3 (disk_full)' })
    const text = shown(reply)
    expect(text).toContain('*Origin: broker 3* — explains')
    expect(text).toMatch(/\*broker 1\*: warning `fetcher_cannot_reach_leader` \{leader=3\} — a consequence of broker 3's `disk_full`/)
    expect(text).toMatch(/\*broker 2\*: warning `fetcher_cannot_reach_leader` \{leader=3\} — a consequence of broker 3's `disk_full`/)
    // The origin's own evidence: broker 3's No space left on device line.
    expect(text).toContain('No space left on device')
    // Broker 1 and 2 are one line each, not answers of their own.
    expect(text.match(/Origin: broker/g)).toHaveLength(1)
    const payload = toBlockKit(reply)
    expect(validateBlocks(payload.blocks)).toEqual([])
    expectGolden('cluster-diagnosis.blocks', payload, TEST_FILE)
  })

  it('buttons carry only ids: the broker picker runs `why lab:<broker>`, which is checked again', async () => {
    const reply = await runCommand(t.ctx, { user: 'U0ALICE', channel: 'C0LAB', text: 'why' })
    const picker = reply.parts.filter((p) => p.kind === 'actions').flatMap((p) => p.elements).find((e) => e.kind === 'select')
    expect(picker && picker.kind === 'select' && picker.options.map((o) => o.value)).toEqual(['lab:1', 'lab:2', 'lab:3'])
    const one = await runCommand(t.ctx, { user: 'U0ALICE', channel: 'C0LAB', text: 'why lab:3' })
    expect(one.parts[0]).toMatchObject({ kind: 'header', text: expect.stringMatching(/^Broker 3 \(lab\)/) })
  })

  it('a window given alone (`why 10m`) is still the cluster answer', async () => {
    const reply = await runCommand(t.ctx, { user: 'U0ALICE', channel: 'C0LAB', text: 'why 10m' })
    expect(reply.parts[0]).toMatchObject({ text: 'Cluster lab: origin broker 3 (disk_full)' })
    expect(reply.parts[1]).toMatchObject({ kind: 'context', text: expect.stringContaining('3 brokers') })
  })

  it('outside a cluster channel `why` alone keeps the usage answer', async () => {
    const reply = await runCommand(t.ctx, { user: 'U0ALICE', channel: 'C0RANDOM', text: 'why' })
    expect(reply.isError).toBe(true)
    expect(reply.text).toBe(':warning: Missing arguments. Usage: `/kafka why &lt;broker&gt; [since]`')
  })

  it('the console shows the same answer', async () => {
    const out = toConsole(await runCommand(t.ctx, { user: 'U0ALICE', channel: 'C0LAB', text: 'why' }))
    const lines = out.split('\n')
    expect(lines[0]).toBe('Cluster lab: origin broker 3 (disk_full)')
    expect(out).toContain('Origin: broker 3 — explains')
    expect(out).toMatch(/broker 1: warning fetcher_cannot_reach_leader \{leader=3\} — a consequence of broker 3's disk_full/)
    expect(out).toContain('[Why one broker…: broker 1 | broker 2 | broker 3]')
  })
})

describe('kafka-why console over lab-disk-full', { timeout: 120_000 }, () => {
  it('`why` alone prints the cluster answer, origin broker 3 first', async () => {
    const session = await openConsole({ replay: DISK_FULL, env: { REDIS_URL: '' }, log: { error: () => undefined, info: () => undefined, warn: () => undefined } })
    try {
      const out = toConsole(await runCommand(session.ctx, { user: CONSOLE_USER, channel: CONSOLE_CHANNEL, text: 'why' }))
      expect(out.split('\n')[0]).toBe('Cluster lab: origin broker 3 (disk_full)')
      // Broker 2's own data ends at its shutdown (12:03:52), before broker 1's: it is answered there.
      expect(out).toMatch(/broker 2 \(answered at its last record, [^)]*\): warning fetcher_cannot_reach_leader \{leader=3\} — a consequence of broker 3's disk_full/)
    } finally {
      await session.close()
    }
  })
})

describe('/kafka why with no broker through the HTTP receiver', { timeout: 120_000 }, () => {
  const slack = new SlackStandIn()
  let bot: SlackBot
  let url: string
  beforeAll(async () => {
    await slack.start()
    const store = new MemoryStore()
    const loaded = await loadIncident(store, DISK_FULL)
    const t = await testContext({ store, config: CONFIG, replay: false, now: loaded.lastAt! + 1000 })
    ;({ bot, url } = await startHttpBot(t.ctx, slack, SECRET))
  })
  afterAll(async () => {
    await bot?.stop()
    await slack.stop()
  })

  it('answers a signed `/kafka why` in the cluster channel for the cluster, within Slack limits', async () => {
    const responseUrl = slack.responseUrl()
    const body = new URLSearchParams({
      token: 'x', team_id: 'TTEAM', team_domain: 'example', channel_id: 'C0LAB', channel_name: 'kafka-lab', user_id: 'U0ALICE', user_name: 'alice',
      command: '/kafka', text: 'why', api_app_id: 'AAPP', response_url: responseUrl, trigger_id: '1.2.3',
    }).toString()
    const res = await fetch(url, { method: 'POST', body, headers: signedHeaders(SECRET, body) })
    await res.text()
    expect(res.status).toBe(200)
    const path = new URL(responseUrl).pathname
    await slack.waitFor(() => slack.responses.some((r) => r.args.__path === path))
    const r = slack.responses.find((x) => x.args.__path === path)!.args as Record<string, any>
    expect(r.response_type).toBe('in_channel')
    expect(r.blocks[0].text.text).toBe('Cluster lab: origin broker 3 (disk_full)')
    expect(JSON.stringify(r.blocks)).toContain("a consequence of broker 3's `disk_full`")
    expect(slack.allProblems()).toEqual([])
  })
})

describe('why over an upload of several brokers\' logs', { timeout: 120_000 }, () => {
  it('answers for the cluster, origin first, without the live clusters\' buttons', async () => {
    const t = await testContext({ config: CONFIG, replay: false })
    const uploads = []
    for (const b of ['1', '2', '3']) uploads.push({ name: `broker-${b}/server.log`, bytes: await readFile(`${DISK_FULL}/broker-${b}/server.log`) })
    const reply = await whyUploaded(t.ctx, { channel: 'C0LAB' }, uploads)
    expect(reply.isError).toBeFalsy()
    expect(reply.parts[0]).toEqual({ kind: 'header', text: 'Cluster lab: origin broker 3 (disk_full)' })
    const text = shown(reply)
    expect(text).toContain('Read from the shared broker-1/server.log, broker-2/server.log, broker-3/server.log')
    expect(text).toMatch(/\*broker 1\*: warning `fetcher_cannot_reach_leader` \{leader=3\} — a consequence of broker 3's `disk_full`/)
    expect(reply.parts.some((p) => p.kind === 'actions')).toBe(false)
    expect(validateBlocks(toBlockKit(reply).blocks)).toEqual([])
  })
})
