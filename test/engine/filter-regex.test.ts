import { describe, expect, it } from 'vitest'
import type { StreamCond } from '../../dsl/ast.js'
import { atomFilter } from '../../engine/filter.js'
import type { Signal } from '../../signals/signal.js'
import { cond } from './parse.js'

// Label regexes run on RE2: whole-value matches as in PromQL, and linear time whatever the pattern.
// A backtracking engine takes seconds per signal for `(a+)+b` on a 28-character label.

const atom = (text: string) => (cond(text) as StreamCond).atom
const pause = (kind?: string): Signal => ({ name: 'gc.pause', at: 0, cluster: 'c', broker: '1', value: 5, source: 't', ...(kind === undefined ? {} : { labels: { kind } }) })

describe('engine/filter label regexes', () => {
  it.each([
    { filter: 'gc.pause{kind=~"Full.*"} > 1ms', kind: 'Full GC', keeps: true },
    { filter: 'gc.pause{kind=~"Full"} > 1ms', kind: 'Full GC', keeps: false },
    { filter: 'gc.pause{kind=~"young|mixed"} > 1ms', kind: 'mixed', keeps: true },
    { filter: 'gc.pause{kind!~"young|mixed"} > 1ms', kind: 'mixed', keeps: false },
    { filter: 'gc.pause{kind!~"young"} > 1ms', kind: undefined, keeps: true },
    { filter: 'gc.pause{kind=~".*"} > 1ms', kind: undefined, keeps: true },
    { filter: 'gc.pause{kind=~"\\\\p{Lu}\\\\w+ GC"} > 1ms', kind: 'Full GC', keeps: true },
  ])('$filter on kind=$kind keeps it: $keeps', ({ filter, kind, keeps }) => {
    expect(atomFilter(atom(filter))(pause(kind))).toBe(keeps)
  })

  it('(a+)+b on 10,000 labels of 28 characters takes well under a second', () => {
    const test = atomFilter(atom('gc.pause{kind=~"(a+)+b"} > 1ms'))
    const label = pause('a'.repeat(28))
    const t0 = performance.now()
    let kept = 0
    for (let i = 0; i < 10_000; i++) if (test(label)) kept++
    const ms = performance.now() - t0
    expect(kept).toBe(0)
    expect(ms).toBeLessThan(1000)
  })
})
