import { defineConfig } from 'vitest/config'
import { LIVE_SUITES } from './test/live-suites.js'

// `npm run test:live`: the suites that start a real Kafka broker (test/live-suites.ts says which and
// what else each needs). Java and the jars lab/fetch-kafka.sh fetches; Redis on 127.0.0.1:6379.
export default defineConfig({
  test: {
    include: Object.keys(LIVE_SUITES),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    dangerouslyIgnoreUnhandledErrors: false,
  },
})
