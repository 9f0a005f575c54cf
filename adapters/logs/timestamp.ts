/**
 * Timestamps as Kafka, ZooKeeper and the JVM write them, turned into epoch ms. Hand-parsed rather than
 * through Date.parse: log4j's comma, JDK 8's "-0400" and lines without any zone are all common, and a
 * replay of a gigabyte of log parses millions of them.
 */

/** Gives the zone offset (ms east of UTC) in force at a UTC instant; fixed offsets ignore the instant. */
export type ZoneOffset = (utcMs: number) => number

const OFFSET_RE = /^(?:Z|UTC|GMT|([+-])(\d{2}):?(\d{2})?)$/i

/**
 * Reads a source's configured time zone: "+08:00", "-0400", "Z"/"UTC", or an IANA name. Returns
 * undefined for a name the runtime does not know, so configuration errors surface instead of
 * silently shifting evidence.
 */
export function resolveZone(tz: string | undefined): ZoneOffset | undefined {
  if (tz === undefined || tz === '') return () => 0
  const m = OFFSET_RE.exec(tz.trim())
  if (m) {
    if (!m[1]) return () => 0
    const off = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? '0')) * 60_000
    return () => off
  }
  let fmt: Intl.DateTimeFormat
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
  } catch {
    return undefined
  }
  const cache = new Map<number, number>()
  return (utcMs: number) => {
    const hour = Math.floor(utcMs / 3_600_000)
    const hit = cache.get(hour)
    if (hit !== undefined) return hit
    const parts: Record<string, number> = {}
    for (const p of fmt.formatToParts(new Date(hour * 3_600_000))) if (p.type !== 'literal') parts[p.type] = Number(p.value)
    const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second)
    const off = asUtc - hour * 3_600_000
    cache.set(hour, off)
    return off
  }
}

const d = (s: string, i: number) => s.charCodeAt(i) - 48
const isDigit = (s: string, i: number) => {
  const c = s.charCodeAt(i)
  return c >= 48 && c <= 57
}

/**
 * Parses `2018-08-06 01:28:02,562`, `2018-08-13T22:16:09.744-0400`, `2024-05-01T10:00:00.123+08:00`,
 * `…Z`, with 0–9 fraction digits, starting at `from`. A timestamp without an offset is read in `zone`.
 * Returns undefined unless the text is a well-formed date-time.
 */
export function parseDateTime(s: string, zone: ZoneOffset, from = 0): number | undefined {
  const i = from
  if (!(isDigit(s, i) && isDigit(s, i + 3) && s.charCodeAt(i + 4) === 45 && s.charCodeAt(i + 7) === 45)) return undefined
  const sep = s.charCodeAt(i + 10)
  if (sep !== 32 && sep !== 84) return undefined
  const year = d(s, i) * 1000 + d(s, i + 1) * 100 + d(s, i + 2) * 10 + d(s, i + 3)
  const month = d(s, i + 5) * 10 + d(s, i + 6)
  const day = d(s, i + 8) * 10 + d(s, i + 9)
  const hour = d(s, i + 11) * 10 + d(s, i + 12)
  const min = d(s, i + 14) * 10 + d(s, i + 15)
  let sec = 0
  let j = i + 16
  if (s.charCodeAt(j) === 58) {
    sec = d(s, j + 1) * 10 + d(s, j + 2)
    j += 3
  }
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && min <= 59 && sec <= 60)) return undefined
  let ms = 0
  const fc = s.charCodeAt(j)
  if (fc === 44 || fc === 46) {
    j++
    let scale = 100
    while (isDigit(s, j)) {
      if (scale >= 1) ms += d(s, j) * scale
      scale /= 10
      j++
    }
    ms = Math.floor(ms)
  }
  const local = Date.UTC(year, month - 1, day, hour, min, sec, ms)
  if (!Number.isFinite(local)) return undefined
  const z = s.charCodeAt(j)
  if (z === 90 || z === 122) return local
  if ((z === 43 || z === 45) && isDigit(s, j + 1) && isDigit(s, j + 2)) {
    let k = j + 3
    if (s.charCodeAt(k) === 58) k++
    const mm = isDigit(s, k) && isDigit(s, k + 1) ? d(s, k) * 10 + d(s, k + 1) : 0
    const off = (z === 45 ? -1 : 1) * ((d(s, j + 1) * 10 + d(s, j + 2)) * 60 + mm) * 60_000
    return local - off
  }
  return local - zone(local)
}

/** Length of the date-time that parseDateTime accepted at `from` (to skip past it). */
export function dateTimeLength(s: string, from = 0): number {
  const m = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?(?:\d{2})?)?/i.exec(s.slice(from, from + 40))
  return m ? m[0].length : 0
}

/** JVM uptime "491.491" (seconds, JDK 8 stamps), "0.278s", "278ms", "278000000ns" -> ms since JVM start. */
export function parseUptimeMs(text: string): number | undefined {
  const m = /^(\d+(?:[.,]\d+)?)(s|ms|ns)?$/.exec(text)
  if (!m) return undefined
  const v = Number(m[1].replace(',', '.'))
  if (m[2] === 'ms') return v
  if (m[2] === 'ns') return v / 1e6
  return v * 1000
}
