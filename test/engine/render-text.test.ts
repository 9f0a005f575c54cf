import { describe, expect, it } from 'vitest'
import { renderDiagnosis, type TextRenderOptions } from '../../cli/render-text.js'
import { diagnose } from '../../engine/diagnose.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'
import { rules } from './parse.js'
import { sig } from './signals.js'

const RULES = rules(`
rule stw severity critical
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "JVM pause ({safepoint.sync}) on broker {broker}" advise "raise the session timeout" explains isr.shrink
       run "config broker {broker}"
rule shrinks when count(isr.shrink) over 1m > 1 then cause "shrinks"
rule gc when zk.session_timeout within 5s of gc.pause > 2s then cause "gc"`)

async function render(signals: Signal[], opts: TextRenderOptions = { verbose: true }): Promise<string> {
  const store = new MemoryStore()
  await store.append(signals)
  return renderDiagnosis(await diagnose(RULES, store, { cluster: 'c', broker: '1', from: 0, to: 3_600_000, now: 3_600_000, record: false }), opts)
}

describe('cli/render-text', () => {
  it('shows ranked causes with their score, advice, next step and a marked timeline', async () => {
    const text = await render([
      sig('safepoint.sync', 7, 3301, undefined),
      { ...sig('zk.session_timeout', 10, 7768), text: 'WARN Client session timed out, have not heard from server in 7768ms' },
      sig('isr.shrink', 12, undefined, { topic: 'orders' }),
      sig('isr.shrink', 13, undefined, { topic: 'orders' }),
    ])
    const lines = text.split('\n')
    expect(lines[0]).toBe('broker 1 of c · 1970-01-01 00:00:00Z → 1970-01-01 01:00:00Z (1h) · 4 signals, 3 rules')
    expect(lines).toContain('1. CRITICAL  JVM pause (3.3s) on broker 1')
    expect(lines).toContain('2. WARNING  shrinks (a consequence of stw)')
    expect(text).toMatch(/score \d+(\.\d)? = critical 3000 \+ 3 signals 30 \+ recency 0/)
    expect(lines).toContain('   advise: raise the session timeout')
    expect(lines).toContain('   next (Slack): /kafka config broker 1')
    const first = lines.slice(lines.indexOf('1. CRITICAL  JVM pause (3.3s) on broker 1'), lines.indexOf('2. WARNING  shrinks (a consequence of stw)'))
    const timeline = first.filter((l) => /^ {5}(↳ | {2})\d\d:/.test(l))
    expect(timeline.map((l) => l.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      '00:00:07.000 safepoint.sync 3.3s',
      '00:00:10.000 zk.session_timeout 7.77s',
      '↳ 00:00:12.000 isr.shrink',
      '↳ 00:00:13.000 isr.shrink',
    ])
    expect(text).toContain('Client session timed out, have not heard from server in 7768ms  [test:zk.session_timeout:10]')
    expect(text).not.toContain('Near misses')
  })

  it('says when there is no data rather than "nothing wrong"', async () => {
    expect(await render([])).toContain('No signals stored for broker 1 in this window: nothing to diagnose.')
  })

  it('lists near misses and what is abnormal when nothing matched', async () => {
    const text = await render([sig('zk.session_timeout', 10, 7768), sig('gc.pause', 11, 900, { kind: 'young' })])
    expect(text).toContain('No rule matched.')
    expect(text).toContain('Near misses (part of a rule held):')
    expect(text).toContain('  - [gc] a ZooKeeper session timeout (7.77s) at 00:00:10, but no gc.pause > 2s within 5s')
    // A 900 ms young pause is routine and not listed; the session timeout is.
    expect(text).toContain('Abnormal in the window:\n  - 1 × a ZooKeeper session timeout, last at 00:00:10; worst 7.77s at 00:00:10')
    expect(text).not.toContain('a GC pause')
  })

  it('shows a person at 3 a.m. the causes, three telling lines each, consequences and near misses in one line', async () => {
    const signals: Signal[] = [
      sig('safepoint.sync', 3, 40),
      sig('safepoint.sync', 5, 60),
      sig('safepoint.sync', 7, 3301),
      { ...sig('zk.session_timeout', 10, 7768), text: 'WARN Client session timed out, have not heard from server in 7768ms' },
      ...[12, 13, 14, 15].map((t) => sig('isr.shrink', t, undefined, { topic: 'orders' })),
    ]
    const text = await render(signals, {})
    const lines = text.split('\n')
    expect(lines).toContain('1. CRITICAL  JVM pause (3.3s) on broker 1')
    expect(text).not.toMatch(/score \d/)
    expect(lines).toContain('2. WARNING  shrinks (a consequence of stw)')
    // the consequence cause is one line: its rule line and evidence are not repeated
    expect(lines[lines.indexOf('2. WARNING  shrinks (a consequence of stw)') + 1]).toBe('')
    const head = lines.indexOf('1. CRITICAL  JVM pause (3.3s) on broker 1')
    const evidence = lines.slice(head).filter((l) => /^ {5}(↳ | {2})\d\d:/.test(l))
    expect(evidence.map((l) => l.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual(['00:00:07.000 safepoint.sync 3.3s', '00:00:10.000 zk.session_timeout 7.77s', '↳ 00:00:12.000 isr.shrink'])
    expect(lines).toContain('   evidence (3 of 6):')
    expect(text).toContain('(--verbose: scores, every evidence line and consequence, near-miss evidence)')
    expect(text).not.toContain('\x1b[')
    expect(await render(signals, { color: true })).toContain('\x1b[1;31mCRITICAL\x1b[0m')
    const near = await render([sig('zk.session_timeout', 10, 7768), sig('gc.pause', 11, 900, { kind: 'young' })], {})
    const nearLines = near.split('\n')
    const at = nearLines.indexOf('Near misses (part of a rule held):')
    const block = nearLines.slice(at + 1, nearLines.indexOf('', at))
    expect(block.map((l) => /^ {2}- \[(\w+)\] a ZooKeeper session timeout/.exec(l)?.[1]).sort()).toEqual(['gc', 'stw'])
  })
})
