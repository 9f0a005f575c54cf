import { describe, expect, it } from 'vitest'
import { loadRules } from '../../rule-files/load-rules.js'
import { newsFilter } from '../../engine/news.js'
import type { Signal } from '../../signals/signal.js'

const sig = (name: string, value?: number, labels?: Record<string, string>): Signal => ({ name, at: 0, cluster: 'lab', broker: '1', source: 'test', ...(value === undefined ? {} : { value }), ...(labels ? { labels } : {}) })

describe('engine/news', () => {
  it.each([
    ['a 9 s safepoint sync (stw_pause_session_expiry reaches it)', sig('safepoint.sync', 9_000), true],
    ['the safepoint line written every second, 5 ms', sig('safepoint.total', 5), false],
    ['a 2 s stop, a third of any session timeout', sig('safepoint.total', 2_000), true],
    ['a ZooKeeper session timeout', sig('zk.session_timeout', 4_000, { session: '0x1' }), true],
    ['a scrape that timed out', sig('scrape.unanswered', 3_500, { reason: 'timeout', target: 't' }), true],
    ['the controller dropping the broker', sig('controller.broker_lost', undefined, { controller: '2' }), true],
    ['a stopped process', sig('process.state', undefined, { state: 'stopped', pid: '1' }), true],
    ['a sleeping process, read every second', sig('process.state', undefined, { state: 'sleeping', pid: '1' }), false],
    ['a gauge sample, however high', sig('heap.used', 9e9), false],
    ['a signal no rule reads', sig('zk.server_session_expired', 6_000, { session: '0x1' }), false],
  ])('%s: %s', async (_label, s, news) => {
    const { rules } = await loadRules(['rules'])
    expect(newsFilter(rules)(s)).toBe(news)
  })
})
