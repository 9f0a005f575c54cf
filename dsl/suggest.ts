/**
 * Did-you-mean: the nearest candidate by edit distance, so a typo in a signal or label name gets
 * a fix rather than a bare "unknown".
 */

/** Levenshtein distance, bounded: returns `limit + 1` as soon as the distance must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      rowMin = Math.min(rowMin, cur[j])
    }
    if (rowMin > limit) return limit + 1
    prev = cur
  }
  return prev[b.length]
}

/** The closest candidate within a third of the word's length (at least 2 edits), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase(), limit)
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  if (best) return best
  const tail = word.split('.').pop() ?? word
  return candidates.find((c) => c.endsWith(`.${tail}`) || c.split('.').pop() === tail)
}
