import { describe, expect, it } from 'vitest'
import { lookupSignal } from '../../signals/catalogue.js'
import { validateSignal } from '../../signals/jsonl.js'
import { MemoryStore } from '../../engine/store/memory-store.js'

// A signal's name comes from whoever sends it (a JSONL file, the signals topic) and is looked up in
// the catalogue: `constructor`, `toString` and `__proto__` are found on any plain object's
// prototype, so they passed as catalogue entries and such a signal was stored.

describe('signals/catalogue lookups take own names only', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])('%s is not a signal', (name) => {
    expect(lookupSignal(name)).toBeUndefined()
    expect(validateSignal({ name, at: 1, cluster: 'prod', broker: '1', value: 1, source: 's' })).toMatchObject({ ok: false, reason: 'unknown signal' })
  })

  it('a store refuses them, counted as unknown signals', async () => {
    const store = new MemoryStore()
    const r = await store.append(['constructor', 'toString'].map((name) => ({ name, at: 1, cluster: 'prod', broker: '1', value: 1, source: 's' })))
    expect(r).toEqual({ accepted: 0, rejected: { 'unknown signal': 2 } })
  })
})
