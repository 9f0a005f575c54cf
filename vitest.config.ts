import { defineConfig } from 'vitest/config'

// Suites that start real services (Redis, Kafka) run serially within their file; files run in parallel.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // An unhandled rejection anywhere fails the run (vitest's default, stated so it is not turned off).
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
