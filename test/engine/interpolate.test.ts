import { describe, expect, it } from 'vitest'
import { buildCause } from '../../engine/cause.js'
import { evaluateRule } from '../../engine/evaluate.js'
import type { Signal } from '../../signals/signal.js'
import { encodeVersion } from '../../signals/units.js'
import { rules } from './parse.js'
import { data, sig, win } from './signals.js'

function causeText(ruleText: string, signals: Signal[]): string {
  const [rule] = rules(ruleText)
  const { matches } = evaluateRule(rule, data(signals), win(0, 86_400))
  expect(matches.length).toBeGreaterThan(0)
  return buildCause(rule, matches[matches.length - 1], { cluster: 'c', broker: '1' }).cause
}

const shrink = (t: number, topic: string) => sig('isr.shrink', t, undefined, { topic, partition: '0' })

describe('engine/interpolate', () => {
  it.each([
    ['a duration', 'when safepoint.sync > 2s then cause "{safepoint.sync}"', [sig('safepoint.sync', 1, 3301)], '3.3s'],
    ['bytes', 'when heap.after_gc > 3GiB then cause "{heap.after_gc}"', [sig('heap.after_gc', 1, 4 * 1024 ** 3)], '4GiB'],
    ['a ratio', 'when request_handler.idle < 20% then cause "{request_handler.idle}"', [sig('request_handler.idle', 1, 0.05)], '5%'],
    ['a rate', 'when fetch.down_conversion > 0 then cause "{fetch.down_conversion}"', [sig('fetch.down_conversion', 1, 12943)], '12943/s'],
    ['a version fact', 'when broker.version < 2.2.1 then cause "{broker.version}"', [sig('broker.version', 1, encodeVersion('0.10.2.1'))], '0.10.2.1'],
    ['an aggregate count', 'when count(isr.shrink) over 1h > 2 then cause "{isr.shrink} shrinks"', [1, 2, 3].map((t) => shrink(t, 't')), '3 shrinks'],
    ['a trend per second', 'when trend(heap.after_gc) over 4m > 0 then cause "{heap.after_gc}"', [0, 1, 2].map((i) => sig('heap.after_gc', i * 100, 1e9 + i * 102_400 * 100)), '100KiB/s'],
    ['a by label', 'when count(group.rebalance) by group over 1h > 1 then cause "{group}"', [1, 2].map((t) => sig('group.rebalance', t, undefined, { group: 'billing' })), 'billing'],
    ['broker and cluster', 'when broker.shutdown then cause "{broker}@{cluster}"', [sig('broker.shutdown', 1)], '1@c'],
    ['distinct evidence labels, listed', 'when count(isr.shrink) over 1h > 4 then cause "{topic}"', ['a', 'b', 'a', 'c', 'd', 'e'].map((t, i) => shrink(i, t)), 'a, b, c (+2 more)'],
    ['both sides of a temporal pair', 'when zk.session_timeout within 5s of safepoint.sync > 2s then cause "{safepoint.sync}/{zk.session_timeout}"', [sig('safepoint.sync', 1, 3301), sig('zk.session_timeout', 2, 7768)], '3.3s/7.77s'],
    ['a literal brace', 'when broker.shutdown then cause "{{broker} is {broker}"', [sig('broker.shutdown', 1)], '{broker} is 1'],
  ] as [string, string, Signal[], string][])('%s', (_name, text, signals, expected) => {
    expect(causeText(text, signals)).toBe(expected)
  })
})
