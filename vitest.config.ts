import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { LIVE_SUITES } from './test/live-suites.js'

// `npm test`: every suite that needs no Kafka broker. Services they use: Redis on 127.0.0.1:6379
// (REDIS_URL overrides; test/support/redis-prefix.ts keeps each file's keys apart), six local
// redis-servers for the Redis Cluster files (redis-cli --cluster), git, zsh and openssl where a file says.
// Suites that start real services run serially within their file; files run in parallel, on at
// least two workers: vitest's default (cores - 1) is one worker on a 2-core machine, which leaves a
// core idle while a file waits on the CLI processes and Redis it drives.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...Object.keys(LIVE_SUITES)],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // An unhandled rejection anywhere fails the run (vitest's default, stated so it is not turned off).
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
