/**
 * JSONL signal ingestion: how fast a recorded line is parsed and checked, by the hand-written check
 * ingestion uses (signals/jsonl.ts validateSignal) and by the zod schema the editors' JSON Schema
 * comes from (file-formats/signal-line.ts), each beside JSON.parse alone on the same lines in the
 * same run. Whichever is faster belongs on the ingestion path; docs/benchmarks.md has the figures.
 *
 *   npx tsx bench/signals-validate.ts [--lines 200000] [--rounds 7]
 */
import { signalLineSchema } from '../file-formats/signal-line.js'
import { validateSignal } from '../signals/jsonl.js'
import { makeBenchSignals } from './store-ingest.js'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name)
  const n = i >= 0 ? Number(process.argv[i + 1]) : fallback
  if (!Number.isInteger(n) || n <= 0) {
    console.error('usage: npx tsx bench/signals-validate.ts [--lines N] [--rounds N]')
    process.exit(2)
  }
  return n
}
const LINES = arg('--lines', 200_000)
const ROUNDS = arg('--rounds', 7)

/** The bench mix (log events with their raw line, metric samples), half with ISO `at`, 1 % refused. */
function makeLines(n: number): string[] {
  return makeBenchSignals(n).map((s, i) => {
    if (i % 100 === 99) return JSON.stringify({ ...s, name: 'heap.usd' })
    return JSON.stringify(i % 2 === 0 ? s : { ...s, at: new Date(s.at).toISOString().replace('Z', '+00:00') })
  })
}

type Case = { name: string; run: (lines: string[]) => number }
const CASES: Case[] = [
  {
    name: 'JSON.parse alone (baseline)',
    run: (lines) => {
      let n = 0
      for (const l of lines) if (JSON.parse(l) !== null) n++
      return n
    },
  },
  {
    name: 'JSON.parse + hand-written check',
    run: (lines) => {
      let n = 0
      for (const l of lines) if (validateSignal(JSON.parse(l)).ok) n++
      return n
    },
  },
  {
    name: 'JSON.parse + zod schema',
    run: (lines) => {
      let n = 0
      for (const l of lines) if (signalLineSchema.safeParse(JSON.parse(l)).success) n++
      return n
    },
  },
]

const lines = makeLines(LINES)
const accepted = new Set<number>()
const times = new Map<string, number[]>()
for (let r = 0; r < ROUNDS; r++) {
  // Interleaved rounds, so drift of the machine's load hits every case alike.
  for (const c of CASES) {
    const t0 = process.hrtime.bigint()
    const n = c.run(lines)
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    if (c.name !== CASES[0].name) accepted.add(n)
    times.set(c.name, [...(times.get(c.name) ?? []), ms])
  }
}
if (accepted.size !== 1) throw new Error(`the two checks disagree on how many lines to accept: ${[...accepted].join(' vs ')}`)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const base = median(times.get(CASES[0].name)!)
console.log(`${LINES} JSONL signal lines, ${ROUNDS} rounds, median; ${[...accepted][0]} accepted by each check`)
for (const c of CASES) {
  const ms = median(times.get(c.name)!)
  const perSec = Math.round((LINES / ms) * 1000)
  console.log(`  ${c.name.padEnd(32)} ${ms.toFixed(1).padStart(8)} ms  ${perSec.toLocaleString('en-US').padStart(11)} lines/s  ${(ms / base).toFixed(2)}× JSON.parse's time`)
}
