import type { Dimension } from '../../signals/units.js'
import { formatValue } from '../../signals/units.js'
import { formatTime, formatWindow } from '../render/time.js'
import { encodePng } from './png.js'

/**
 * The digest chart: stacked line panels (one per key series, one line per broker) rasterised in
 * plain TypeScript and encoded with the local PNG encoder. Labels use a 3×5 pixel font so the image
 * reads on its own when forwarded out of Slack.
 */

/** One sample of a chart series. */
export type ChartPoint = { at: number; value: number }
/** One line of a panel (one broker). */
export type ChartSeries = { name: string; points: ChartPoint[] }
/**
 * One stacked panel: a signal's series for every broker, on one axis with its unit. `empty` says why
 * the panel may have no samples (which source is missing), drawn instead of invented axes.
 */
export type ChartPanel = { title: string; dimension: Dimension; series: ChartSeries[]; empty?: string }

/** Broker line colours, in legend order; chosen to stay distinct for common colour blindness. */
export const SERIES_COLOURS: readonly [number, number, number][] = [
  [0, 114, 178],
  [230, 159, 0],
  [0, 158, 115],
  [204, 121, 167],
  [86, 180, 233],
  [213, 94, 0],
  [240, 228, 66],
  [0, 0, 0],
]

// Each glyph: 5 rows of 3 pixels, '#' = ink.
const GLYPHS: Record<string, string> = {
  '0': '### #.# #.# #.# ###', '1': '.#. ##. .#. .#. ###', '2': '### ..# ### #.. ###', '3': '### ..# .## ..# ###',
  '4': '#.# #.# ### ..# ..#', '5': '### #.. ### ..# ###', '6': '### #.. ### #.# ###', '7': '### ..# ..# .#. .#.',
  '8': '### #.# ### #.# ###', '9': '### #.# ### ..# ###', A: '.#. #.# ### #.# #.#', B: '##. #.# ##. #.# ##.',
  C: '.## #.. #.. #.. .##', D: '##. #.# #.# #.# ##.', E: '### #.. ##. #.. ###', F: '### #.. ##. #.. #..',
  G: '.## #.. #.# #.# .##', H: '#.# #.# ### #.# #.#', I: '### .#. .#. .#. ###', J: '..# ..# ..# #.# .#.',
  K: '#.# #.# ##. #.# #.#', L: '#.. #.. #.. #.. ###', M: '#.# ### ### #.# #.#', N: '### #.# #.# #.# #.#',
  O: '.#. #.# #.# #.# .#.', P: '##. #.# ##. #.. #..', Q: '.#. #.# #.# ##. .##', R: '##. #.# ##. #.# #.#',
  S: '.## #.. .#. ..# ##.', T: '### .#. .#. .#. .#.', U: '#.# #.# #.# #.# ###', V: '#.# #.# #.# #.# .#.',
  W: '#.# #.# ### ### #.#', X: '#.# #.# .#. #.# #.#', Y: '#.# #.# .#. .#. .#.', Z: '### ..# .#. #.. ###',
  ' ': '... ... ... ... ...', '.': '... ... ... ... .#.', '-': '... ... ### ... ...', ':': '... .#. ... .#. ...',
  '/': '..# ..# .#. #.. #..', '(': '.#. #.. #.. #.. .#.', ')': '.#. ..# ..# ..# .#.', '%': '#.# ..# .#. #.. #.#',
  '_': '... ... ... ... ###', '>': '#.. .#. ..# .#. #..', ',': '... ... ... .#. #..', '+': '... .#. ### .#. ...',
  '=': '... ### ... ### ...', "'": '.#. .#. ... ... ...', '·': '... ... .#. ... ...', '→': '... ..# ### ..# ...',
  // Lower case on the same 3×5 grid (x-height 4 rows), so units keep their case: 908ms is not 908MS (megaseconds).
  a: '... .## #.# #.# .##', b: '#.. ##. #.# #.# ##.', c: '... .## #.. #.. .##', d: '..# .## #.# #.# .##',
  e: '... .#. ### #.. .##', f: '.## .#. ### .#. .#.', g: '.## #.# .## ..# ##.', h: '#.. ##. #.# #.# #.#',
  i: '.#. ... .#. .#. .#.', j: '..# ... ..# #.# .#.', k: '#.. #.# ##. ##. #.#', l: '##. .#. .#. .#. .##',
  m: '... ### ### #.# #.#', n: '... ##. #.# #.# #.#', o: '... .#. #.# #.# .#.', p: '... ##. #.# ##. #..',
  q: '... .## #.# .## ..#', r: '... #.# ##. #.. #..', s: '... .## ##. ..# ##.', t: '.#. ### .#. .#. ..#',
  u: '... #.# #.# #.# .##', v: '... #.# #.# #.# .#.', w: '... #.# #.# ### ###', x: '... #.# .#. .#. #.#',
  y: '... #.# .## ..# ##.', z: '... ### .## #.. ###', 'µ': '... #.# #.# ##. #..',
}

/** True when every character of `s` has a glyph of its own (nothing falls back to a blank). */
export function hasGlyphs(s: string): boolean {
  return [...s].every((ch) => ch in GLYPHS)
}

class Canvas {
  readonly px: Uint8Array
  constructor(readonly width: number, readonly height: number) {
    this.px = new Uint8Array(width * height * 4).fill(255)
  }
  set(x: number, y: number, [r, g, b]: readonly [number, number, number]): void {
    x = Math.round(x)
    y = Math.round(y)
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return
    const i = (y * this.width + x) * 4
    this.px[i] = r
    this.px[i + 1] = g
    this.px[i + 2] = b
    this.px[i + 3] = 255
  }
  rect(x: number, y: number, w: number, h: number, c: readonly [number, number, number]): void {
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) this.set(x + i, y + j, c)
  }
  line(x0: number, y0: number, x1: number, y1: number, c: readonly [number, number, number], thick = 1): void {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1)
    for (let s = 0; s <= steps; s++) {
      const x = x0 + ((x1 - x0) * s) / steps
      const y = y0 + ((y1 - y0) * s) / steps
      for (let t = 0; t < thick; t++) this.set(x, y + t, c)
    }
  }
  text(x: number, y: number, s: string, c: readonly [number, number, number], scale = 2): void {
    let cx = x
    for (const ch of s) {
      const rows = (GLYPHS[ch] ?? GLYPHS[ch.toUpperCase()] ?? GLYPHS[' ']).split(' ')
      rows.forEach((row, ry) => [...row].forEach((p, rx) => p === '#' && this.rect(cx + rx * scale, y + ry * scale, scale, scale, c)))
      cx += 4 * scale
    }
  }
}

/** Width in pixels of a label at the given scale. */
function textWidth(s: string, scale = 2): number {
  return s.length * 4 * scale
}

/**
 * The window the chart covers and how it is drawn. Times are shown in `timeZone` (the bot config's
 * time_zone), applied only here at the edge.
 */
export type ChartOptions = { from: number; to: number; timeZone?: string; width?: number; panelHeight?: number }

/** The time axis as drawn: its span, tick labels and the caption naming the date and zone. */
export type ChartAxis = { from: number; to: number; ticks: { at: number; label: string }[]; caption: string; zoomed: boolean }

const TICKS = 4
/** Margin either side of the data when the axis zooms in, as a share of the data's span (at least 10 s). */
const MARGIN_SHARE = 0.05
const MIN_MARGIN_MS = 10_000

/**
 * The time axis: a 9-minute incident in a 24 h window drawn over the full window is a dot at the
 * edge, so the axis zooms to the samples' span plus a margin (inside the window) and the caption says
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
  const span = Math.max(1, to - from)
  // Seconds matter on a short axis: four ticks over 9 minutes would otherwise repeat a minute.
  const clockChars = span <= 20 * 60_000 ? 8 : 5
  const ticks = Array.from({ length: TICKS + 1 }, (_, t) => {
    const at = from + (span * t) / TICKS
    return { at, label: formatTime(at, timeZone).slice(0, clockChars) }
  })
  const caption = `${formatWindow(from, to, timeZone)}${zoomed ? ` · zoomed to the data (window ${formatSpan(opts.to - opts.from)})` : ''}`
  return { from, to, ticks, caption, zoomed }
}

/** "24h", "90m": the window's length in the caption. */
function formatSpan(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms >= 60_000) return `${Math.round(ms / 60_000)}m`
  return `${Math.round(ms / 1000)}s`
}

/** An axis value with its unit's case kept; micro is µ, as a reader of GC logs expects. */
export function axisValueLabel(value: number, dimension: Dimension): string {
  return formatValue(value, dimension).replace(/(\d)us$/, '$1µs')
}

/** Why a panel without samples is empty: the panel's own reason, else which samples are missing. */
export function emptyPanelText(panel: ChartPanel): string {
  return panel.empty ?? `no ${panel.title} samples in this window`
}

/** Draws the panels and returns PNG bytes. */
export function renderChart(panels: ChartPanel[], opts: ChartOptions): Buffer {
  const width = opts.width ?? 800
  const panelHeight = opts.panelHeight ?? 180
  const left = 70
  const right = 16
  const top = 26
  const bottom = 34
  const height = Math.max(1, panels.length) * panelHeight
  const cv = new Canvas(width, height)
  const ink: [number, number, number] = [40, 40, 40]
  const grey: [number, number, number] = [120, 120, 120]
  const grid: [number, number, number] = [225, 225, 225]
  const axis = chartAxis(panels, opts)
  const span = Math.max(1, axis.to - axis.from)
  panels.forEach((panel, p) => {
    const y0 = p * panelHeight
    const plotW = width - left - right
    const plotH = panelHeight - top - bottom
    cv.text(8, y0 + 6, panel.title, ink)
    // Legend right-aligned, in series order.
    let lx = width - right - panel.series.reduce((w, s) => w + textWidth(s.name) + 18, 0)
    panel.series.forEach((s, i) => {
      cv.rect(lx, y0 + 7, 8, 8, SERIES_COLOURS[i % SERIES_COLOURS.length])
      cv.text(lx + 12, y0 + 6, s.name, ink)
      lx += textWidth(s.name) + 18
    })
    const all = panel.series.flatMap((s) => s.points.filter((pt) => pt.at >= axis.from && pt.at <= axis.to).map((pt) => pt.value))
    if (!all.length) {
      // No axes over nothing: a frame and the reason, so an empty panel is not read as a flat healthy line.
      cv.line(left, y0 + top, left + plotW, y0 + top, grid)
      cv.line(left, y0 + top + plotH, left + plotW, y0 + top + plotH, grid)
      cv.line(left, y0 + top, left, y0 + top + plotH, grid)
      cv.line(left + plotW, y0 + top, left + plotW, y0 + top + plotH, grid)
      cv.text(left + 10, y0 + top + plotH / 2 - 5, emptyPanelText(panel), grey)
      return
    }
    const max = Math.max(0, ...all)
    const yMax = max > 0 ? max * 1.1 : 1
    for (let g = 0; g <= 4; g++) {
      const gy = y0 + top + plotH - (plotH * g) / 4
      cv.line(left, gy, left + plotW, gy, grid)
      const label = g === 0 ? '0' : axisValueLabel((yMax * g) / 4, panel.dimension)
      cv.text(left - 6 - textWidth(label), gy - 5, label, ink)
    }
    cv.line(left, y0 + top, left, y0 + top + plotH, ink)
    cv.line(left, y0 + top + plotH, left + plotW, y0 + top + plotH, ink)
    axis.ticks.forEach(({ label }, t) => {
      const tx = left + (plotW * t) / TICKS
      cv.line(tx, y0 + top + plotH, tx, y0 + top + plotH + 3, ink)
      cv.text(Math.min(width - textWidth(label) - 2, Math.max(0, tx - textWidth(label) / 2)), y0 + top + plotH + 6, label, ink)
    })
    cv.text(Math.max(0, width - right - textWidth(axis.caption)), y0 + top + plotH + 20, axis.caption, grey)
    panel.series.forEach((s, i) => {
      const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]
      const pts = s.points
        .filter((pt) => pt.at >= axis.from && pt.at <= axis.to)
        .map((pt) => [left + (plotW * (pt.at - axis.from)) / span, y0 + top + plotH - (plotH * pt.value) / yMax] as const)
      if (pts.length === 1) cv.rect(pts[0][0] - 1, pts[0][1] - 1, 3, 3, colour)
      for (let k = 1; k < pts.length; k++) cv.line(pts[k - 1][0], pts[k - 1][1], pts[k][0], pts[k][1], colour, 2)
    })
  })
  return encodePng(width, height, cv.px)
}
