import { describe, expect, it } from 'vitest'
import { MATCHERS, type Matcher } from '../../../adapters/logs/matchers.js'

// A safety bound, not a performance claim: no row of the wording table may take more than 10 ms on one
// 64 KiB line, whatever the line holds. A regex that backtracks (a lazy `(.+?)` before a long tail, a
// nested quantifier) turns one hostile or corrupt line into seconds of a tailer's time. The lines are
// built from each row's own literals and from the characters its regex expects, so they walk as far
// into the pattern as a line can before failing. The table is iterated, so rows added later are held
// to the same bound.

const LINE_BYTES = 64 * 1024
const BOUND_MS = 10

/** Characters a regex source names outright (escapes and classes dropped), e.g. `[`, `"`, `:`, `=`. */
function literalCharsOf(source: string): string[] {
  const plain = source.replace(/\\[dDsSwWbB]|\\./g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/[()|?*+{}^$.,]/g, ' ')
  return [...new Set(plain.replace(/\s+/g, ''))]
}

const FILLERS = ['a', ' ', '1', '1 ', '1,', '1.', 'x ', ', ', ': ', '=', '-', '[ 1 ', '[ 1 1 1 ] ', '(', ')', '"', "'", '/', '\t', 'aaa1 ']

/** Adversarial 64 KiB lines for one row: its literal repeated, or followed or preceded by a long run. */
function hostileLines(m: Matcher): string[] {
  const seeds = m.literals.length ? [...m.literals] : [m.pattern ?? '']
  const fillers = [...FILLERS, ...literalCharsOf(m.re.source)]
  const lines: string[] = []
  const fill = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.ceil(bytes / Math.max(1, unit.length)))).slice(0, bytes)
  for (const seed of seeds) {
    lines.push(fill(seed, LINE_BYTES))
    for (const f of fillers) {
      lines.push(seed + fill(f, LINE_BYTES - seed.length))
      lines.push(fill(f, LINE_BYTES - seed.length) + seed)
      lines.push(fill(seed + f, LINE_BYTES))
      lines.push(fill(f + seed.slice(0, 3), LINE_BYTES))
    }
  }
  return lines
}

/** The fastest of three runs: the bound is about the algorithm, not about a busy machine's worst moment. */
function timeExec(re: RegExp, line: string): number {
  let best = Infinity
  for (let i = 0; i < 3; i++) {
    re.lastIndex = 0
    const t0 = performance.now()
    re.exec(line)
    best = Math.min(best, performance.now() - t0)
    if (best < BOUND_MS / 4) break
  }
  return best
}

describe('adapters/logs/matchers linear time', () => {
  it('the table has rows to check', () => {
    expect(MATCHERS.length).toBeGreaterThan(30)
  })

  it.each(MATCHERS.map((m, i) => ({ row: i + 1, m, words: (m.literals[0] ?? m.pattern ?? '').slice(0, 40) })))(
    'row $row ($words) stays under 10 ms on hostile 64 KiB lines',
    ({ m }) => {
      let slowest = { ms: 0, line: '' }
      for (const line of hostileLines(m)) {
        const ms = timeExec(m.re, line)
        if (ms > slowest.ms) slowest = { ms, line }
      }
      expect(slowest.ms, `slowest line starts ${JSON.stringify(slowest.line.slice(0, 60))}`).toBeLessThanOrEqual(BOUND_MS)
    },
  )
})
