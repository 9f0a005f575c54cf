import type { TopLevelSpec } from 'vega-lite'
import type { Dimension } from '../../signals/units.js'
import { formatWindow, wallClockParts } from '../render/time.js'

/**
 * The digest chart as a Vega-Lite spec built from the digest's data: one panel per key series, a line
 * per broker, the alerts that fired drawn as shaded bands named after their rule. The spec is data a
 * team can restyle (`kafka-why digest --spec`); bot/digest/render-chart.ts turns it into SVG and PNG.
 */

/** One sample of a chart series. */
export type ChartPoint = { at: number; value: number }
/** One line of a panel (one broker). */
export type ChartSeries = { name: string; points: ChartPoint[] }
/**
 * One stacked panel: a signal's series for every broker, on one axis with its unit. `empty` says why
 * the panel may have no samples (which source is missing), written instead of invented axes.
 */
export type ChartPanel = {
  title: string
  dimension: Dimension
  series: ChartSeries[]
  empty?: string
  /**
   * "events": each point is one occurrence (a pause), drawn as a stem from zero to its value, never
   * joined to the next one; a line between two pauses minutes apart would draw a ramp that never was.
   * Default "series": samples of a gauge, joined.
   */
  draw?: 'series' | 'events'
}

/**
 * The time a rule's alert was firing in the window, merged over the brokers it fired on, so a rule
 * that fired on three brokers at once is one band, not three stacked on each other.
 */
export type AlertBand = { ruleId: string; severity: string; brokers: string[]; from: number; to: number }

/** Broker line colours, in legend order; the Okabe–Ito set, distinct for common colour blindness. */
export const SERIES_COLOURS: readonly string[] = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000']

/** Dash patterns per broker, in legend order: the first solid, then patterns that stay apart when lines overlap. */
const BROKER_DASHES: readonly number[][] = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [4, 4], [10, 2], [1, 3], [12, 4, 2, 4]]
/** Marker shapes per broker, in legend order. */
const BROKER_SHAPES: readonly string[] = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'triangle-right', 'triangle-left']

/** Band fill per severity: the colour says how bad before the label is read. */
const SEVERITY_FILLS: Record<string, string> = { critical: '#d62728', warning: '#ff7f0e', info: '#7f7f7f' }

/** The font the spec names; render-chart.ts hands resvg the same TrueType file, so no system font is used. */
export const CHART_FONT = 'DejaVu Sans'

/**
 * The window the chart covers and how it is drawn. Times are shown in `timeZone` (the bot config's
 * time_zone), applied only here at the edge.
 */
export type ChartOptions = { from: number; to: number; timeZone?: string; cluster?: string; width?: number; panelHeight?: number }

/** The time axis as drawn: its span, the tick format and the title naming the date and zone. */
export type ChartAxis = { from: number; to: number; caption: string; zoomed: boolean; tickFormat: string }

/** Margin either side of the data when the axis zooms in, as a share of the data's span (at least 10 s). */
const MARGIN_SHARE = 0.05
const MIN_MARGIN_MS = 10_000
/** At most this many alert lanes; more would push the series off a phone screen. */
const MAX_LABELLED_BANDS = 8
const LANE_HEIGHT = 18
/** Up to this many samples per broker a line also marks each sample with a dot. */
const SPARSE_POINTS = 40
/** An empty panel is one line of text: it needs no plot height. */
const EMPTY_PANEL_HEIGHT = 40

/**
 * The time axis: a 9-minute incident in a 24 h window drawn over the full window is a sliver at the
 * edge, so the axis zooms to the samples' span plus a margin (inside the window) and its title says
 * so, with the date and the zone, since "14:03" alone is ambiguous once forwarded.
 */
export function chartAxis(panels: ChartPanel[], opts: ChartOptions): ChartAxis {
  const timeZone = opts.timeZone ?? 'UTC'
  const times = panels.flatMap((p) => p.series.flatMap((s) => s.points.map((pt) => pt.at))).filter((t) => t >= opts.from && t <= opts.to)
  let from = opts.from
  let to = opts.to
  if (times.length) {
    const first = times.reduce((a, b) => Math.min(a, b))
    const last = times.reduce((a, b) => Math.max(a, b))
    const margin = Math.max(MIN_MARGIN_MS, (last - first) * MARGIN_SHARE)
    from = Math.max(opts.from, first - margin)
    to = Math.min(opts.to, last + margin)
  }
  const zoomed = from > opts.from || to < opts.to
  // Seconds matter on a short axis: ticks over 9 minutes would otherwise repeat a minute.
  const tickFormat = to - from <= 20 * 60_000 ? '%H:%M:%S' : '%H:%M'
  const caption = `${formatWindow(from, to, timeZone)}${zoomed ? ` · zoomed to the data (window ${formatSpan(opts.to - opts.from)})` : ''}`
  return { from, to, caption, zoomed, tickFormat }
}

/** "24h", "90m": the window's length in the caption. */
function formatSpan(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms >= 60_000) return `${Math.round(ms / 60_000)}m`
  return `${Math.round(ms / 1000)}s`
}

/**
 * The unit a panel's values are shown in, picked from its largest value so labels stay short, with its
 * own case (ms, not MS; µs for micro; MiB for bytes) and the divisor from the base unit.
 */
export function displayUnit(dimension: Dimension, max: number): { unit: string; divisor: number } {
  if (dimension === 'duration') {
    if (max < 1) return { unit: 'µs', divisor: 0.001 }
    if (max < 10_000) return { unit: 'ms', divisor: 1 }
    if (max < 600_000) return { unit: 's', divisor: 1000 }
    return { unit: 'min', divisor: 60_000 }
  }
  if (dimension === 'bytes') {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
    let i = 0
    while (i < units.length - 1 && max >= 1024 ** (i + 1)) i++
    return { unit: units[i], divisor: 1024 ** i }
  }
  if (dimension === 'ratio') return { unit: '%', divisor: 0.01 }
  if (dimension === 'rate') return { unit: '/s', divisor: 1 }
  return { unit: '', divisor: 1 }
}

/** Why a panel without samples is empty: the panel's own reason, else which samples are missing. */
export function emptyPanelText(panel: ChartPanel): string {
  return panel.empty ?? `no ${panel.title} samples in this window`
}

/** The label a band carries: its rule and where it fired. */
export function bandLabel(band: AlertBand): string {
  return band.brokers.length ? `${band.ruleId} (${band.brokers.map((b) => `b${b}`).join(', ')})` : band.ruleId
}

/**
 * The zone's wall clock as if it were UTC: Vega formats times in UTC or the host's zone only, so the
 * spec carries each time shifted into the configured zone (DST included) and formats it as UTC.
 */
export function wallClockMs(at: number, timeZone: string): number {
  const parts = wallClockParts(at, timeZone)
  const millis = ((at % 1000) + 1000) % 1000
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second)) + millis
}

/**
 * The Vega-Lite spec of the digest chart. Each row of data keeps `at` (epoch ms) beside `time` (the
 * zone's wall clock, formatted as UTC) so a restyled spec can use either.
 */
export function chartSpec(panels: ChartPanel[], bands: AlertBand[], opts: ChartOptions): TopLevelSpec {
  const timeZone = opts.timeZone ?? 'UTC'
  const width = opts.width ?? 640
  const height = opts.panelHeight ?? 130
  const axis = chartAxis(panels, opts)
  // One offset for the whole axis unless the zone changes its clock inside it (a DST night).
  const offsetFrom = wallClockMs(axis.from, timeZone) - axis.from
  const steady = offsetFrom === wallClockMs(axis.to, timeZone) - axis.to
  const wall = (at: number) => (steady ? at + offsetFrom : wallClockMs(at, timeZone))
  const domain = [wall(axis.from), wall(axis.to)]
  const brokers = [...new Set(panels.flatMap((p) => p.series.map((s) => s.name)))]
  const inAxis = bands
    .filter((b) => b.to >= axis.from && b.from <= axis.to)
    .sort((a, b) => a.from - b.from || a.ruleId.localeCompare(b.ruleId))
  const bandRows = inAxis.map((b) => ({
    rule: b.ruleId,
    label: bandLabel(b),
    severity: b.severity,
    time: wall(Math.max(b.from, axis.from)),
    timeEnd: wall(Math.min(b.to, axis.to)),
    // A band in the right half is named to its left, so the name stays inside the plot.
    side: (Math.max(b.from, axis.from) - axis.from) / Math.max(1, axis.to - axis.from) > 0.5 ? 'right' : 'left',
  }))
  const x = { field: 'time', type: 'temporal' as const, scale: { type: 'utc' as const, domainMin: domain[0], domainMax: domain[1], nice: false }, axis: { title: axis.caption, format: axis.tickFormat, labelOverlap: true } }
  const fill = { field: 'severity', type: 'nominal' as const, scale: { domain: Object.keys(SEVERITY_FILLS), range: Object.values(SEVERITY_FILLS) }, legend: null }
  const rows: object[] = []
  if (bandRows.length) {
    // A lane per band above the panels, on the same time axis, naming the rule where its band starts.
    const labelled = bandRows.slice(0, MAX_LABELLED_BANDS)
    rows.push({
      title: { text: 'alerts firing', anchor: 'start', fontSize: 12 },
      width,
      height: LANE_HEIGHT * labelled.length,
      data: { values: labelled },
      encoding: { x: { ...x, axis: { ...x.axis, title: null } }, y: { field: 'label', type: 'nominal', sort: null, axis: null } },
      layer: [
        { mark: { type: 'rect', opacity: 0.35 }, encoding: { x2: { field: 'timeEnd' }, fill } },
        ...(['left', 'right'] as const).map((side) => ({
          transform: [{ filter: { field: 'side', equal: side } }],
          mark: { type: 'text', align: side, baseline: 'middle', dx: side === 'left' ? 3 : -3, fontSize: 10, color: '#222222' },
          encoding: { text: { field: 'label', type: 'nominal' } },
        })),
      ],
    })
  }
  for (const panel of panels) {
    const title = (unit: string) => ({ text: unit ? `${panel.title} (${unit})` : panel.title, anchor: 'start' as const, fontSize: 12 })
    const values = panel.series.flatMap((s) => s.points.filter((pt) => pt.at >= axis.from && pt.at <= axis.to).map((pt) => ({ broker: s.name, at: pt.at, value: pt.value })))
    if (!values.length) {
      rows.push({
        title: title(''),
        width,
        height: EMPTY_PANEL_HEIGHT,
        data: { values: [{ reason: emptyPanelText(panel) }] },
        mark: { type: 'text', align: 'center', baseline: 'middle', fontSize: 12, color: '#666666' },
        encoding: { text: { field: 'reason', type: 'nominal' }, x: { value: width / 2 }, y: { value: EMPTY_PANEL_HEIGHT / 2 } },
      })
      continue
    }
    const { unit, divisor } = displayUnit(panel.dimension, values.reduce((m, v) => Math.max(m, v.value), 0))
    const layers: object[] = []
    if (bandRows.length) {
      layers.push({ data: { values: bandRows }, mark: { type: 'rect', opacity: 0.12 }, encoding: { x2: { field: 'timeEnd' }, fill } })
    }
    const color = { field: 'broker', type: 'nominal', title: 'broker', scale: { domain: brokers, range: SERIES_COLOURS.slice(0, Math.max(1, brokers.length)) } }
    // Brokers whose lines lie on top of each other stay apart by their dash or marker shape, not colour alone;
    // the same field and title merge them into the one broker legend.
    const dash = { field: 'broker', type: 'nominal', title: 'broker', scale: { domain: brokers, range: BROKER_DASHES.slice(0, Math.max(1, brokers.length)) } }
    const shape = { field: 'broker', type: 'nominal', title: 'broker', scale: { domain: brokers, range: BROKER_SHAPES.slice(0, Math.max(1, brokers.length)) } }
    const rowsOf = values.map((v) => ({ broker: v.broker, at: v.at, time: wall(v.at), value: v.value / divisor, zero: 0 }))
    const y = { field: 'value', type: 'quantitative', title: null, scale: { zero: true } }
    if (panel.draw === 'events') {
      layers.push({ data: { values: rowsOf }, mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y, y2: { field: 'zero' }, color, strokeDash: dash } })
      layers.push({ data: { values: rowsOf }, mark: { type: 'point', filled: true, size: 30 }, encoding: { y, color, shape } })
    } else {
      layers.push({
        data: { values: rowsOf },
        // Dots mark the samples of a sparse line (a lone sample is otherwise invisible); a dense one is a line.
        mark: { type: 'line', strokeWidth: 1.5, point: values.length <= SPARSE_POINTS * panel.series.length ? { size: 12 } : false },
        encoding: { y, color, strokeDash: dash },
      })
    }
    rows.push({ title: title(unit), width, height, encoding: { x }, layer: layers })
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: `Kafka digest${opts.cluster ? ` · ${opts.cluster}` : ''}`, subtitle: `${formatWindow(opts.from, opts.to, timeZone)}${bandRows.length ? ' · shaded: alerts firing' : ''}`, anchor: 'start' },
    background: 'white',
    padding: 12,
    config: { font: CHART_FONT, view: { stroke: '#dddddd' }, title: { fontSize: 14 }, axis: { labelFontSize: 10, titleFontSize: 10, titleFontWeight: 'normal', titleColor: '#555555' } },
    vconcat: rows,
    spacing: 18,
    resolve: { scale: { color: 'shared' } },
  } as TopLevelSpec
}
