/**
 * Times shown to people, in the team's configured time zone. Engine times are epoch ms; the zone is
 * applied only here, at the edge.
 */
export function formatTime(ms: number, timeZone: string, withDate = false): string {
  const parts = wallClockParts(ms, timeZone)
  const millis = String(((ms % 1000) + 1000) % 1000).padStart(3, '0')
  const clock = `${parts.hour}:${parts.minute}:${parts.second}.${millis}`
  return withDate ? `${parts.year}-${parts.month}-${parts.day} ${clock}` : clock
}

/** The zone's wall clock at `ms` as two-digit fields (year, month, day, hour, minute, second), DST included. */
export function wallClockParts(ms: number, timeZone: string): Record<string, string> {
  return Object.fromEntries(formatter(timeZone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]))
}

const FORMATTERS = new Map<string, Intl.DateTimeFormat>()

/** Building a DateTimeFormat costs far more than using one; a timeline formats hundreds of times. */
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = FORMATTERS.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
    FORMATTERS.set(timeZone, f)
  }
  return f
}

/** "2026-11-29 01:20 → 02:20 Europe/Berlin": a window as one short phrase. */
export function formatWindow(from: number, to: number, timeZone: string): string {
  const a = formatTime(from, timeZone, true).slice(0, 16)
  const b = formatTime(to, timeZone, true).slice(0, 16)
  const sameDay = a.slice(0, 10) === b.slice(0, 10)
  return `${a} → ${sameDay ? b.slice(11) : b} ${timeZone}`
}

/** 5400000 → "1h 30m": durations in sentences. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`
  const s = Math.round(ms / 1000)
  const d = Math.floor(s / 86400)
  const h = Math.floor((s % 86400) / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  const out = [d && `${d}d`, h && `${h}h`, m && `${m}m`, sec && !d && `${sec}s`].filter(Boolean)
  return out.length ? out.join(' ') : '0s'
}
