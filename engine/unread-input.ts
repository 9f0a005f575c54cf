import type { UnreadInput } from './diagnosis.js'

/**
 * The one sentence every answer (CLI text and JSON summary, Slack, console) gives about input it could
 * not read, so a partly read input is never answered with "nothing abnormal".
 */

const num = (n: number) => n.toLocaleString('en-US')
const plural = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`

/** "412 of 3,000 lines in 1 file not read: no layout recognised; skipped core.bin (not a log: binary content)". */
export function describeUnread(u: UnreadInput): string {
  const parts: string[] = []
  if (u.lines > 0) {
    const why = u.reasons.map((r) => (u.reasons.length === 1 ? r.reason : `${r.reason} (${num(r.lines)})`)).join(', ')
    parts.push(`${num(u.lines)} of ${plural(u.ofLines, 'line')} in ${plural(u.files, 'file')} not read: ${why}`)
  }
  if (u.skipped.length) {
    const shown = u.skipped.slice(0, 5).map((s) => `${s.file} (${s.reason})`)
    if (u.skipped.length > 5) shown.push(`${u.skipped.length - 5} more`)
    parts.push(`skipped ${shown.join(', ')}`)
  }
  return parts.join('; ')
}

/** True when some input went unread: the answer must say so instead of calling the input healthy. */
export function hasUnread(u: UnreadInput | undefined): u is UnreadInput {
  return u !== undefined && (u.lines > 0 || u.skipped.length > 0)
}
