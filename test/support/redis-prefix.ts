import { Redis } from 'ioredis'
import { deleteKeysWithPrefix } from '../../engine/store/redis-store.js'

/** The Redis every store test talks to; tests keep to their own key prefix on it. */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379'

/** Deletes exactly the keys under one prefix (never FLUSHDB: the Redis is shared); gives how many went. */
export const deletePrefix = deleteKeysWithPrefix

/** Deletes the keys under each prefix over a connection of its own, closed afterwards. */
export async function deletePrefixes(prefixes: string[], url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url)
  try {
    for (const prefix of prefixes) await deletePrefix(redis, prefix)
  } finally {
    redis.disconnect()
  }
}
