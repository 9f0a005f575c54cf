import { describe, expect, it } from 'vitest'
import { parseSignalsJsonl, validateSignal } from '../../signals/jsonl.js'

// Found by the fuzz suite: a field holding an object whose `toString` is not a function made the error
// detail itself throw (String() calls it), so one hostile line stopped the whole JSONL read.
describe('signals/jsonl with hostile field values', () => {
  it.each([
    ['at', { name: 'gc.pause', cluster: 'c', value: 1, at: [{ toString: false }] }, 'invalid at'],
    ['broker', { name: 'gc.pause', cluster: 'c', value: 1, at: 1, broker: { toString: false, valueOf: 1 } }, 'invalid broker'],
    ['value', { name: 'gc.pause', cluster: 'c', at: 1, value: { toString: null } }, 'invalid value'],
  ])('refuses an object without a usable toString in %s instead of throwing', (_field, signal, reason) => {
    const r = validateSignal(signal)
    expect(r.ok).toBe(false)
    expect(r).toEqual(expect.objectContaining({ reason }))
  })

  it('keeps reading past such a line', () => {
    const good = JSON.stringify({ name: 'gc.pause', cluster: 'c', broker: '1', at: 1_700_000_000_000, value: 12 })
    const r = parseSignalsJsonl([JSON.stringify({ name: 'broker.version', at: [{ toString: false }], cluster: 'c' }), good].join('\n'), 'x.jsonl')
    expect(r.signals).toHaveLength(1)
  })
})
