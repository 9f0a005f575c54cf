import { defineConfig } from 'vitest/config'
import { LIVE_SUITES } from './test/live-suites.js'

// `npm test`: every suite that needs no Kafka broker. Services they use: Redis on 127.0.0.1:6379
// (REDIS_URL overrides; test/support/redis-prefix.ts keeps each file's keys apart), six local
// redis-servers for the Redis Cluster files (redis-cli --cluster), git, zsh and openssl where a file says.
// Suites that start real services run serially within their file; files run in parallel.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...Object.keys(LIVE_SUITES)],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // An unhandled rejection anywhere fails the run (vitest's default, stated so it is not turned off).
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
