import { describe, expect, it } from 'vitest'
import { ingestSources } from '../../cli/commands/replay.js'
import { backtestRules, type AlertEpisode } from '../../engine/backtest.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { loadRules } from '../../rule-files/load-rules.js'

// A backtest over a store whose history runs on after its data (`kafka-why ci --since 30d` ends now;
// a cluster that stopped sending, or a recording, ends earlier) must step no tick past the last
// record: lab-disk-full ends at 12:03:55 with broker 3's disk still full. Ticking on used to resolve
// its alerts by the mere absence of data and fire rules whose `not` parts held only because nothing
// more was recorded.
describe('engine/backtest stays inside the data', { timeout: 180_000 }, () => {
  it('lab-disk-full: no alert fires or resolves after the last record, however far the history is asked to run', async () => {
    const store = new MemoryStore()
    const ingest = await ingestSources(store, ['test/incidents/lab-disk-full'])
    const times = [...ingest.times.values()].flat()
    const first = times.reduce((m, t) => Math.min(m, t), Infinity)
    const last = times.reduce((m, t) => Math.max(m, t), -Infinity)
    const { rules } = await loadRules(['rules/'])
    const opts = { from: first, windowMs: 3_600_000, stepMs: 15_000 }
    const exact = await backtestRules(store, [], rules, { ...opts, to: last })
    const onward = await backtestRules(store, [], rules, { ...opts, to: last + 2 * 3_600_000 })
    const latest = (e: AlertEpisode) => Math.max(e.firedAt, e.resolvedAt ?? -Infinity)
    expect(onward.head.length).toBeGreaterThan(0)
    for (const e of onward.head) expect(latest(e), `${e.rule} broker ${e.broker}`).toBeLessThanOrEqual(last)
    const key = (e: AlertEpisode) => `${e.rule} ${e.broker} ${JSON.stringify(e.labels)} ${e.firedAt} ${e.resolvedAt ?? 'open'}`
    expect(onward.head.map(key).sort()).toEqual(exact.head.map(key).sort())
    // The full disk is still firing when the data ends.
    expect(onward.head.find((e) => e.rule === 'disk_full' && e.broker === '3')?.resolvedAt).toBeUndefined()
    await store.close()
  })
})
