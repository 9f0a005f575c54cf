/**
 * Units of the signal catalogue and the rule language. Every value is stored in its dimension's base
 * unit so comparisons never convert at evaluation time: durations in ms, sizes in bytes, ratios as
 * 0..1, rates per second, versions as an ordered integer (see encodeVersion).
 */
export type Dimension = 'duration' | 'bytes' | 'ratio' | 'rate' | 'count' | 'version' | 'none'

/** Multipliers from a unit suffix to its dimension's base unit. */
export const UNIT_SUFFIXES: Record<string, { dimension: Dimension; factor: number }> = {
  ns: { dimension: 'duration', factor: 1e-6 },
  us: { dimension: 'duration', factor: 1e-3 },
  ms: { dimension: 'duration', factor: 1 },
  s: { dimension: 'duration', factor: 1000 },
  m: { dimension: 'duration', factor: 60_000 },
  h: { dimension: 'duration', factor: 3_600_000 },
  d: { dimension: 'duration', factor: 86_400_000 },
  B: { dimension: 'bytes', factor: 1 },
  KB: { dimension: 'bytes', factor: 1e3 },
  MB: { dimension: 'bytes', factor: 1e6 },
  GB: { dimension: 'bytes', factor: 1e9 },
  TB: { dimension: 'bytes', factor: 1e12 },
  KiB: { dimension: 'bytes', factor: 1024 },
  MiB: { dimension: 'bytes', factor: 1024 ** 2 },
  GiB: { dimension: 'bytes', factor: 1024 ** 3 },
  TiB: { dimension: 'bytes', factor: 1024 ** 4 },
  '%': { dimension: 'ratio', factor: 0.01 },
}

/** Rate denominators: `2/s`, `100/m`, `5/h` are all stored per second. */
export const RATE_PER: Record<string, number> = { s: 1, m: 1 / 60, h: 1 / 3600, d: 1 / 86400 }

/**
 * Versions compare as integers so the engine needs no special case: 2.2.1 -> 2_002_001.
 * Four components are kept (0.10.2.1 -> 10_002_001 + 1e-3) because Kafka's old versions have four.
 */
export function encodeVersion(text: string): number | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim())
  if (!m) return undefined
  const [maj, min, patch, build] = [m[1], m[2], m[3] ?? '0', m[4] ?? '0'].map(Number)
  return maj * 1e6 + min * 1e3 + patch + build / 1000
}

/** Inverse of encodeVersion for display. */
export function decodeVersion(value: number): string {
  const maj = Math.floor(value / 1e6)
  const min = Math.floor((value % 1e6) / 1e3)
  const rest = value % 1e3
  const patch = Math.floor(rest + 1e-9)
  const build = Math.round((rest - patch) * 1000)
  return build ? `${maj}.${min}.${patch}.${build}` : `${maj}.${min}.${patch}`
}

/** Formats a base-unit value for people: 3301 ms -> "3.3s", 4294967296 -> "4GiB", 0.2 -> "20%". */
export function formatValue(value: number, dimension: Dimension): string {
  const trim = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Number(n.toPrecision(3)).toString())
  switch (dimension) {
    case 'duration': {
      const abs = Math.abs(value)
      if (abs < 1) return `${trim(value * 1000)}us`
      if (abs < 1000) return `${trim(value)}ms`
      if (abs < 60_000) return `${trim(value / 1000)}s`
      if (abs < 3_600_000) return `${trim(value / 60_000)}m`
      if (abs < 86_400_000) return `${trim(value / 3_600_000)}h`
      return `${trim(value / 86_400_000)}d`
    }
    case 'bytes': {
      const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
      let v = value
      let i = 0
      while (Math.abs(v) >= 1024 && i < units.length - 1) {
        v /= 1024
        i++
      }
      return `${trim(v)}${units[i]}`
    }
    case 'ratio':
      return `${trim(value * 100)}%`
    case 'rate':
      return `${trim(value)}/s`
    case 'version':
      return decodeVersion(value)
    default:
      return trim(value)
  }
}
