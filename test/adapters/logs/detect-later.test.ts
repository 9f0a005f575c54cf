import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseLogText } from '../../../adapters/logs/parser.js'
import { tailLogFile } from '../../../adapters/logs/tail.js'
import type { Signal } from '../../../signals/signal.js'

// A tailer that starts in the middle of a stack trace and then goes quiet flushes a head with no dated
// line: the layout found in it is only a guess. The ERROR records written after it must still be read
// with the broker's real layout, as they are when the file is read from its start.

const SERVER_LOG = 'test/incidents/seed-002-down-conversion-oom/broker-1001/server.log'

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting for the tailer')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('adapters/logs/parser layout detection', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-detect-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('a tail whose first chunk is a stack-trace line still turns the ERROR records after it into signals', async () => {
    const lines = (await readFile(SERVER_LOG, 'utf8')).split('\n')
    const firstError = lines.findIndex((l) => l.includes('] ERROR ['))
    const stackLine = lines.find((l) => l.startsWith('\tat '))!
    const rest = lines.slice(firstError).join('\n')
    const expected = parseLogText(rest, { path: 'server.log', cluster: 'c1', broker: '1001' }).signals
    expect(expected.length).toBeGreaterThan(10)

    const file = path.join(dir, 'server.log')
    await writeFile(file, stackLine + '\n')
    const got: Signal[] = []
    let flushed = 0
    const tail = tailLogFile({ path: 'server.log', cluster: 'c1', broker: '1001' }, file, {
      pollMs: 15,
      flushAfterMs: 100,
      partialAfterMs: 100,
      onSignals: (s) => {
        flushed++
        for (const x of s) got.push(x)
      },
    })
    try {
      // The head is flushed on its own once the file has been quiet.
      await waitFor(() => tail.stats().lines >= 1)
      await new Promise((r) => setTimeout(r, 400))
      expect(got).toEqual([])
      await appendFile(file, rest + '\n')
      await waitFor(() => got.length >= expected.length)
      expect(got.map((s) => [s.name, s.at])).toEqual(expected.map((s) => [s.name, s.at]))
      expect(flushed).toBeGreaterThan(0)
    } finally {
      tail.stop()
      await tail.done
    }
  })
})
