import { describe, expect, it } from 'vitest'
import { parseAt, parseSignalsJsonl, validateSignal } from '../../signals/jsonl.js'

const base = { name: 'safepoint.sync', at: 1534212531112, cluster: 'prod', broker: '1', value: 3301, source: 'gc:broker-1/gc.log:88' }

describe('signals/jsonl', () => {
  it.each([
    { at: 1534212531112, ms: 1534212531112 },
    { at: '2018-08-13T22:08:51.112-04:00', ms: Date.UTC(2018, 7, 14, 2, 8, 51, 112) },
    { at: '2018-08-13T22:08:51.112-0400', ms: Date.UTC(2018, 7, 14, 2, 8, 51, 112) },
    { at: '2018-08-14T02:08:51Z', ms: Date.UTC(2018, 7, 14, 2, 8, 51) },
    { at: '2018-08-14 10:08:51,112+08:00', ms: Date.UTC(2018, 7, 14, 2, 8, 51, 112) },
    { at: '2018-08-14T10:08:51.112345678+08', ms: Date.UTC(2018, 7, 14, 2, 8, 51, 112) },
    { at: '2018-08-14T02:08:51', ms: undefined },
    { at: '2018-08-14', ms: undefined },
    { at: 'yesterday', ms: undefined },
    { at: Number.NaN, ms: undefined },
    { at: '1534212531112', ms: undefined },
    { at: null, ms: undefined },
  ])('reads at=$at as $ms', ({ at, ms }) => {
    expect(parseAt(at)).toBe(ms)
  })

  it.each([
    { reason: 'not an object', x: [1, 2] },
    { reason: 'missing name', x: { ...base, name: undefined } },
    { reason: 'unknown signal', x: { ...base, name: 'safepoint.synch' } },
    { reason: 'invalid at', x: { ...base, at: '2018-08-13 22:08:51' } },
    { reason: 'invalid at', x: { ...base, at: Infinity } },
    { reason: 'missing cluster', x: { ...base, cluster: '' } },
    { reason: 'missing cluster', x: { ...base, cluster: 3 } },
    { reason: 'invalid broker', x: { ...base, broker: -1 } },
    { reason: 'invalid broker', x: { ...base, broker: '' } },
    { reason: 'invalid value', x: { ...base, value: '3301' } },
    { reason: 'invalid value', x: { ...base, value: Number.NaN } },
    { reason: 'missing value', x: { ...base, name: 'heap.after_gc', value: undefined } },
    { reason: 'missing value', x: { ...base, name: 'config.segment_ms', value: undefined } },
    { reason: 'invalid labels', x: { ...base, labels: { partition: 0 } } },
    { reason: 'invalid labels', x: { ...base, labels: ['topic'] } },
    { reason: 'missing source', x: { ...base, source: undefined } },
    { reason: 'invalid text', x: { ...base, text: 42 } },
  ])('refuses a signal: $reason', ({ reason, x }) => {
    const v = validateSignal(x)
    expect(v.ok).toBe(false)
    if (!v.ok) expect(v.reason).toBe(reason)
  })

  it('normalises a valid signal: numeric at and broker text, no empty labels, no extra keys', () => {
    const v = validateSignal({ ...base, at: '2018-08-13T22:08:51.112-04:00', broker: 1001, labels: {}, extra: 'x' })
    expect(v).toEqual({ ok: true, signal: { ...base, broker: '1001' } })
    expect(validateSignal({ name: 'zk.session_expired', at: 0, cluster: 'c', source: 's' })).toEqual({
      ok: true,
      signal: { name: 'zk.session_expired', at: 0, cluster: 'c', source: 's' },
    })
  })

  it('reads good lines, counts bad ones by reason with their line numbers, and goes on', () => {
    const text = [
      JSON.stringify(base),
      '',
      '{"name":"config.segment_ms","at":"2018-08-13T22:00:00Z","cluster":"prod","broker":"1","value":100,"labels":{"topic":"orders"}}',
      '{"name":"config.segment_ms","at":"2018-08-13T22:00:00Z","cluster":"prod",',
      '{"name":"nope","at":1,"cluster":"prod","source":"s"}',
      '{"name":"isr.shrink","at":"2018-08-13T22:00:00","cluster":"prod","source":"s"}\r',
      '{"name":"isr.shrink","at":2,"cluster":"prod","source":"s","labels":{"topic":"a"}}',
      '"just a string"',
      '',
    ].join('\n')
    const parsed = parseSignalsJsonl(text, 'incidents/x/signals.jsonl')
    expect(parsed.signals.map((s) => [s.name, s.source])).toEqual([
      ['safepoint.sync', 'gc:broker-1/gc.log:88'],
      ['config.segment_ms', 'jsonl:incidents/x/signals.jsonl:3'],
      ['isr.shrink', 's'],
    ])
    expect(parsed.rejects.map((r) => [r.line, r.reason])).toEqual([
      [4, 'invalid JSON'],
      [5, 'unknown signal'],
      [6, 'invalid at'],
      [8, 'not an object'],
    ])
    expect(parsed.rejects[1]).toMatchObject({ file: 'incidents/x/signals.jsonl', detail: 'nope' })
    expect(parsed.rejected).toEqual({ 'invalid JSON': 1, 'unknown signal': 1, 'invalid at': 1, 'not an object': 1 })
  })

  it('gives the same sources when the same file is read twice, so a replay is idempotent', () => {
    const text = '{"name":"isr.shrink","at":1,"cluster":"c"}\n{"name":"isr.shrink","at":1,"cluster":"c"}\n'
    const a = parseSignalsJsonl(text, 'f.jsonl').signals
    expect(a.map((s) => s.source)).toEqual(['jsonl:f.jsonl:1', 'jsonl:f.jsonl:2'])
    expect(parseSignalsJsonl(text, 'f.jsonl').signals).toEqual(a)
  })
})
