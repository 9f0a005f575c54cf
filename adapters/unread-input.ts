import type { UnreadInput } from '../engine/diagnosis.js'
import type { SourceStats } from './incident.js'
import type { UnparsedReason } from './logs/types.js'

/**
 * What a replay or an upload could not read, from the reader's counters, as the answer carries it
 * (Diagnosis.unread). Every counted reason is a line the diagnosis did not see, or saw only in part.
 */

/** Each parser counter in the words the answer uses. */
const REASON_WORDS: Record<UnparsedReason, string> = {
  'unknown-format': 'no layout recognised',
  'no-layout': 'no record start found (a timestamp cut off?)',
  'no-timestamp': 'no time to place them at',
  'invalid-utf8': 'not valid UTF-8',
  'line-too-long': 'over 64 Ki characters, read in part',
  unreadable: 'a read error',
}

/** The unread part of what was read, or undefined when every line and file was read. */
export function unreadInput(stats: SourceStats): UnreadInput | undefined {
  const reasons = new Map<string, number>()
  let lines = 0
  let files = 0
  let ofLines = 0
  const counted = new Set<string>()
  for (const f of stats.files) {
    let unread = 0
    if (f.stats) {
      ofLines += f.stats.lines
      for (const [k, n] of Object.entries(f.stats.unparsed) as [UnparsedReason, number][]) {
        if (n <= 0) continue
        unread += n
        reasons.set(REASON_WORDS[k], (reasons.get(REASON_WORDS[k]) ?? 0) + n)
      }
    }
    for (const [k, n] of Object.entries(f.rejected ?? {})) {
      if (n <= 0) continue
      unread += n
      const words = `JSONL lines refused (${k})`
      reasons.set(words, (reasons.get(words) ?? 0) + n)
    }
    if (unread > 0) {
      files++
      counted.add(f.file)
    }
    lines += unread
  }
  // A file whose every line went unread is also listed as skipped: its lines already say why.
  const skipped = stats.skipped.filter((s) => !counted.has(s.file))
  if (lines === 0 && skipped.length === 0) return undefined
  return {
    lines,
    // JSONL files count refused lines only: the total is at least what went unread.
    ofLines: Math.max(ofLines, lines),
    files,
    skipped: skipped.map((s) => ({ ...s })),
    reasons: [...reasons].map(([reason, n]) => ({ reason, lines: n })).sort((a, b) => b.lines - a.lines || a.reason.localeCompare(b.reason)),
  }
}
