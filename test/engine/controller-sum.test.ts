import { describe, expect, it } from 'vitest'
import { CONTROLLER_REPORT_FRESH_MS, deriveControllerSum } from '../../engine/controller-sum.js'
import { loadEvalData } from '../../engine/load-data.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { TickReads } from '../../engine/tick-reads.js'
import type { Signal } from '../../signals/signal.js'
import { sig } from './signals.js'

const active = (broker: string, sec: number, value: number) => sig('controller.active', sec, value, undefined, broker)
const view = (out: readonly Signal[]) => out.map((s) => [s.at / 1000, s.value, s.labels?.reporting, s.labels?.controllers])

describe('engine/controller-sum', () => {
  it('adds up every broker\'s latest report at each report, whichever broker made it', () => {
    const byBroker = new Map([
      ['1', [active('1', 0, 1), active('1', 30, 0)]],
      ['2', [active('2', 1, 0), active('2', 31, 1)]],
      ['3', [active('3', 2, 0)]],
    ])
    expect(view(deriveControllerSum('c', byBroker))).toEqual([
      [0, 1, '1', '1'],
      [1, 1, '2', '1'],
      [2, 1, '3', '1'],
      // The controller moved from 1 to 2: between the two scrapes no broker reports it.
      [30, 0, '3', ''],
      [31, 1, '3', '2'],
    ])
  })

  it('stops counting a broker that has not reported for two minutes', () => {
    const byBroker = new Map([
      ['1', [active('1', 0, 1)]],
      ['2', [active('2', 0.5, 0), active('2', 0.5 + CONTROLLER_REPORT_FRESH_MS / 1000 + 1, 0)]],
    ])
    expect(view(deriveControllerSum('c', byBroker)).at(-1)).toEqual([121.5, 0, '1', ''])
  })

  it('ignores a report that is not a number', () => {
    expect(deriveControllerSum('c', new Map([['1', [active('1', 0, Number.NaN)]]]))).toEqual([])
  })

  it("is read by every broker's evaluation, from all the cluster's brokers in the store", async () => {
    const store = new MemoryStore()
    await store.append([active('1', 100, 1), active('2', 101, 1), active('3', 102, 0)])
    const { data } = await loadEvalData(store, { cluster: 'c', broker: '3', names: ['controller.active_sum'], from: 90_000, to: 120_000 })
    expect(view(data.series.get('controller.active_sum') ?? [])).toEqual([
      [100, 1, '1', '1'],
      [101, 2, '2', '1, 2'],
      [102, 2, '3', '1, 2'],
    ])
  })

  it("derives a tick's controller count once for all its brokers", async () => {
    const store = new MemoryStore()
    await store.append([active('1', 100, 1), active('2', 101, 0), active('3', 102, 0)])
    let reads = 0
    const counting = { ...store, brokers: () => store.brokers(), facts: store.facts.bind(store), querySeries: (q: Parameters<MemoryStore['querySeries']>[0]) => (reads++, store.querySeries(q)) }
    const tick = new TickReads(counting)
    const req = { cluster: 'c', names: ['controller.active_sum'], from: 90_000, to: 120_000 }
    const lists = await Promise.all(['1', '2', '3'].map(async (broker) => (await loadEvalData(tick, { ...req, broker })).data.series.get('controller.active_sum')))
    for (const list of lists) expect(view(list ?? [])).toEqual([[100, 1, '1', '1'], [101, 1, '2', '1'], [102, 1, '3', '1']])
    // The brokers share one derived list (the same signals), and the store was asked once per broker.
    expect(lists[1]![0]).toBe(lists[0]![0])
    expect(lists[2]![2]).toBe(lists[0]![2])
    expect(reads).toBeLessThanOrEqual(3 * 3)
    // A store read directly derives afresh: its contents change between calls.
    const direct = (await loadEvalData(store, { ...req, broker: '1' })).data.series.get('controller.active_sum')!
    expect(direct[0]).not.toBe(lists[0]![0])
  })
})
