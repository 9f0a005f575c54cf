import { describe, expect, it } from 'vitest'
import { parseRules } from '../../dsl/index.js'
import { evaluateRule } from '../../engine/evaluate.js'
import { rules } from './parse.js'
import { data, sig, win } from './signals.js'

// `X > 50% of Y` where Y is a gauge: the share of Y's sample in force at X's time, for X's labels.
// The produce-latency rules name the part of a request's time that dominates this way (values from
// the lab's slow-disk recording: a leader waiting 8.5 s on its follower with 0.83 s of local time).
const RULE = `rule local_dominates
  when request.local_time_p99{request="Produce"} > 50% of request.total_time_p99 for 1m
  then cause "local {request.local_time_p99} of {request.total_time_p99}"`

const scrape = (sec: number, request: string, total: number, local: number) => [
  sig('request.total_time_p99', sec, total, { request }),
  sig('request.local_time_p99', sec, local, { request }),
]

describe('engine: a comparison with a share of another gauge', () => {
  it('holds where the part is more than half of the same request\'s total, read at the same scrape', () => {
    const [rule] = rules(RULE)
    const dominant = [0, 15, 30, 45, 60, 75, 90].flatMap((s) => scrape(s, 'Produce', 10_364, 8_721))
    expect(evaluateRule(rule, data(dominant), win(0, 90)).matches.length).toBe(1)
  })

  it('stays quiet where the part is above any fixed floor but a small share of the total', () => {
    const [rule] = rules(RULE)
    const minor = [0, 15, 30, 45, 60, 75, 90].flatMap((s) => scrape(s, 'Produce', 8_485, 826))
    expect(evaluateRule(rule, data(minor), win(0, 90)).matches).toEqual([])
  })

  it('reads the total of the compared sample\'s own request, not another request\'s', () => {
    const [rule] = rules(RULE)
    // Produce: local 300 of total 8000 (4 %); a FetchConsumer total of 400 at the same times must not be used.
    const mixed = [0, 15, 30, 45, 60, 75, 90].flatMap((s) => [...scrape(s, 'Produce', 8_000, 300), sig('request.total_time_p99', s + 0.001, 400, { request: 'FetchConsumer' })])
    expect(evaluateRule(rule, data(mixed), win(0, 90)).matches).toEqual([])
  })

  it('is false before the compared gauge has a sample', () => {
    const [rule] = rules(RULE)
    const noTotal = [0, 15, 30, 45, 60, 75, 90].map((s) => sig('request.local_time_p99', s, 900, { request: 'Produce' }))
    expect(evaluateRule(rule, data(noTotal), win(0, 90)).matches).toEqual([])
  })

  it('lint accepts a gauge of the same unit on the right, and still refuses an event (DSL029) or another unit (DSL028)', () => {
    const codes = (text: string) => parseRules(text, 't.rules').diagnostics.map((d) => d.code)
    expect(codes(RULE)).toEqual([])
    expect(codes('rule e when gc.pause > 50% of zk.session_timeout then cause "x"')).toContain('DSL029')
    expect(codes('rule u when request.local_time_p99 > 50% of heap.used for 1m then cause "x"')).toContain('DSL028')
  })
})
