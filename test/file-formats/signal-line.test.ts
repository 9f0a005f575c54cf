import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { signalLineSchema } from '../../file-formats/signal-line.js'
import { validateSignal } from '../../signals/jsonl.js'

// Ingestion checks JSONL signals by hand (measured faster: npm run bench -- signals-validate); the
// schema behind schemas/signal-line.schema.json must give the same verdict and the same signal.
function bothVerdicts(obj: unknown) {
  const hand = validateSignal(obj)
  const schema = signalLineSchema.safeParse(obj)
  return { hand, schema }
}

describe('file-formats/signal-line', () => {
  it.each([
    [{ name: 'safepoint.sync', at: '2018-08-13T22:08:51.112-04:00', cluster: 'prod', broker: '1', value: 3301, source: 'gc:broker-1/gc.log:88' }, true],
    [{ name: 'config.segment_ms', at: 1534212531000, cluster: 'prod', broker: 1, value: 100, labels: { topic: 'orders' }, source: 's' }, true],
    [{ name: 'isr.shrink', at: '2018-08-13 22:08:51,112+0000', cluster: 'prod', source: 's', text: 'Shrinking ISR', extra: 'dropped' }, true],
    [{ name: 'safepoint.synch', at: 1, cluster: 'prod', source: 's' }, false],
    [{ name: '', at: 1, cluster: 'prod', source: 's' }, false],
    [{ name: 'isr.shrink', at: '2018-08-13T22:08:51', cluster: 'prod', source: 's' }, false],
    [{ name: 'isr.shrink', at: Number.NaN, cluster: 'prod', source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: '', source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c', broker: -1, source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c', broker: 1.5, source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c', broker: '', source: 's' }, false],
    [{ name: 'heap.used', at: 1, cluster: 'c', source: 's' }, false],
    [{ name: 'heap.used', at: 1, cluster: 'c', value: '12', source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c', labels: { topic: 3 }, source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c', labels: ['topic'], source: 's' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c' }, false],
    [{ name: 'isr.shrink', at: 1, cluster: 'c', source: 's', text: 42 }, false],
    [['isr.shrink'], false],
    [null, false],
  ])('gives the ingestion check’s verdict on %j', (obj, ok) => {
    const { hand, schema } = bothVerdicts(obj)
    expect(hand.ok).toBe(ok)
    expect(schema.success).toBe(ok)
    if (hand.ok && schema.success) expect(schema.data).toEqual(hand.signal)
  })

  it('accepts every recorded signal the ingestion check accepts, as the same signal', () => {
    const files = execFileSync('git', ['ls-files', '*signals.jsonl'], { encoding: 'utf8' }).split('\n').filter(Boolean)
    expect(files.length).toBeGreaterThan(3)
    let lines = 0
    for (const file of files) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue
        lines++
        const { hand, schema } = bothVerdicts(JSON.parse(line))
        expect(schema.success, `${file}: ${line}`).toBe(hand.ok)
        if (hand.ok && schema.success) expect(schema.data).toEqual(hand.signal)
      }
    }
    expect(lines).toBeGreaterThan(1000)
  })
})
