import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { detectFormat, detectLayout, detectWrapper, learnLinePrefix } from '../../../adapters/logs/layout.js'
import { MATCHERS, type Matcher } from '../../../adapters/logs/matchers.js'
import { parseLogText } from '../../../adapters/logs/parser.js'
import type { LogFormat } from '../../../adapters/logs/types.js'
import { BOUND_MS, bestMs, fill, hostileLinesOf, hostileShapes, hostileShapesOf, LINE_BYTES, SCREEN_BYTES, type Shape, slowestShape } from './hostile-lines.js'

// The whole log parser — layout and format detection, record assembly, every matcher table's regex and
// the build step behind it (the JDK 8 GC pause reader's bracket, heap and duration regexes, the generic
// ERROR reader, component families), broker and entity extraction — holds one 64 KiB hostile line to
// 10 ms, in each format it reads. matchers-linear.test.ts holds each row's own regex to the same bound;
// this holds what runs after a row's regex matched. A fuzz case times whole files of mixed real and
// hostile lines.
//
// The whole parser does real work on every 64 KiB line (each row's literals are looked for in it): about
// 2–4 ms on a quiet core. On a machine shared by many processes the same work can take several times
// that, so the bound is 10 ms or four times what 64 KiB of the format's real lines takes right now,
// whichever is larger; a regex that backtracks costs seconds per line and fails either way. Every shape
// is timed on a 16 KiB line against the bound for 16 KiB, the slowest again on 64 KiB (hostile-lines.ts,
// slowestShape, says why that finds a backtracking step).

const INCIDENTS = path.join(import.meta.dirname, '..', '..', 'incidents')
const firstLine = (file: string, has = '') => readFileSync(file, 'utf8').split('\n').find((l) => l.includes(has))!

/** Per format: a real line of that format (so detection has something to go on) and the header of one. */
const FORMATS: { name: string; format: LogFormat; real: string; header: string }[] = [
  { name: 'kafka (log4j)', format: 'kafka', real: firstLine(path.join(INCIDENTS, 'seed-000-stw-session-expiry', 'broker-1', 'server.log')), header: '[2018-08-13 22:14:02,118] ERROR ' },
  { name: 'client (log4j)', format: 'client', real: firstLine(path.join(INCIDENTS, 'lab-stw', 'clients', 'producer.log'), 'WARN [Producer clientId='), header: '[2026-11-29 20:07:47,459] WARN ' },
  {
    name: 'gc (JDK 8)',
    format: 'gc',
    real: firstLine(path.join(INCIDENTS, '..', 'corpus', 'healthy-young-gc-parnew-allocation-failure', 'ksql-server-gc.log')),
    header: '2019-04-17T16:02:44.673+0000: 48.286: ',
  },
  { name: 'gc (JDK 9+ unified)', format: 'gc', real: firstLine(path.join(INCIDENTS, 'lab-stw', 'broker-1', 'gc.log')), header: '[2026-11-29T20:06:55.584+0000][0.017s][info][gc] ' },
]

/**
 * Words the JDK 8 pause reader looks for after its row matched (collector brackets, heap transitions,
 * durations), as fillers: a GC line of nothing but these walks its helper regexes as far as they go.
 */
const GC_FILLERS = ['[PSYoungGen: ', '[ParNew', ' 1K->1K(1K)', '1.0M(1.0M)->', 'Heap: 1.0M(1.0M)->', ', 1.1 secs]', '1.1 secs', '[Times: ', '1', '1.', '[', ']', '(', ')', '->']

/** Rows of every matcher table that read a format. */
const rowsOf = (format: LogFormat): Matcher[] => MATCHERS.filter((m) => m.formats.includes(format))

/**
 * The hostile line shapes for one format, with where each goes: a sample of each row's (the row's own
 * regex has the full set in matchers-linear), as a record's first line, or inside a stack trace for rows
 * that read whole records; plus GC's own shapes. Shapes that make the same line are kept once.
 */
function shapesFor(format: LogFormat): { shape: Shape; record: boolean }[] {
  const out = new Map<string, { shape: Shape; record: boolean }>()
  const add = (shape: Shape, record: boolean) => {
    const key = shape(SCREEN_BYTES)
    const seen = out.get(key)
    if (seen) seen.record ||= record
    else out.set(key, { shape, record })
  }
  for (const m of rowsOf(format)) {
    for (const shape of hostileShapes(m).filter((_, i) => i % 12 === 0)) add(shape, m.scope === 'record')
  }
  if (format === 'gc') {
    for (const seed of ['[GC ', '[GC pause (G1 Evacuation Pause) (young)', '[Full GC (Ergonomics) ', '[GC remark ', '[GC (CMS Initial Mark) ']) {
      for (const shape of hostileShapesOf([seed], [])) add(shape, false)
      for (const f of GC_FILLERS) add((bytes) => seed + fill(f, bytes - seed.length), false)
    }
  }
  return [...out.values()]
}

/** `bytes` of a format's real lines: what any that many bytes cost on this machine right now. */
const realText = (real: string, header: string, bytes = LINE_BYTES) => `${real}\n${`${header}${real.slice(header.length)}\n`.repeat(Math.ceil(bytes / real.length))}`

/**
 * The bound for one hostile line of `bytes`: 10 ms for 64 KiB (scaled to the size), or four times as
 * many bytes of real lines take when the machine is busy.
 */
const boundMs = (real: string, header: string, format: LogFormat, bytes = LINE_BYTES) =>
  Math.max((BOUND_MS * bytes) / LINE_BYTES, 4 * parseMs(realText(real, header, bytes), format, 0))

/** ms to parse `text` as `format`, best of three. */
const parseMs = (text: string, format: LogFormat, enoughMs = BOUND_MS / 2) => bestMs(() => parseLogText(text, { path: 'hostile.log', cluster: 'c', format }), enoughMs)

describe('adapters/logs/parser linear time (every matcher table, build steps and detection)', () => {
  it.each(FORMATS)('$name: each hostile 64 KiB line, as a record’s first line or inside its stack trace, stays under 10 ms', ({ format, real, header }) => {
    const shapes = shapesFor(format)
    expect(shapes.length).toBeGreaterThan(100)
    const cases = shapes.flatMap(({ shape, record }) => [{ shape, where: 'first line' }, ...(record ? [{ shape, where: 'stack trace' }] : [])])
    const textOf = ({ shape, where }: (typeof cases)[number], bytes: number) =>
      where === 'first line' ? `${real}\n${header}${shape(bytes)}\n` : `${real}\n${header}java.io.IOException: x\n${shape(bytes)}\n`
    const bounds = new Map<number, number>()
    const boundAt = (bytes: number) => bounds.get(bytes) ?? bounds.set(bytes, boundMs(real, header, format, bytes)).get(bytes)!
    const slowest = slowestShape(cases.length, (i, bytes) => parseMs(textOf(cases[i], bytes), format, boundAt(bytes)), boundAt)
    const text = textOf(cases[slowest.index], slowest.bytes)
    let { ms, boundMs: bound } = slowest
    // Over the bound: look at the machine again and time that line once more (on a backtracking step
    // it costs seconds whatever the machine does).
    if (ms > bound) {
      bound = boundMs(real, header, format, slowest.bytes)
      ms = parseMs(text, format, bound)
    }
    const line = cases[slowest.index].shape(slowest.bytes)
    expect(ms, `slowest ${slowest.bytes / 1024} KiB line (${cases[slowest.index].where}) starts ${JSON.stringify(line.slice(0, 60))}`).toBeLessThanOrEqual(bound)
  }, 600_000)

  it('layout detection (wrapper, layout, format) stays under 10 ms on a hostile 64 KiB line', () => {
    const lines = hostileLinesOf(['[2018-08-13 22:14:02,118] INFO ', '2018-08-13 22:14:02,118 INFO ', '{"log":"', '2026-11-29T20:06:55.584Z stdout F ', 'Sep 23 15:25:24 host kafka[812]: ', '['], [])
    let slowest = { ms: 0, line: '' }
    for (const line of lines) {
      if (slowest.ms > BOUND_MS) break
      const ms = bestMs(() => {
        const sample = [line, line]
        detectWrapper(sample)
        const layout = detectLayout(sample)
        detectFormat(sample, layout)
      })
      if (ms > slowest.ms) slowest = { ms, line }
    }
    expect(slowest.ms, `slowest starts ${JSON.stringify(slowest.line.slice(0, 60))}`).toBeLessThanOrEqual(BOUND_MS)
  })

  it('line-prefix learning stays under 10 ms on hostile prefixes before a record', () => {
    const record = '[2018-08-13 22:14:02,118] INFO x'
    const shapes = ['1 ', '[ 1 ] ', 'a1 ', ' ', '[  1] [ 1.1] [s_k-1] [I] ', '1:', 'a ', '(1) ']
    let slowest = { ms: 0, line: '' }
    for (const shape of shapes) {
      for (const bytes of [64, 200, 390]) {
        if (slowest.ms > BOUND_MS) break
        const line = fill(shape, bytes) + record
        const ms = bestMs(() => learnLinePrefix([line, line, `${fill(shape, bytes - 1)}x${record}`]))
        if (ms > slowest.ms) slowest = { ms, line }
      }
    }
    expect(slowest.ms, `slowest starts ${JSON.stringify(slowest.line.slice(0, 60))}`).toBeLessThanOrEqual(BOUND_MS)
  })

  it('fuzz: whole files of real and hostile lines parse in time proportional to their size', () => {
    const real = FORMATS.map((f) => f.real)
    const hostile = FORMATS.flatMap((f) => shapesFor(f.format).filter((_, i) => i % 60 === 0).map(({ shape }) => `${f.header}${shape(LINE_BYTES)}`))
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.array(fc.oneof(fc.constantFrom(...real), fc.constantFrom(...hostile)), { minLength: 5, maxLength: 16 }),
        ({ format, real: one, header }, lines) => {
          const text = `${lines.join('\n')}\n`
          // Each 64 KiB within its bound, whatever the mix: no line costs more than its share.
          const share = boundMs(one, header, format) * Math.max(1, text.length / LINE_BYTES) + 5
          expect(parseMs(text, format, share)).toBeLessThanOrEqual(share)
        },
      ),
      { numRuns: 15, seed: 28 },
    )
  }, 600_000)
})
