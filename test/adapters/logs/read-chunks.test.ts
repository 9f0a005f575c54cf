import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseLogText } from '../../../adapters/logs/parser.js'
import { readLogFile } from '../../../adapters/logs/read-file.js'

// The replay reader cuts a file into chunks at newlines and hands the parser's unfinished record back in
// front of the next chunk's bytes. Whatever the chunk size, a file must give exactly the signals (times,
// evidence lines, line numbers) and counters that parsing it whole gives. Real recorded logs with
// multi-line records (stack traces, G1 detail lines) and a file of multi-byte UTF-8 text.
const FILES: [label: string, file: string][] = [
  ['seed 001 server.log (Map failed stack traces)', 'test/incidents/seed-001-roll-storm-map-failed/broker-1/server.log'],
  ['lab-stw broker-1 gc.log (JDK 17 unified logging)', 'test/incidents/lab-stw/broker-1/gc.log'],
  ['lab-stw broker-1 server.log', 'test/incidents/lab-stw/broker-1/server.log'],
]

async function readAll(file: string, chunkBytes: number) {
  const reader = readLogFile({ path: 'server.log', cluster: 'c1', broker: '1' }, file, { chunkBytes })
  const signals = []
  for await (const batch of reader.batches) signals.push(...batch)
  return { signals, stats: reader.stats }
}

describe('adapters/logs/read-file', () => {
  it.each(FILES)('%s: the same signals and counters at every chunk size', async (_label, file) => {
    const whole = parseLogText(readFileSync(file, 'utf8'), { path: 'server.log', cluster: 'c1', broker: '1' })
    expect(whole.signals.length).toBeGreaterThan(0)
    for (const chunkBytes of [97, 4096, 65_536]) {
      const got = await readAll(file, chunkBytes)
      expect(got.signals, `chunkBytes ${chunkBytes}`).toEqual(whole.signals)
      expect(got.stats.lines).toBe(whole.stats.lines)
      expect(got.stats.bytes).toBe(readFileSync(file).length)
    }
  })
})
