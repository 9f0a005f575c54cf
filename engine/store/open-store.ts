import { MemoryStore, type StoreCaps } from './memory-store.js'
import { DEFAULT_PREFIX, RedisStore } from './redis-store.js'
import type { Store } from './store.js'

/** Options for choosing and configuring the store. */
export type OpenStoreOptions = StoreCaps & {
  /** Redis key prefix; default KAFKA_WHY_REDIS_PREFIX from the environment, else "kafka-why:". */
  prefix?: string
  /** Longest wait for a Redis connection before a call fails (default 1000 ms). */
  connectTimeoutMs?: number
  /** Longest wait for one Redis command or pipeline (default 5000 ms). */
  commandTimeoutMs?: number
}

/**
 * One switch for every command: Redis when REDIS_URL is set (what a team deploys), otherwise the
 * embedded in-memory store, so `why --replay` and tests need nothing running. Connecting is lazy:
 * the first call reports an unreachable Redis as a StoreUnavailableError. Call close() when done,
 * or the Redis connection keeps the process alive.
 */
export function openStore(env: Record<string, string | undefined> = process.env, options: OpenStoreOptions = {}): Store {
  const url = env.REDIS_URL?.trim()
  if (!url) return new MemoryStore(options)
  return new RedisStore({ ...options, url, prefix: options.prefix ?? env.KAFKA_WHY_REDIS_PREFIX ?? DEFAULT_PREFIX })
}
