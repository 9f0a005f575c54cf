/**
 * The metrics `kafka-why serve` exposes about itself, in the same text format it scrapes, so the
 * service that watches brokers can be watched the same way. A small registry: counters and gauges
 * keyed by label set, and histograms with fixed buckets; `render()` writes exposition text.
 */
type LabelSet = Record<string, string>

type Family =
  | { kind: 'counter' | 'gauge'; help: string; values: Map<string, { labels: LabelSet; value: number }> }
  | { kind: 'histogram'; help: string; buckets: number[]; values: Map<string, { labels: LabelSet; counts: number[]; sum: number; count: number }> }

function keyOf(labels: LabelSet): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join('\u0000')
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}

function renderLabels(labels: LabelSet, extra?: [string, string]): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`)
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`)
  return parts.length ? `{${parts.join(',')}}` : ''
}

function renderNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (n === Infinity) return '+Inf'
  if (n === -Infinity) return '-Inf'
  return String(n)
}

/** A registry of the service's own metrics. */
export class MetricsRegistry {
  private readonly families = new Map<string, Family>()

  private family(name: string, kind: Family['kind'], help: string, buckets?: number[]): Family {
    let f = this.families.get(name)
    if (!f) {
      f = kind === 'histogram' ? { kind, help, buckets: buckets ?? [], values: new Map() } : { kind, help, values: new Map() }
      this.families.set(name, f)
    }
    if (f.kind !== kind) throw new Error(`metric ${name} is a ${f.kind}, not a ${kind}`)
    return f
  }

  /** Declares a counter so it renders (at 0) before its first increment. */
  counter(name: string, help: string): (labels?: LabelSet, by?: number) => void {
    const f = this.family(name, 'counter', help) as Extract<Family, { kind: 'counter' | 'gauge' }>
    return (labels = {}, by = 1) => {
      const k = keyOf(labels)
      const v = f.values.get(k)
      if (v) v.value += by
      else f.values.set(k, { labels: { ...labels }, value: by })
    }
  }

  /** Declares a gauge; the returned setter replaces the value for a label set. */
  gauge(name: string, help: string): (labels: LabelSet, value: number) => void {
    const f = this.family(name, 'gauge', help) as Extract<Family, { kind: 'counter' | 'gauge' }>
    return (labels, value) => void f.values.set(keyOf(labels), { labels: { ...labels }, value })
  }

  /** Declares a histogram with upper bounds `buckets` (the +Inf bucket is implied). */
  histogram(name: string, help: string, buckets: number[]): (labels: LabelSet, value: number) => void {
    const f = this.family(name, 'histogram', help, [...buckets].sort((a, b) => a - b)) as Extract<Family, { kind: 'histogram' }>
    return (labels, value) => {
      const k = keyOf(labels)
      let v = f.values.get(k)
      if (!v) {
        v = { labels: { ...labels }, counts: f.buckets.map(() => 0), sum: 0, count: 0 }
        f.values.set(k, v)
      }
      f.buckets.forEach((b, i) => {
        if (value <= b) v!.counts[i]++
      })
      v.sum += value
      v.count++
    }
  }

  /** The exposition text (format 0.0.4). */
  render(): string {
    const out: string[] = []
    for (const [name, f] of this.families) {
      out.push(`# HELP ${name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
      out.push(`# TYPE ${name} ${f.kind}`)
      if (f.kind === 'histogram') {
        for (const v of f.values.values()) {
          f.buckets.forEach((b, i) => out.push(`${name}_bucket${renderLabels(v.labels, ['le', renderNumber(b)])} ${v.counts[i]}`))
          out.push(`${name}_bucket${renderLabels(v.labels, ['le', '+Inf'])} ${v.count}`)
          out.push(`${name}_sum${renderLabels(v.labels)} ${renderNumber(v.sum)}`)
          out.push(`${name}_count${renderLabels(v.labels)} ${v.count}`)
        }
      } else {
        if (f.values.size === 0 && f.kind === 'counter') out.push(`${name} 0`)
        for (const v of f.values.values()) out.push(`${name}${renderLabels(v.labels)} ${renderNumber(v.value)}`)
      }
    }
    return out.join('\n') + '\n'
  }
}
