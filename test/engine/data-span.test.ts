import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dataSpans, sourceKey, type DataSpan } from '../../engine/data-span.js'
import { buildEvalData } from '../../engine/eval-data.js'
import type { Signal } from '../../signals/signal.js'

/** dataSpans as defined: every signal's own sourceKey. */
function spansOneByOne(signals: readonly Signal[], from: number, to: number): DataSpan[] {
  const spans = new Map<string, DataSpan>()
  for (const s of signals) {
    if (s.at < from || s.at > to) continue
    const key = sourceKey(s.source)
    const span = spans.get(key) ?? { source: key, firstAt: s.at, lastAt: s.at, signals: 0 }
    span.firstAt = Math.min(span.firstAt, s.at)
    span.lastAt = Math.max(span.lastAt, s.at)
    span.signals++
    spans.set(key, span)
  }
  return [...spans.values()].sort((a, b) => b.signals - a.signals || a.source.localeCompare(b.source))
}

describe('engine/data-span', () => {
  it.each([
    ['log:/var/log/kafka/server.log:1234', 'log:/var/log/kafka/server.log'],
    ['gc:broker-1/gc.log:7', 'gc:broker-1/gc.log'],
    ['jsonl:a/b.jsonl:3:9', 'jsonl:a/b.jsonl:3'],
    ['jmx:kafka.server:type=ReplicaManager', 'jmx'],
    ['log:no-line-number', 'log'],
    ['admin', 'admin'],
  ])('%s is of %s', (source, key) => expect(sourceKey(source)).toBe(key))

  it('gives every recorded incident the spans that each signal\'s own source key gives', () => {
    let compared = 0
    for (const dir of readdirSync('test/incidents')) {
      const file = join('test/incidents', dir, 'signals.jsonl')
      if (!existsSync(file)) continue
      const signals = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Signal)
      const byBroker = new Map<string, Signal[]>()
      for (const s of signals) byBroker.set(s.broker ?? '', [...(byBroker.get(s.broker ?? '') ?? []), s])
      for (const [broker, list] of byBroker) {
        const data = buildEvalData(list[0].cluster, broker, list)
        const series = [...data.series.values()].flat()
        const [from, to] = [Math.min(...list.map((s) => s.at)), Math.max(...list.map((s) => s.at))]
        expect(dataSpans(data, { from, to, now: to })).toEqual(spansOneByOne(series, from, to))
        compared++
      }
    }
    expect(compared).toBeGreaterThan(20)
  })

  it('tells a file\'s lines from an adapter scheme and from a line-less source of a file scheme', () => {
    const s = (source: string, at: number): Signal => ({ name: 'isr.shrink', at, cluster: 'c', broker: '1', source })
    const signals = [s('log:no-line', 1), s('log:/x/server.log:1', 2), s('log:/x/server.log:2', 3), s('jmx:a', 4), s('log:/x/server.log:x', 5), s('jmx:b', 6), s('log:/y/server.log:1', 7)]
    const data = buildEvalData('c', '1', signals)
    expect(dataSpans(data, { from: 0, to: 10, now: 10 })).toEqual(spansOneByOne(signals, 0, 10))
  })
})
