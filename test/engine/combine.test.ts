import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { combineMatches, combinePair } from '../../engine/combine.js'
import type { Match } from '../../engine/match.js'
import type { Signal } from '../../signals/signal.js'
import { sig } from './signals.js'

// A small pool of signals, several at the same time, so pairs share evidence and tie on time.
const pool: Signal[] = Array.from({ length: 12 }, (_, i) => sig(i % 2 ? 'isr.shrink' : 'safepoint.sync', Math.floor(i / 3), i))

const match = fc
  .record({
    picks: fc.uniqueArray(fc.integer({ min: 0, max: pool.length - 1 }), { maxLength: 6 }),
    at: fc.integer({ min: 0, max: 5000 }),
    span: fc.integer({ min: 0, max: 5000 }),
    extra: fc.integer({ min: 0, max: 3 }),
    label: fc.constantFrom(undefined, 'a', 'b'),
    value: fc.constantFrom(undefined, 1, 2),
  })
  .map(({ picks, at, span, extra, label, value }): Match => {
    const evidence = picks.map((i) => pool[i]).sort((a, b) => a.at - b.at)
    return {
      at,
      firstAt: at - span,
      lastAt: at + span,
      evidence,
      evidenceTotal: evidence.length + extra,
      labels: label ? { topic: label } : {},
      values: value ? { [`v${value}`]: { value, dimension: 'count' } } : {},
    }
  })

describe('engine/combine', () => {
  it('combines a pair exactly as the general combination does', () => {
    fc.assert(
      fc.property(match, match, (a, b) => {
        const pair = combinePair(a, b)
        const general = combineMatches([a, b])
        expect(pair).toStrictEqual(general)
        expect(Object.keys(pair.values)).toEqual(Object.keys(general.values))
        pair.evidence.forEach((s, i) => expect(s).toBe(general.evidence[i]))
      }),
      { numRuns: 500 },
    )
  })

  it('keeps a signal both sides rest on once and counts it once', () => {
    const shared = sig('safepoint.sync', 7, 3301)
    const a: Match = { at: 7000, firstAt: 7000, lastAt: 7000, evidence: [shared], evidenceTotal: 1, labels: {}, values: {} }
    const b: Match = { at: 10_000, firstAt: 7000, lastAt: 10_000, evidence: [shared, sig('zk.session_timeout', 10, 7768)], evidenceTotal: 2, labels: {}, values: {} }
    const pair = combinePair(a, b)
    expect(pair.evidence.map((s) => s.name)).toEqual(['safepoint.sync', 'zk.session_timeout'])
    expect(pair.evidenceTotal).toBe(2)
  })
})
