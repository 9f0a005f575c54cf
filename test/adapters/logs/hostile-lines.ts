import type { Matcher } from '../../../adapters/logs/matchers.js'

// Hostile lines for the linear-time tests: a safety bound, not a performance claim. A regex that
// backtracks (a lazy `(.+?)` before a long tail, a nested quantifier, a greedy run re-scanned from
// every start) turns one hostile or corrupt 64 KiB line into seconds of a tailer's or of serve's time.
// The lines are built from each row's own literals and from the characters its regex expects, so they
// walk as far into the pattern (and into the row's build step) as a line can before failing.

/** Bytes of one hostile line. */
export const LINE_BYTES = 64 * 1024
/** What one hostile line may cost, in ms. */
export const BOUND_MS = 10

/** Characters a regex source names outright (escapes and classes dropped), e.g. `[`, `"`, `:`, `=`. */
export function literalCharsOf(source: string): string[] {
  const plain = source.replace(/\\[dDsSwWbB]|\\./g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/[()|?*+{}^$.,]/g, ' ')
  return [...new Set(plain.replace(/\s+/g, ''))]
}

/** Fillers every hostile line set tries: digits, blanks, separators and brackets log lines are made of. */
export const FILLERS = ['a', ' ', '1', '1 ', '1,', '1.', 'x ', ', ', ': ', '=', '-', '[ 1 ', '[ 1 1 1 ] ', '(', ')', '"', "'", '/', '\t', 'aaa1 ']

/** `unit` repeated to exactly `bytes` characters. */
export function fill(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.ceil(bytes / Math.max(1, unit.length)))).slice(0, bytes)
}

/** Adversarial lines of `bytes` (64 KiB) for one seed text: repeated, followed or preceded by a long run. */
export function hostileLinesOf(seeds: readonly string[], regexSources: readonly string[], bytes = LINE_BYTES): string[] {
  const fillers = [...new Set([...FILLERS, ...regexSources.flatMap(literalCharsOf)])]
  const lines: string[] = []
  for (const seed of seeds) {
    lines.push(fill(seed, bytes))
    for (const f of fillers) {
      lines.push(seed + fill(f, bytes - seed.length))
      lines.push(fill(f, bytes - seed.length) + seed)
      lines.push(fill(seed + f, bytes))
      lines.push(fill(f + seed.slice(0, 3), bytes))
    }
  }
  return lines
}

/** Adversarial 64 KiB lines for one row of a matcher table. */
export function hostileLines(m: Matcher, bytes = LINE_BYTES): string[] {
  return hostileLinesOf(m.literals.length ? [...m.literals] : [m.pattern ?? ''], [m.re.source], bytes)
}

/**
 * The fastest of up to five runs (one is enough when it is well under the bound): the bound is about the
 * algorithm, not about a busy machine's worst moment.
 */
export function bestMs(run: () => unknown, enoughMs = BOUND_MS / 4): number {
  let best = Infinity
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now()
    run()
    best = Math.min(best, performance.now() - t0)
    if (best < enoughMs) break
  }
  return best
}
