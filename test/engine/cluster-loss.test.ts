import { describe, expect, it } from 'vitest'
import { deriveClusterLoss } from '../../engine/cluster-loss.js'
import { loadEvalData } from '../../engine/load-data.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { sig } from './signals.js'

const timeout = (broker: string, sec: number) => sig('zk.session_timeout', sec, 4000, undefined, broker)

describe('engine/cluster-loss', () => {
  it('starts a loss on the second broker within 10 s and grows its share as more brokers join', () => {
    const byBroker = new Map([
      ['1', [timeout('1', 100)]],
      ['2', [timeout('2', 102)]],
      ['3', [timeout('3', 104.5)]],
    ])
    const out = deriveClusterLoss('zk.cluster_session_loss', 'c', byBroker, 3)
    expect(out.map((s) => [s.at / 1000, s.labels?.brokers, Number(s.value!.toFixed(3))])).toEqual([
      [102, '1, 2', 0.667],
      [104.5, '1, 2, 3', 1],
    ])
  })

  it.each([
    ['one broker alone, however often', [['1', [100, 101, 102]]]],
    ['two brokers 11 s apart', [['1', [100]], ['2', [111]]]],
  ] as const)('derives nothing for %s', (_name, series) => {
    const byBroker = new Map(series.map(([b, secs]) => [b, secs.map((t) => timeout(b, t))]))
    expect(deriveClusterLoss('zk.cluster_session_loss', 'c', byBroker, 3)).toEqual([])
  })

  it("is read by every broker's evaluation, from all the cluster's brokers in the store", async () => {
    const store = new MemoryStore()
    await store.append([timeout('1', 100), sig('zk.disconnected', 101, undefined, undefined, '2'), sig('gc.pause', 99, 20, { kind: 'young' }, '3')])
    const { data } = await loadEvalData(store, { cluster: 'c', broker: '3', names: ['zk.cluster_session_loss'], from: 90_000, to: 120_000 })
    const loss = data.series.get('zk.cluster_session_loss') ?? []
    expect(loss.map((s) => [s.at, s.labels?.brokers, Number(s.value!.toFixed(3))])).toEqual([[101_000, '1, 2', 0.667]])
  })
})
