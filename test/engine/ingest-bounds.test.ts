import { describe, expect, it } from 'vitest'
import { capEvidenceText, MAX_EVIDENCE_TEXT_CHARS, SignalWriter } from '../../engine/ingest.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { Signal } from '../../signals/signal.js'

// What the write path keeps of each signal: raw text cut to 2 KiB, broker ids checked before anything
// is buffered. A corrupt 64 KiB log line must not be stored whole for a week, once per signal.

const shrink = (over: Partial<Signal> = {}): Signal => ({
  name: 'isr.shrink',
  at: 1_700_000_000_000,
  cluster: 'prod',
  broker: '1',
  source: 'log:server.log:1',
  text: '[2024-11-14 22:13:20,123] INFO [Partition orders-3 broker=1] Shrinking ISR from 1,2,3 to 1 (kafka.cluster.Partition)',
  ...over,
})

describe('engine/ingest bounds', () => {
  it('stores a 64 KiB raw line cut to 2 KiB, keeping its start, and a normal line whole', async () => {
    const store = new MemoryStore()
    const writer = new SignalWriter(store)
    const long = shrink({ source: 'log:server.log:2', text: `[2024-11-14 22:13:20,123] ERROR ${'x'.repeat(64 * 1024)}` })
    expect(await writer.write([shrink(), long])).toEqual({ accepted: 2, rejected: {} })
    await writer.close()
    const stored = await store.query({ cluster: 'prod', broker: '1', from: 0, to: Infinity })
    const texts = stored.map((s) => s.text ?? '').sort((a, b) => a.length - b.length)
    expect(texts[0]).toBe(shrink().text)
    expect(texts[1]).toHaveLength(MAX_EVIDENCE_TEXT_CHARS)
    expect(texts[1].startsWith('[2024-11-14 22:13:20,123] ERROR xxx')).toBe(true)
    expect(texts[1].endsWith('…')).toBe(true)
  })

  it('never cuts a character in half', () => {
    const text = 'a'.repeat(MAX_EVIDENCE_TEXT_CHARS - 3) + '😀'.repeat(10)
    const cut = capEvidenceText(shrink({ text })).text!
    expect(cut.length).toBeLessThanOrEqual(MAX_EVIDENCE_TEXT_CHARS)
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
  })

  it('refuses invalid broker ids up front, counted by reason', async () => {
    const store = new MemoryStore()
    const writer = new SignalWriter(store)
    const outcome = await writer.write([shrink(), shrink({ broker: '1; DROP' }), shrink({ broker: 'b'.repeat(200) })])
    expect(outcome).toEqual({ accepted: 1, rejected: { 'invalid broker': 2 } })
    expect(writer.stats().rejected).toEqual({ 'invalid broker': 2 })
    await writer.close()
  })
})
