import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseRules } from '../../dsl/index.js'
import { diagnoseGroup } from '../../engine/consumer-lag-explain.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'

const rules = readdirSync('rules')
  .filter((f) => f.endsWith('.rules'))
  .flatMap((f) => parseRules(readFileSync(`rules/${f}`, 'utf8'), `rules/${f}`).rules)

const MIN = 60_000
const s = (name: string, at: number, broker: string | undefined, value: number | undefined, labels: Record<string, string>, text?: string): Signal => ({
  name,
  at,
  cluster: 'prod',
  ...(broker !== undefined ? { broker } : {}),
  ...(value !== undefined ? { value } : {}),
  labels,
  source: 'test',
  ...(text ? { text } : {}),
})

/** A group on orders-0 (coordinator broker 1, leader broker `leader`), one commit and one log end a minute. */
function history(commit: (i: number) => number, logEnd: (i: number) => number, minutes: number, leader = '2'): Signal[] {
  const out: Signal[] = []
  for (let i = 0; i <= minutes; i++) {
    out.push(s('partition.log_end', i * MIN, leader, logEnd(i), { topic: 'orders', partition: '0' }))
    out.push(s('group.commit', i * MIN + 1000, '1', commit(i), { group: 'billing', topic: 'orders', partition: '0' }))
  }
  return out
}

async function answer(signals: Signal[], to: number) {
  const store = new MemoryStore()
  await store.append(signals)
  return diagnoseGroup(rules, store, { cluster: 'prod', group: 'billing', from: 0, to, now: to })
}

describe('engine/consumer-lag-explain', () => {
  it('a stalled group whose partition leader has a full disk: the broker is named, with its own cause', async () => {
    const signals = history((i) => (i < 10 ? i * 100 : 1000), (i) => i * 100, 25)
    signals.push(s('disk.full', 12 * MIN, '2', undefined, {}, 'java.io.IOException: No space left on device'))
    const d = await answer(signals, 25 * MIN + 2000)
    expect(d.status).toBe('STALLED')
    const broker = d.causes.find((c) => c.kind === 'brokers')
    expect(broker).toMatchObject({ broker: '2', ruleId: 'disk_full' })
    expect(broker!.title).toMatch(/Broker 2, which leads orders-0/)
    expect(d.causes[0].kind).toBe('brokers')
  })

  it('a group behind because producers tripled their rate: the burst ranks first', async () => {
    // 100 a minute for 15 minutes, then 400 a minute; the consumer does 150 a minute throughout.
    const end = (i: number) => (i <= 15 ? i * 100 : 1500 + (i - 15) * 400)
    const d = await answer(history((i) => Math.min(end(i), i * 150), end, 30), 30 * MIN + 2000)
    expect(d.status).toBe('WARNING')
    expect(d.causes[0]).toMatchObject({ kind: 'producers' })
    expect(d.causes[0].title).toMatch(/a burst, not a slower consumer/)
  })

  it('a slower consumer under steady producers is the consumers\' doing', async () => {
    const d = await answer(history((i) => i * 80, (i) => i * 100, 25), 25 * MIN + 2000)
    expect(d.status).toBe('WARNING')
    expect(d.causes[0]).toMatchObject({ kind: 'consumers' })
    expect(d.causes[0].title).toMatch(/consumers slowed down/)
  })

  it('a member stuck past max.poll.interval.ms ranks above a broker cause', async () => {
    const signals = history((i) => (i < 10 ? i * 100 : 1000), (i) => i * 100, 25)
    signals.push(s('group.member_poll_timeout', 10 * MIN, '1', undefined, { group: 'billing', member: 'consumer-billing-1-ab' }))
    signals.push(s('disk.full', 12 * MIN, '2', undefined, {}))
    const d = await answer(signals, 25 * MIN + 2000)
    expect(d.causes[0]).toMatchObject({ kind: 'consumers' })
    expect(d.causes[0].title).toMatch(/stopped polling/)
    expect(d.causes.some((c) => c.kind === 'brokers')).toBe(true)
  })

  it('a group with no commits recorded has no status, so it is not called healthy', async () => {
    const d = await answer([s('partition.log_end', 0, '2', 10, { topic: 'orders', partition: '0' })], MIN)
    expect(d.status).toBeUndefined()
    expect(d.signalsSeen).toBe(0)
  })
})
