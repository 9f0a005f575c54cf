import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tailLogFile } from '../../../adapters/logs/tail.js'
import type { Signal } from '../../../signals/signal.js'

// Real lines recorded by the lab (test/incidents/lab-stw): a JDK 17 gc.log with -Xlog:gc*,safepoint,
// which gets a line about every second and so is never quiet, and broker 1's server.log.
const LAB = new URL('../../incidents/lab-stw/', import.meta.url)
const lines = async (file: string) => (await readFile(new URL(file, LAB), 'utf8')).split('\n').filter((l) => l !== '')

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) return false
    await new Promise((r) => setTimeout(r, 20))
  }
  return true
}

describe('adapters/logs/tail on a live file', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-tail-live-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it.each([
    ['gc.log', 'broker-2/gc.log', 190, 'gc.pause'],
    ['server.log', 'broker-1/server.log', 440, 'zk.session_timeout'],
  ])('parses a %s written every 200 ms from its first recognisable line, not after 200 lines or a quiet spell', async (name, source, from, wanted) => {
    const all = await lines(source)
    const file = path.join(dir, name)
    await writeFile(file, '')
    const got: Signal[] = []
    const tail = tailLogFile({ path: name, cluster: 'lab', broker: '2' }, file, { onSignals: (s) => void got.push(...s) })
    let written = 0
    const writer = setInterval(() => {
      void appendFile(file, all[from + written] + '\n')
      written++
    }, 200)
    try {
      // 30 lines over 6 s: never quiet for 2 s, far short of a 200-line sample.
      const seen = await waitFor(() => got.some((s) => s.name === wanted), 6_000)
      expect(seen, `no ${wanted} after ${written} lines`).toBe(true)
      expect(written).toBeLessThan(30)
      const first = got.find((s) => s.name === wanted)!
      const lineNo = Number(first.source.split(':').at(-1))
      expect(all[from + lineNo - 1]).toBe(first.text?.split('\n')[0])
    } finally {
      clearInterval(writer)
      tail.stop()
      await tail.done
    }
  })

  it("numbers evidence with the file's own lines when it starts at the end of an existing file", async () => {
    const all = await lines('broker-1/server.log')
    const file = path.join(dir, 'resumed-server.log')
    const head = all.slice(0, 450)
    await writeFile(file, head.join('\n') + '\n')
    const got: Signal[] = []
    const tail = tailLogFile({ path: 'server.log', cluster: 'lab', broker: '1' }, file, { fromEnd: true, pollMs: 50, onSignals: (s) => void got.push(...s) })
    try {
      await new Promise((r) => setTimeout(r, 300))
      const timeout = all.findIndex((l) => l.includes('Client session timed out'))
      await appendFile(file, all.slice(450, timeout + 1).join('\n') + '\n')
      expect(await waitFor(() => got.some((s) => s.name === 'zk.session_timeout'), 5_000)).toBe(true)
      expect(got.find((s) => s.name === 'zk.session_timeout')!.source).toBe(`log:server.log:${timeout + 1}`)
    } finally {
      tail.stop()
      await tail.done
    }
  })
})
