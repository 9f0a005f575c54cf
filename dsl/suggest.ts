/**
 * Did-you-mean: the nearest candidate by edit distance, so a typo in a signal or label name gets
 * a fix rather than a bare "unknown".
 */

/**
 * Edit distance counting a swap of two neighbours as one edit (optimal string alignment), since
 * `adn` for `and` is one slip of the fingers. Bounded: returns `limit + 1` as soon as the distance
 * must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let before: number[] = []
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1)
      cur[j] = d
      rowMin = Math.min(rowMin, d)
    }
    if (rowMin > limit) return limit + 1
    before = prev
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
