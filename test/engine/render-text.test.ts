import { describe, expect, it } from 'vitest'
import { renderDiagnosis } from '../../cli/render-text.js'
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

async function render(signals: Signal[]): Promise<string> {
  const store = new MemoryStore()
  await store.append(signals)
  return renderDiagnosis(await diagnose(RULES, store, { cluster: 'c', broker: '1', from: 0, to: 3_600_000, now: 3_600_000, record: false }))
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
    expect(lines).toContain('   next: config broker 1')
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
    expect(text).toContain('Abnormal in the window:\n  - 1 × a GC pause, last at 00:00:11; worst 900ms at 00:00:11')
  })
})
