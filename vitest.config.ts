import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'
import { LIVE_SUITES } from './test/live-suites.js'

// `npm test`: every suite that needs no Kafka broker. Services they use: Redis on 127.0.0.1:6379
// (REDIS_URL overrides; test/support/redis-prefix.ts keeps each file's keys apart), six local
// redis-servers for the Redis Cluster files (redis-cli --cluster), git, zsh and openssl where a file says.
// Suites that start real services run serially within their file; files run in parallel, on at
// least two workers: vitest's default (cores - 1) is one worker on a 2-core machine, which leaves a
// core idle while a file waits on the CLI processes and Redis it drives.
//
// Two projects. "shared": the folders of in-memory suites (parsers, engine, rules, bot handlers) run
// without per-file isolation, one module graph per worker: loading the project's modules again for
// every file cost a worker about 0.7 s of CPU per file, half of what these files cost in all (21 files:
// 26.6 CPU s isolated, 12.1 s shared). Their files leave no module state another file reads (secrets
// registered for redaction and mocks are restored or only ever added to). "isolated": everything that
// starts servers, borrows the process (in-process command lines, stdout, the working directory) or
// runs the CLI, one fresh process per file as before.
const SHARED = ['test/dsl', 'test/signals', 'test/editors', 'test/file-formats', 'test/adapters/logs', 'test/rules', 'test/corpus', 'test/engine', 'test/secrets', 'test/logging', 'test/bot'].map(
  (dir) => `${dir}/**/*.test.ts`,
)
const EXCLUDE = [...configDefaults.exclude, ...Object.keys(LIVE_SUITES)]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // An unhandled rejection anywhere fails the run (vitest's default, stated so it is not turned off).
    dangerouslyIgnoreUnhandledErrors: false,
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED, exclude: EXCLUDE, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: [...EXCLUDE, ...SHARED] } },
    ],
  },
})
