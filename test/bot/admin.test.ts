import kafkajs from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KafkaAdminOps } from '../../adapters/admin/ops.js'
import { startCluster, type LabCluster } from '../../lab/cluster.js'
import { labUnavailableReason } from '../../lab/kafka-runtime.js'
import { handleAction } from '../../bot/actions/handle-action.js'
import { runCommand } from '../../bot/dispatch.js'
import { connectKafkaAdmin } from '../../bot/engine-bridge.js'
import type { BotMessage } from '../../bot/message.js'
import { toBlockKit } from '../../bot/render/block-kit.js'
import { toConsole } from '../../bot/render/console.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { StoreUnavailableError, type AuditRecord } from '../../engine/store/store.js'
import { testContext, type TestContext } from './support/bot-context.js'

// A real one-broker ZooKeeper-mode Kafka from the lab; the bot's admin commands run against it.
const unavailable = labUnavailableReason()
if (unavailable) console.warn(`test/bot/admin: skipped, the lab needs Java and Maven: ${unavailable}`)

const ALICE = { user: 'U0ALICE', channel: 'C0OPS' }
const BOB = { user: 'U0BOB', channel: 'C0OPS' }

describe.skipIf(unavailable !== undefined)('bot/commands (admin against a real broker)', () => {
  let cluster: LabCluster
  let admin: KafkaAdminOps
  let t: TestContext
  const audit: BotMessage[] = []

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, mode: 'zk', heapMb: 256, exporter: false })
    const k = new kafkajs.Kafka({ brokers: cluster.bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING })
    const a = k.admin()
    await a.connect()
    await a.createTopics({ waitForLeaders: true, topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 1, configEntries: [{ name: 'segment.ms', value: '100' }] }] })
    await a.disconnect()
    admin = await connectKafkaAdmin('perf-lab', cluster.bootstrap.split(','))
    for (let i = 0; i < 50; i++) {
      if (await admin.describeTopic('orders').then((d) => d.partitions.length === 3, () => false)) break
      await new Promise((r) => setTimeout(r, 200))
    }
    t = await testContext({ admin })
    t.ctx.post = async (_channel, msg) => void audit.push(msg)
  }, 180_000)

  afterAll(async () => {
    await admin?.close()
    await cluster?.stop()
  })

  const run = (text: string, who = ALICE) => runCommand(t.ctx, { ...who, text })
  const segmentMs = async () => (await admin.topicConfig('orders'))['segment.ms']
  /** Presses a button of a rendered message the way Slack would send it: its action_id and value. */
  function press(msg: BotMessage, label: string, who: { user: string; channel: string }) {
    const el = toBlockKit(msg)
      .blocks.filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as { action_id: string; value: string; text: { text: string } }[])
      .find((e) => e.text.text === label)
    if (!el) throw new Error(`no button '${label}' in ${toConsole(msg)}`)
    return handleAction(t.ctx, { ...who, actionId: el.action_id, value: el.value })
  }

  function buttonValue(msg: BotMessage, label: string): string {
    const el = toBlockKit(msg)
      .blocks.filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as { value: string; text: { text: string } }[])
      .find((e) => e.text.text === label)
    if (!el) throw new Error(`no button '${label}' in ${toConsole(msg)}`)
    return el.value
  }

  it('describes a topic, a broker and the topic config for everyone', async () => {
    const topic = await run('describe topic orders', { user: 'U0CAROL', channel: 'C0PERF' })
    expect(topic.text).toBe('Topic orders: 3 partitions, 0 under-replicated, 0 offline')
    expect(toConsole(topic)).toMatch(/segment\.ms=100/)
    const broker = await run(`describe broker ${cluster.brokers[0].id}`, { user: 'U0CAROL', channel: 'C0PERF' })
    expect(broker.text).toContain(`Broker ${cluster.brokers[0].id}: 127.0.0.1:${cluster.brokers[0].port}`)
    const config = await run('config topic orders', { user: 'U0CAROL', channel: 'C0PERF' })
    expect(toConsole(config)).toMatch(/segment\.ms = 100 +\[DYNAMIC_TOPIC_CONFIG\]/)
  })

  it('describes a consumer group with its members', async () => {
    const k = new kafkajs.Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'bot-test-consumer', logLevel: kafkajs.logLevel.NOTHING })
    const consumer = k.consumer({ groupId: 'bot-test-group', sessionTimeout: 10_000, heartbeatInterval: 1000 })
    await consumer.connect()
    try {
      await consumer.subscribe({ topics: ['orders'], fromBeginning: true })
      await consumer.run({ eachMessage: async () => undefined })
      for (let i = 0; i < 100; i++) {
        if ((await admin.describeGroup('bot-test-group')).state === 'Stable') break
        await new Promise((r) => setTimeout(r, 200))
      }
      const g = await run('describe group bot-test-group', { user: 'U0CAROL', channel: 'C0PERF' })
      expect(g.text).toBe('Group bot-test-group: Stable, 1 members')
      expect(toConsole(g)).toMatch(/• bot-test-consumer /)
    } finally {
      await consumer.disconnect()
    }
  }, 60_000)

  it.each([
    ['describe topic no-such-topic', /Topic no-such-topic on perf-lab does not exist/],
    ['config topic orders set segmnt.ms=1', /Topic orders has no config key 'segmnt.ms'\. Did you mean `segment.ms`\?/],
    ['config topic orders set segment.ms=100', /already 100\. Nothing to change/],
  ])('%s gets a clear reply', async (text, message) => {
    const r = await run(text)
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(message)
  })

  it('refuses a change from an allowed user in a channel that is not allowed, without touching Kafka', async () => {
    const before = t.adminCalls.length
    const r = await run('config topic orders set segment.ms=3600000', { user: 'U0ALICE', channel: 'C0PERF' })
    expect(r.text).toMatch(/You may not change configuration here/)
    expect(t.adminCalls.length).toBe(before)
    expect((await segmentMs()).value).toBe('100')
  })

  it('shows current and new value, changes nothing until Confirm, then applies and audits', async () => {
    const prompt = await run('config topic orders set segment.ms=3600000')
    expect(prompt.isError).toBeUndefined()
    expect(toConsole(prompt)).toMatch(/Current: `?100`?[\s\S]*New: `?3600000`?/)
    expect((await segmentMs()).value).toBe('100')
    const notMine = await press(prompt, 'Confirm', BOB)
    expect(notMine.text).toMatch(/Only <@U0ALICE>, who asked for this change, can confirm it/)
    expect((await segmentMs()).value).toBe('100')
    const done = await press(prompt, 'Confirm', ALICE)
    expect(done.text).toBe('Applied: segment.ms of topic orders on perf-lab: 100 → 3600000')
    expect(done.replaceOriginal).toBe(true)
    expect((await segmentMs()).value).toBe('3600000')
    const records = await t.store.listAudit(100)
    // The refused request from the wrong channel (previous test), Bob's refused confirm, the request,
    // the approval written before Kafka was touched, the change.
    expect(records.filter((r) => r.target === 'perf-lab:topic/orders:segment.ms').map((r) => `${r.outcome} ${r.user}`).sort()).toEqual(['applied U0ALICE', 'approved U0ALICE', 'denied U0ALICE', 'denied U0BOB', 'requested U0ALICE'])
    const applied = records.findIndex((r) => r.outcome === 'applied')
    expect(records.findIndex((r) => r.outcome === 'approved')).toBe(applied + 1)
    expect(audit.some((m) => m.text === 'audit: applied config set perf-lab:topic/orders:segment.ms by U0ALICE')).toBe(true)
  })

  it('needs a second person to approve a risky key', async () => {
    const prompt = await run('config topic orders set retention.ms=86400000')
    expect(toConsole(prompt)).toMatch(/risky key/)
    const waiting = await press(prompt, 'Confirm', ALICE)
    expect(waiting.text).toMatch(/^Change retention\.ms/)
    expect(toConsole(waiting)).toMatch(/a second allowed person must approve/)
    expect((await admin.topicConfig('orders'))['retention.ms'].isDefault).toBe(true)
    const self = await press(waiting, 'Approve', ALICE)
    expect(self.text).toMatch(/a second person must approve it, not the one who asked/)
    expect((await admin.topicConfig('orders'))['retention.ms'].isDefault).toBe(true)
    const outsider = await press(waiting, 'Approve', { user: 'U0CAROL', channel: 'C0OPS' })
    expect(outsider.text).toMatch(/You may not approve/)
    const approved = await press(waiting, 'Approve', BOB)
    expect(approved.text).toMatch(/^Applied: retention\.ms of topic orders on perf-lab: \d+ → 86400000$/)
    expect((await admin.topicConfig('orders'))['retention.ms'].value).toBe('86400000')
  })

  it('resets a key to the broker default, and Cancel leaves it alone', async () => {
    const cancelPrompt = await run('config topic orders set segment.ms=7200000')
    const cancelled = await press(cancelPrompt, 'Cancel', ALICE)
    expect(cancelled.text).toBe('Cancelled: segment.ms of topic orders stays 3600000')
    expect((await segmentMs()).value).toBe('3600000')
    const prompt = await run('config topic orders reset segment.ms')
    const done = await press(prompt, 'Confirm', ALICE)
    expect(done.isError).toBeUndefined()
    const now = await segmentMs()
    expect(now.isDefault).toBe(true)
    expect(done.text).toBe(`Applied: segment.ms of topic orders on perf-lab: 3600000 → ${now.value}`)
  })

  it('refuses to apply when the value moved since the prompt', async () => {
    const prompt = await run('config topic orders set segment.ms=900000')
    await admin.setTopicConfig('orders', 'segment.ms', '1800000')
    const r = await press(prompt, 'Confirm', ALICE)
    expect(r.text).toMatch(/changed since this was requested \(it is now `1800000`/)
    expect((await segmentMs()).value).toBe('1800000')
  })

  it('takes nothing from a button but the change id: an edited value cannot make a risky key plain or invent a change', async () => {
    const prompt = await run('config topic orders set retention.ms=3600000')
    const id = buttonValue(prompt, 'Confirm')
    expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/)
    // What a button carried before: the whole change, editable by anyone who can sign a request.
    const forged = JSON.stringify({ cluster: 'perf-lab', topic: 'orders', op: 'set', key: 'retention.ms', value: '1000', before: (await admin.topicConfig('orders'))['retention.ms'].value, requestedBy: 'U0ALICE', channel: 'C0OPS', risky: false })
    for (const value of [forged, 'AAAAAAAAAAAAAAAA', `${id}x`]) {
      const r = await handleAction(t.ctx, { ...ALICE, actionId: 'kafka_config_confirm', value })
      expect(r.text).toMatch(/no longer carries a valid change|unknown or expired/)
    }
    const approveEarly = await handleAction(t.ctx, { ...BOB, actionId: 'kafka_config_approve', value: id })
    expect(approveEarly.text).toMatch(/already requested/)
    const waiting = await press(prompt, 'Confirm', ALICE)
    expect(toConsole(waiting)).toMatch(/a second allowed person must approve/)
    expect((await admin.topicConfig('orders'))['retention.ms'].value).toBe('86400000')
    await press(waiting, 'Cancel', ALICE)
  })

  it('makes Cancel final and uses a change once: a stale Confirm does nothing after the value changed and changed back', async () => {
    const cancelPrompt = await run('config topic orders set segment.ms=1234567')
    await press(cancelPrompt, 'Cancel', BOB)
    const afterCancel = await press(cancelPrompt, 'Confirm', ALICE)
    expect(afterCancel.text).toMatch(/already cancelled by <@U0BOB>/)
    expect((await segmentMs()).value).toBe('1800000')

    const prompt = await run('config topic orders set segment.ms=2345678')
    expect((await press(prompt, 'Confirm', ALICE)).text).toBe('Applied: segment.ms of topic orders on perf-lab: 1800000 → 2345678')
    await admin.setTopicConfig('orders', 'segment.ms', '1800000')
    const stale = await press(prompt, 'Confirm', ALICE)
    expect(stale.text).toMatch(/already applied by <@U0ALICE>/)
    expect((await segmentMs()).value).toBe('1800000')
  })

  it('refuses a prompt after 15 minutes', async () => {
    const prompt = await run('config topic orders set segment.ms=3456789')
    const realNow = t.ctx.now
    t.ctx.now = () => realNow() + 15 * 60_000 + 1
    try {
      const late = await press(prompt, 'Confirm', ALICE)
      expect(late.text).toMatch(/This change expired/)
    } finally {
      t.ctx.now = realNow
    }
    expect((await segmentMs()).value).toBe('1800000')
  })

  it('changes nothing when the audit record cannot be written first, and says so truthfully', async () => {
    class AuditDownAtApply extends MemoryStore {
      override async appendAudit(r: AuditRecord): Promise<void> {
        if (r.outcome === 'approved') throw new StoreUnavailableError('cannot reach Redis at 127.0.0.1:6379: connection refused')
        return super.appendAudit(r)
      }
    }
    const own = await testContext({ admin, store: new AuditDownAtApply() })
    const prompt = await runCommand(own.ctx, { ...ALICE, text: 'config topic orders set segment.ms=4567890' })
    const value = buttonValue(prompt, 'Confirm')
    const r = await handleAction(own.ctx, { ...ALICE, actionId: 'kafka_config_confirm', value })
    expect(r.text).toMatch(/audit trail could not be written, so nothing was changed/)
    expect((await segmentMs()).value).toBe('1800000')
    expect(own.adminCalls.filter((c) => c.startsWith('setTopicConfig'))).toEqual([])
    expect((await own.store.getPendingChange(value))?.state).toBe('failed')
  })

  it('passes Kafka\'s refusal of an invalid value back as a clear reply', async () => {
    const prompt = await run('config topic orders set segment.ms=soon')
    const r = await press(prompt, 'Confirm', ALICE)
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/Kafka refused it/)
    expect((await segmentMs()).value).toBe('1800000')
    expect((await t.store.listAudit(100)).some((a) => a.outcome === 'failed')).toBe(true)
  })
})
