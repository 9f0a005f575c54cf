import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Cause, Diagnosis } from '../../engine/diagnosis.js'
import type { AlertRecord } from '../../engine/store/store.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { buildDigest } from '../../bot/digest/build-digest.js'
import { renderAlert, renderAlertUpdate, renderResolved } from '../../bot/render/alert.js'
import { toBlockKit } from '../../bot/render/block-kit.js'
import { toConsole } from '../../bot/render/console.js'
import { renderDiagnosis } from '../../bot/render/diagnosis.js'
import { renderDigest } from '../../bot/render/digest.js'
import { SLACK_LIMITS } from '../../bot/render/slack-limits.js'
import { DAY_END, DAY_START, digestDiagnoses, digestSignals } from './support/digest-data.js'
import { expectGolden } from './support/golden.js'
import { validateBlocks } from './support/validate-blocks.js'

const TEST_FILE = 'test/bot/render.test.ts'
const diagnosis = JSON.parse(readFileSync(new URL('./fixtures/diagnosis-seed-000.json', import.meta.url), 'utf8')) as Diagnosis
const tz = 'America/New_York'
const top = diagnosis.causes[0]
const alert: AlertRecord = {
  fingerprint: 'stw_pause_session_expiry|perf-lab|1',
  ruleId: top.ruleId,
  cluster: 'perf-lab',
  broker: '1',
  labels: {},
  state: 'firing',
  activeAt: top.firstAt,
  firedAt: top.matchedAt + 2_000,
  lastSeenAt: top.lastAt + 2_000,
  firstEvidenceAt: top.firstAt,
  evidenceAt: top.lastAt,
}

describe('bot/render', () => {
  let digestReport: Awaited<ReturnType<typeof buildDigest>>
  beforeAll(async () => {
    const store = new MemoryStore()
    await store.append(digestSignals())
    for (const d of digestDiagnoses()) await store.recordDiagnosis(d)
    digestReport = await buildDigest(store, { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
  })

  it.each([
    ['diagnosis', () => renderDiagnosis(diagnosis, { timeZone: tz, otherBrokers: ['1', '2', '3'] })],
    ['alert-firing', () => renderAlert(alert, top, { timeZone: tz })],
    ['alert-updated', () => renderAlertUpdate(alert, top, top.firstAt, { timeZone: tz })],
    ['alert-resolved', () => renderResolved({ ...alert, state: 'resolved', resolvedAt: top.lastAt + 12 * 60_000 }, top, { timeZone: tz })],
    ['digest', () => renderDigest(digestReport, { timeZone: 'Europe/Berlin' })],
  ])('renders the %s Block Kit as its golden file, within Slack limits', (name, make) => {
    const payload = toBlockKit(make())
    expect(validateBlocks(payload.blocks)).toEqual([])
    expect(payload.text.length).toBeGreaterThan(10)
    expectGolden(`${name}.blocks`, payload, TEST_FILE)
  })

  it('shows every cause with its evidence timeline, advice and buttons', () => {
    const { blocks } = toBlockKit(renderDiagnosis(diagnosis, { timeZone: tz, otherBrokers: ['1', '2'] }))
    const text = JSON.stringify(blocks)
    for (const c of diagnosis.causes) expect(text).toContain(c.cause.slice(0, 40).replace(/'/g, "'"))
    expect(text).toContain('Client session timed out, have not heard from server in 7768ms')
    expect(text).toContain('safepoint.sync 3.3s')
    const actions = blocks.filter((b) => b.type === 'actions')
    const ids = actions.flatMap((b) => (b.elements as { action_id: string }[]).map((e) => e.action_id.replace(/:\d+$/, '')))
    expect(ids).toEqual(expect.arrayContaining(['kafka_show_rule', 'kafka_silence_1h', 'kafka_run', 'kafka_why_broker']))
  })

  it('cuts an oversized diagnosis to Slack limits and says what was cut', () => {
    const evidence = Array.from({ length: 300 }, (_, i) => ({ at: top.firstAt + i, signal: 'isr.shrink', source: 'x', text: `[Partition orders-${i} broker=1] Shrinking ISR from 1,2,3 to 1 <&> ${'x'.repeat(200)}` }))
    const causes: Cause[] = Array.from({ length: 30 }, (_, i) => ({ ...top, ruleId: `r${i}`, cause: `cause ${i} ${'y'.repeat(5000)}`, evidence }))
    const payload = toBlockKit(renderDiagnosis({ ...diagnosis, causes }, { timeZone: tz, otherBrokers: ['1', '2'], maxEvidence: 400 }))
    expect(validateBlocks(payload.blocks)).toEqual([])
    expect(payload.blocks).toHaveLength(SLACK_LIMITS.blocksPerMessage)
    const all = JSON.stringify(payload.blocks)
    expect(all).toMatch(/\d+ more blocks not shown \(Slack allows 50 per message\)/)
    expect(all).toMatch(/characters cut\)/)
    expect(payload.blocks[payload.blocks.length - 1].type).toBe('actions')
    expect(all).toContain('&lt;&amp;&gt;')
  })

  it('dates a firing alert by its first evidence, with the time the engine alerted beside it', () => {
    const text = JSON.stringify(toBlockKit(renderAlert(alert, top, { timeZone: tz })).blocks)
    const local = (ms: number) => `${new Date(ms).toLocaleString('sv-SE', { timeZone: tz })}.${String(ms % 1000).padStart(3, '0')}`
    expect(top.firstAt).toBeLessThan(alert.firedAt!)
    expect(text).toContain(`Firing since ${local(top.firstAt)} ${tz} (first evidence) · alerted ${local(alert.firedAt!).slice(11)}`)
  })

  it('renders the same message for a terminal, buttons as the commands they run', () => {
    const out = toConsole(renderDiagnosis(diagnosis, { timeZone: tz, otherBrokers: ['1', '2'] }))
    expect(out).toContain(`Broker 1 (perf-lab): ${diagnosis.causes.length} likely causes`)
    expect(out).toContain('Client session timed out, have not heard from server in 7768ms')
    expect(out).toContain(`→ explain ${top.ruleId}`)
    expect(out).toContain(`→ silence ${top.ruleId} 1h`)
    expect(out).not.toMatch(/&lt;|&gt;|&amp;|```/)
  })
})
