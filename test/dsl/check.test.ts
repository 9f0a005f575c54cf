import { describe, expect, it } from 'vitest'
import { parseRules } from '../../dsl/index.js'
import { closest, editDistance } from '../../dsl/suggest.js'

const codes = (src: string, retentionMs?: number) => parseRules(src, 'c.rules', { retentionMs }).diagnostics.map((d) => d.code)
const rule = (when: string, then = 'cause "x"') => `rule r when ${when} then ${then}`

describe('dsl/check', () => {
  it.each([
    ['known signal', rule('safepoint.sync > 2s'), []],
    ['unknown signal', rule('safepoint.synch > 2s'), ['DSL012']],
    ['known label filter', rule('isr.shrink{topic="orders"}'), []],
    ['unknown label filter', rule('isr.shrink{topc="orders"}'), ['DSL013']],
    ['known by label', rule('count(group.rebalance) by group over 1h > 30'), []],
    ['unknown by label', rule('count(group.rebalance) by topic over 1h > 30'), ['DSL013']],
    ['valid regex', rule('gc.pause{kind=~"Full.*"}'), []],
    ['invalid regex', rule('gc.pause{kind=~"[Full"}'), ['DSL006']],
    ['duration against duration', rule('config.segment_ms < 1m'), []],
    ['size against duration', rule('safepoint.sync > 3GB'), ['DSL014']],
    ['percentage against ratio', rule('request_handler.idle < 20%'), []],
    ['plain number against ratio', rule('request_handler.idle < 0.2'), ['DSL014']],
    ['zero against any unit', rule('heap.used > 0'), []],
    ['version against version', rule('broker.version < 2.2.1'), []],
    ['number against version', rule('broker.version < 2'), ['DSL014']],
    ['rate against rate', rule('rate(isr.shrink) over 5m > 2/s'), []],
    ['count against rate', rule('rate(isr.shrink) over 5m > 2'), ['DSL014']],
    ['max keeps the signal unit', rule('max(gc.pause) over 1h > 5s'), []],
    ['max with the wrong unit', rule('max(gc.pause) over 1h > 5GiB'), ['DSL014']],
    ['trend against a plain number', rule('trend(heap.after_gc) over 6h > 0'), []],
    ['window that is not a duration', rule('isr.shrink before leader.change within 3GiB'), ['DSL014']],
    ['over window that is not a duration', rule('count(isr.shrink) over 3 > 1'), ['DSL014']],
    ['comparison on an event with a value', rule('gc.pause > 1s'), []],
    ['comparison on an event without a value', rule('isr.shrink > 1s'), ['DSL015']],
    ['count over an event without a value', rule('count(isr.shrink) over 5m > 3'), []],
    ['avg over an event without a value', rule('avg(isr.shrink) over 5m > 3'), ['DSL015']],
    ['aggregate over a fact', rule('max(config.segment_ms) over 1h < 1m'), ['DSL016']],
    ['placeholder naming a signal', rule('safepoint.sync > 2s', 'cause "{safepoint.sync}"'), []],
    ['placeholder naming a label', rule('isr.shrink', 'cause "{topic} {partition}"'), []],
    ['placeholder naming a by label', rule('count(group.rebalance) by group over 1h > 30', 'cause "{group}"'), []],
    ['placeholder broker and cluster', rule('jvm.oom', 'cause "{broker} in {cluster}"'), []],
    ['placeholder naming nothing', rule('jvm.oom', 'cause "{topic}"'), ['DSL019']],
    ['placeholder in run naming nothing', rule('jvm.oom', 'cause "x" run "config topic {topic}"'), ['DSL019']],
    ['explains a known signal', rule('jvm.oom', 'cause "x" explains isr.shrink'), []],
    ['explains an unknown signal', rule('jvm.oom', 'cause "x" explains isr.shrinks'), ['DSL020']],
    ['ratio that can exceed', rule('request_handler.idle > 99%'), []],
    ['ratio that never exceeds 100%', rule('request_handler.idle > 100%'), ['DSL022']],
    ['count that can be small', rule('partitions.offline < 1'), []],
    ['count below zero', rule('partitions.offline < 0'), ['DSL022']],
    ['trend below zero', rule('trend(heap.after_gc) over 6h < 0'), []],
    ['A and not A', rule('jvm.oom and not (jvm.oom)'), ['DSL022']],
    ['A and not B', rule('jvm.oom and not disk.full'), []],
    ['for on a gauge', rule('heap.used > 3GiB for 5m'), []],
    ['for on an event', rule('safepoint.sync > 2s for 5m'), ['DSL023']],
    ['for on a fact', rule('config.segment_ms < 1m for 5m'), ['DSL023']],
    ['temporal over events', rule('zk.session_timeout within 5s of safepoint.sync > 2s'), []],
    ['temporal over a gauge', rule('heap.used within 5s of jvm.oom'), ['DSL024']],
    ['unnamed rule', 'when jvm.oom then cause "x"', ['DSL018']],
    ['severity misspelt', 'rule r severity critcal when jvm.oom then cause "x"', ['DSL011']],
    ['severity twice', 'rule r severity info when jvm.oom then cause "x" severity critical', ['DSL010']],
    ['advise twice', rule('jvm.oom', 'cause "x" advise "a" advise "b"'), ['DSL010']],
    ['duplicate names', `${rule('jvm.oom')}\n${rule('disk.full')}`, ['DSL017']],
    ['placeholder syntax', rule('jvm.oom', 'cause "{ broker"'), ['DSL025']],
    ['unknown unit', rule('safepoint.sync > 2secs'), ['DSL005']],
  ])('%s', (_name, src, expected) => {
    expect(codes(src)).toEqual(expected)
  })

  it.each([
    ['within retention', 'count(isr.shrink) over 1d > 3', 7 * 86_400_000, []],
    ['beyond retention', 'count(isr.shrink) over 8d > 3', 7 * 86_400_000, ['DSL021']],
    ['temporal window beyond retention', 'isr.shrink within 2h of jvm.oom', 3_600_000, ['DSL021']],
    ['sustained beyond retention', 'heap.used > 1GiB for 2h', 3_600_000, ['DSL021']],
    ['no retention configured', 'count(isr.shrink) over 365d > 3', undefined, []],
  ])('retention: %s', (_name, when, retentionMs, expected) => {
    expect(codes(rule(when), retentionMs)).toEqual(expected)
  })

  it('suggests the fix as data, not only as text', () => {
    const [d] = parseRules(rule('safepoint.synch > 2s'), 'c.rules').diagnostics
    expect(d.suggestion).toBe('safepoint.sync')
    const src = rule('safepoint.synch > 2s')
    expect(src.slice(d.span.startOffset, d.span.endOffset)).toBe('safepoint.synch')
  })

  it.each([
    ['safepoint.synch', 'safepoint.sync'],
    ['zk.sesion_timeout', 'zk.session_timeout'],
    ['heap.after-gc', 'heap.after_gc'],
    ['gc.pauses', 'gc.pause'],
    ['kafka.session_timeout', 'zk.session_timeout'],
    ['completely.unrelated_thing', undefined],
  ])('did you mean: %s -> %s', (word, expected) => {
    expect(closest(word, ['safepoint.sync', 'zk.session_timeout', 'heap.after_gc', 'gc.pause', 'gc.count'])).toBe(expected)
  })

  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['same', 'same', 0],
    ['adn', 'and', 1],
    ['ca', 'abc', 3],
  ])('edit distance %s/%s = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d)
  })
})
