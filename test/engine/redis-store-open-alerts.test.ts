import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { createKeys } from '../../engine/store/keys.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { deletePrefixes, TEST_REDIS_URL } from '../support/redis-prefix.js'

// Alerts written before the open-alerts index existed are not in it; the alert loop reads only that
// index, so the retention sweep (pruneAlerts, run when serve starts) puts open ones back.

const prefix = `kafka-why-test:${randomUUID()}:`
afterAll(() => deletePrefixes([prefix]))

describe('engine/store/redis-store open alerts index', () => {
  it('re-indexes an open alert missing from the index on the next sweep, and prunes nothing open', async () => {
    const store = new RedisStore({ url: TEST_REDIS_URL, prefix })
    const redis = new Redis(TEST_REDIS_URL)
    try {
      const base = { ruleId: 'r', cluster: 'prod', broker: '1', labels: {}, activeAt: 1000, lastSeenAt: 1000 }
      await store.transitionAlert(undefined, { ...base, fingerprint: 'old-firing', state: 'firing', firedAt: 1000 })
      await redis.srem(createKeys(prefix).openAlerts(), 'old-firing')
      expect(await store.listAlerts({ open: true })).toEqual([])
      expect(await store.pruneAlerts(Number.MAX_SAFE_INTEGER)).toBe(0)
      expect((await store.listAlerts({ open: true })).map((a) => a.fingerprint)).toEqual(['old-firing'])
    } finally {
      redis.disconnect()
      await store.close()
    }
  })
})
