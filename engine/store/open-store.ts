import { MemoryStore, type StoreCaps } from './memory-store.js'
import { DEFAULT_PREFIX, RedisStore } from './redis-store.js'
import type { Store } from './store.js'
import { BOTH_STORES_SET } from './cluster-nodes.js'
import { registerUrlPasswords } from '../../secrets/redact.js'

/** Options for choosing and configuring the store. */
export type OpenStoreOptions = StoreCaps & {
  /** Redis key prefix; default KAFKA_WHY_REDIS_PREFIX from the environment, else "kafka-why:". */
  prefix?: string
  /** Longest wait for a Redis connection before a call fails (default 1000 ms). */
  connectTimeoutMs?: number
  /** Longest wait for one Redis command or pipeline (default 5000 ms). */
  commandTimeoutMs?: number
}

/** Which environment variable points the store at Redis: what commands name when they say where history comes from. */
export type SharedStoreSource = 'REDIS_URL' | 'REDIS_CLUSTER_NODES'

/**
 * The shared store the environment names, or undefined for the embedded one. Both set is still
 * answered (REDIS_CLUSTER_NODES); opening that store then fails on every call with the reason.
 */
export function sharedStoreSource(env: Record<string, string | undefined>): SharedStoreSource | undefined {
  if (env.REDIS_CLUSTER_NODES?.trim()) return 'REDIS_CLUSTER_NODES'
  if (env.REDIS_URL?.trim()) return 'REDIS_URL'
  return undefined
}

/**
 * Why the environment's store settings cannot be used at all (both REDIS_URL and
 * REDIS_CLUSTER_NODES), or undefined. A long-running process checks this before it starts, rather
 * than running on a store whose every call fails.
 */
export function storeConfigProblem(env: Record<string, string | undefined>): string | undefined {
  return env.REDIS_URL?.trim() && env.REDIS_CLUSTER_NODES?.trim() ? BOTH_STORES_SET : undefined
}

/**
 * One switch for every command: Redis when REDIS_URL is set, a Redis Cluster when
 * REDIS_CLUSTER_NODES is (what a team deploys), otherwise the embedded in-memory store, so
 * `why --replay` and tests need nothing running. Both set is a configuration error that every call
 * of the store reports. Connecting is lazy: the first call reports an unreachable Redis as a
 * StoreUnavailableError. Call close() when done, or the Redis connection keeps the process alive.
 */
export function openStore(env: Record<string, string | undefined> = process.env, options: OpenStoreOptions = {}): Store {
  const url = env.REDIS_URL?.trim() || undefined
  const clusterNodes = env.REDIS_CLUSTER_NODES?.trim() || undefined
  if (!url && !clusterNodes) return new MemoryStore(options)
  // The store's password may turn up bare in a broker line or an error: redacted wherever it goes.
  registerUrlPasswords(url)
  registerUrlPasswords(clusterNodes)
  return new RedisStore({ ...options, url, clusterNodes, prefix: options.prefix ?? env.KAFKA_WHY_REDIS_PREFIX ?? DEFAULT_PREFIX })
}
