import { appendFile, mkdtemp, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tailLogFile, type TailOptions } from '../../../adapters/logs/tail.js'
import type { Signal } from '../../../signals/signal.js'

// Real lines: seed 002's ISR shrinks (Kafka 1.0.1 wording, see fixtures/seed-002/README.md) and seed 001's
// LogDirFailureChannel record, written to real files while the tailer follows them.
const SHRINK = (partition: number) =>
  `[2018-03-24 13:43:00,285] INFO [Partition s1mme.data-${partition} broker=1001] Shrinking ISR from 1001,1002 to 1001 (kafka.cluster.Partition)\n`
const MAP_FAILED_RECORD = [
  '[2024-01-10 09:00:00,000] ERROR Error while appending records to LoadTestingTopic in dir /broder/log (org.apache.kafka.storage.internals.log.LogDirFailureChannel)',
  'java.io.IOException: Map failed ',
  'at java.base/sun.nio.ch.FileChannelImpl.map(FileChannelImpl.java:1016) ',
  'Caused by: java.lang.OutOfMemoryError: Map failed ',
  '',
].join('\n')

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting for the tailer')
    await new Promise((r) => setTimeout(r, 10))
  }
}

function follow(file: string, opts: Partial<TailOptions> = {}) {
  const got: Signal[] = []
  const tail = tailLogFile({ path: 'server.log', cluster: 'c1', format: 'kafka' }, file, {
    pollMs: 15,
    flushAfterMs: 150,
    partialAfterMs: 3000,
    ...opts,
    onSignals: (s) => {
      got.push(...s)
    },
  })
  const partitions = () => got.filter((s) => s.name === 'isr.shrink').map((s) => Number(s.labels?.partition))
  return { got, tail, partitions }
}

describe('adapters/logs/tail', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-tail-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('follows a file across rename+create rotation and copytruncate, with line numbers per file', async () => {
    const file = path.join(dir, 'rotate.log')
    await writeFile(file, SHRINK(1) + SHRINK(2))
    const { got, tail, partitions } = follow(file)
    try {
      await waitFor(() => partitions().length === 2)
      await appendFile(file, SHRINK(3))
      await waitFor(() => partitions().length === 3)
      await rename(file, `${file}.1`)
      await appendFile(`${file}.1`, SHRINK(4))
      await writeFile(file, SHRINK(5))
      await waitFor(() => partitions().length === 5)
      // copytruncate then a line of the same length before the next poll: only the changed start shows it
      await truncate(file, 0)
      await appendFile(file, SHRINK(6))
      await waitFor(() => partitions().length === 6)
      expect(partitions()).toEqual([1, 2, 3, 4, 5, 6])
      expect(got.map((s) => s.source)).toEqual(['1', '2', '3', '4', '1', '1'].map((n) => `log:server.log:${n}`))
    } finally {
      tail.stop()
      await tail.done
    }
  })

  it('resumes from the persisted offset after a restart: nothing lost, nothing repeated', async () => {
    const file = path.join(dir, 'resume.log')
    const offsetFile = path.join(dir, 'state', 'resume.offset.json')
    await writeFile(file, SHRINK(1) + SHRINK(2))
    const first = follow(file, { offsetFile })
    await waitFor(() => first.partitions().length === 2)
    first.tail.stop()
    await first.tail.done
    await appendFile(file, SHRINK(3) + SHRINK(4))
    const saved = JSON.parse(await readFile(offsetFile, 'utf8'))
    expect(saved.line).toBe(3)
    const second = follow(file, { offsetFile })
    try {
      await waitFor(() => second.partitions().length === 2)
      await new Promise((r) => setTimeout(r, 100))
      expect(second.partitions()).toEqual([3, 4])
      expect(second.got.map((s) => s.source)).toEqual(['log:server.log:3', 'log:server.log:4'])
    } finally {
      second.tail.stop()
      await second.tail.done
    }
  })

  it('flushes a stack-trace record after the file goes quiet, with its Caused by', async () => {
    const file = path.join(dir, 'flush.log')
    await writeFile(file, MAP_FAILED_RECORD)
    const { got, tail } = follow(file)
    try {
      await waitFor(() => got.some((s) => s.name === 'log.error'))
      expect(got.map((s) => s.name)).toEqual(expect.arrayContaining(['log.dir_failure', 'log.map_failed', 'jvm.oom', 'log.error']))
    } finally {
      tail.stop()
      await tail.done
    }
  })

  it('with the default poll and quiet period, emits the last record before a silence within 1 s of its write (woken when it changes, 150 ms quiet)', async () => {
    // The line a frozen broker leaves is the last one before a silence: it must not wait seconds for a stack trace.
    const file = path.join(dir, 'quiet.log')
    await writeFile(file, '')
    const { got, tail, partitions } = follow(file, { pollMs: undefined, flushAfterMs: undefined })
    try {
      await new Promise((r) => setTimeout(r, 300))
      const written = Date.now()
      await appendFile(file, SHRINK(7))
      await waitFor(() => partitions().length === 1, 5000)
      expect(Date.now() - written).toBeLessThan(1000)
      expect(got).toHaveLength(1)
    } finally {
      tail.stop()
      await tail.done
    }
  })

  it('joins a line written in two pieces, and is not stalled by invalid bytes', async () => {
    const file = path.join(dir, 'partial.log')
    await writeFile(file, '')
    const { tail, partitions } = follow(file)
    try {
      const line = SHRINK(7)
      await appendFile(file, line.slice(0, 60))
      await new Promise((r) => setTimeout(r, 80))
      expect(partitions()).toEqual([])
      await appendFile(file, line.slice(60))
      await appendFile(file, Buffer.from([0xff, 0xfe, 0x0a]))
      await appendFile(file, SHRINK(8))
      await waitFor(() => partitions().length === 2)
      expect(partitions()).toEqual([7, 8])
      await waitFor(() => tail.stats().unparsed['invalid-utf8'] === 1)
    } finally {
      tail.stop()
      await tail.done
    }
  })

  it('takes a last line that never gets its newline after the quiet period', async () => {
    const file = path.join(dir, 'nonewline.log')
    await writeFile(file, SHRINK(9).trimEnd())
    const { tail, partitions } = follow(file, { partialAfterMs: 300 })
    try {
      await waitFor(() => partitions().length === 1)
      expect(partitions()).toEqual([9])
    } finally {
      tail.stop()
      await tail.done
    }
  })
})
