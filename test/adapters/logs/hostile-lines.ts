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

/** One hostile line's shape: the line it makes at a given size. */
export type Shape = (bytes: number) => string

/** Adversarial line shapes for seed texts: each seed repeated, followed or preceded by a long run. */
export function hostileShapesOf(seeds: readonly string[], regexSources: readonly string[]): Shape[] {
  const fillers = [...new Set([...FILLERS, ...regexSources.flatMap(literalCharsOf)])]
  const shapes: Shape[] = []
  for (const seed of seeds) {
    shapes.push((bytes) => fill(seed, bytes))
    for (const f of fillers) {
      shapes.push((bytes) => seed + fill(f, bytes - seed.length))
      shapes.push((bytes) => fill(f, bytes - seed.length) + seed)
      shapes.push((bytes) => fill(seed + f, bytes))
      shapes.push((bytes) => fill(f + seed.slice(0, 3), bytes))
    }
  }
  return shapes
}

/** Adversarial lines of `bytes` (64 KiB) for seed texts. */
export function hostileLinesOf(seeds: readonly string[], regexSources: readonly string[], bytes = LINE_BYTES): string[] {
  return hostileShapesOf(seeds, regexSources).map((shape) => shape(bytes))
}

/** Adversarial line shapes for one row of a matcher table. */
export function hostileShapes(m: Matcher): Shape[] {
  return hostileShapesOf(m.literals.length ? [...m.literals] : [m.pattern ?? ''], [m.re.source])
}

/** Adversarial 64 KiB lines for one row of a matcher table. */
export function hostileLines(m: Matcher, bytes = LINE_BYTES): string[] {
  return hostileShapes(m).map((shape) => shape(bytes))
}

/**
 * The fastest of up to five runs (one is enough when it is well under the bound): the bound is about the
 * algorithm, not about a busy machine's worst moment. A run counts the lesser of its wall time and the
 * CPU time the process spent in it: on a machine with more runnable processes than cores the wall clock
 * also counts the time the scheduler gave to others (a 2 ms regex read 13 ms at a load average of 25),
 * while the CPU time counts only the work (and can count other threads' work, e.g. the collector's,
 * which the wall time then bounds).
 */
export function bestMs(run: () => unknown, enoughMs = BOUND_MS / 4): number {
  let best = Infinity
  for (let i = 0; i < 5; i++) {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    run()
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    best = Math.min(best, wall, (cpu.user + cpu.system) / 1000)
    if (best < enoughMs) break
  }
  return best
}

/** The size every shape is first timed at: a quarter of a line. */
export const SCREEN_BYTES = LINE_BYTES / 4
/** How many of the slowest shapes are timed again at the full 64 KiB, whatever they took. */
export const CONFIRMED_SLOWEST = 4

/** One shape's time at one size, against the bound for that size. */
export type ShapeTime = { index: number; bytes: number; ms: number; boundMs: number }

/**
 * Times every shape on a 16 KiB line, then the slowest ones on the full 64 KiB line, and gives the
 * time closest to (or furthest over) its bound. A linear step costs a quarter on a quarter of the line,
 * so the 16 KiB bound is the 64 KiB one scaled down (`boundMs(bytes)`); a step that backtracks costs the
 * square or worse, 1/16 of its 64 KiB time or less: one costing 40 ms or more on 64 KiB is over the 16 KiB
 * bound outright, and one between 10 and 40 ms stands out among the slowest few, which are timed on the
 * full line against the full bound. Each shape on a quarter line instead of a full one: the same shapes,
 * a quarter of the bytes to scan.
 *
 * `time(index, bytes)` times shape `index` on a line of `bytes`; `boundMs(bytes)` is what such a line may
 * cost. The first shape over the screen bound ends the screening (on a backtracking step one line costs
 * seconds).
 */
export function slowestShape(count: number, time: (index: number, bytes: number) => number, boundMs: (bytes: number) => number): ShapeTime {
  const screenBound = boundMs(SCREEN_BYTES)
  const screened: ShapeTime[] = []
  for (let index = 0; index < count; index++) {
    const t = { index, bytes: SCREEN_BYTES, ms: time(index, SCREEN_BYTES), boundMs: screenBound }
    if (t.ms > t.boundMs) return t
    screened.push(t)
  }
  const fullBound = boundMs(LINE_BYTES)
  // The slowest few, and any that would be past half the full bound if they only grew linearly.
  const confirm = screened.sort((a, b) => b.ms - a.ms).filter((t, rank) => rank < CONFIRMED_SLOWEST || (t.ms * LINE_BYTES) / SCREEN_BYTES > fullBound / 2)
  let worst = screened[0] ?? { index: -1, bytes: SCREEN_BYTES, ms: 0, boundMs: screenBound }
  for (const { index } of confirm) {
    const t = { index, bytes: LINE_BYTES, ms: time(index, LINE_BYTES), boundMs: fullBound }
    if (t.ms / t.boundMs > worst.ms / worst.boundMs) worst = t
    if (t.ms > t.boundMs) break
  }
  return worst
}
