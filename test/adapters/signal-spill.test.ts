import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptySourceStats, readSignalSources } from '../../adapters/incident.js'
import type { Signal } from '../../signals/signal.js'
import { writeBigServerLog } from '../support/big-server-log.js'

// Records that name no broker wait for the end of their input (the broker may be named later); past a
// count they wait in a temporary file. What comes out must be the same signals, in the same order and
// attributed alike, as when all of them wait in memory, and the file must be gone afterwards, also
// when the reader stops early. The input is real broker lines (test/support/big-server-log.ts).

let dir = ''
let file = ''
let spillRoot = ''
const tmpBefore = process.env.TMPDIR

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'signal-spill-'))
  file = path.join(dir, 'server.log')
  await writeBigServerLog(file, 1024 ** 2)
  spillRoot = path.join(dir, 'tmp')
  await mkdir(spillRoot)
  // os.tmpdir() reads TMPDIR on each call: the spill files land where the test can look.
  process.env.TMPDIR = spillRoot
}, 60_000)
afterAll(async () => {
  if (tmpBefore === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = tmpBefore
  await rm(dir, { recursive: true, force: true })
})

async function readAll(unnamedInMemory: number): Promise<{ signals: Signal[]; attributedTo: Record<string, number> }> {
  const stats = emptySourceStats()
  const signals: Signal[] = []
  for await (const batch of readSignalSources([file], { cluster: 'c', stats, unnamedInMemory })) for (const s of batch) signals.push(s)
  return { signals, attributedTo: stats.attributedTo }
}

describe('adapters/signal-spill', () => {
  it('gives the same signals, order and attribution whether unnamed records wait in memory or in a file', async () => {
    const inMemory = await readAll(Infinity)
    const spilled = await readAll(100)
    const unnamed = Object.values(inMemory.attributedTo).reduce((a, b) => a + b, 0)
    expect(unnamed).toBeGreaterThan(500)
    expect(spilled.attributedTo).toEqual(inMemory.attributedTo)
    expect(spilled.signals.length).toBe(inMemory.signals.length)
    expect(JSON.stringify(spilled.signals)).toBe(JSON.stringify(inMemory.signals))
    expect(await readdir(spillRoot)).toEqual([])
  }, 120_000)

  it('removes the file when the reader stops before the end', async () => {
    let seen = 0
    let spilledWhileReading = false
    for await (const batch of readSignalSources([file], { cluster: 'c', unnamedInMemory: 100 })) {
      seen += batch.length
      spilledWhileReading ||= (await readdir(spillRoot)).length > 0
      if (seen > 2000) break
    }
    expect(spilledWhileReading).toBe(true)
    expect(await readdir(spillRoot)).toEqual([])
  }, 120_000)
})
