import { createRequire } from 'node:module'
import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js'
import { parse, View } from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import { CHART_FONT } from './chart.js'

/**
 * Server-side rendering of a Vega-Lite spec: Vega draws it to SVG, resvg rasterises the SVG to PNG with
 * the DejaVu Sans TrueType file shipped as an npm package, so a bot host needs no system font, canvas
 * or browser, and the picture is the same on every host.
 */

/** The TrueType file resvg is given; the spec names its family (CHART_FONT). */
export const CHART_FONT_FILE = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')

/** Compiles the Vega-Lite spec and renders it to an SVG document. */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/** resvg's options: the zoom, and only the bundled font (the spec names its family). */
function rasterOptions(scale: number): ResvgRenderOptions {
  return {
    fitTo: scale === 1 ? { mode: 'original' } : { mode: 'zoom', value: scale },
    font: { fontFiles: [CHART_FONT_FILE], loadSystemFonts: false, defaultFontFamily: CHART_FONT },
  }
}

/**
 * Rasterises an SVG to PNG at `scale` (2 keeps text sharp on high-density screens) on resvg's own
 * thread, so the bot's event loop keeps acknowledging Slack while a chart is drawn.
 */
export async function svgToPng(svg: string, scale = 1): Promise<Buffer> {
  return (await renderAsync(svg, rasterOptions(scale))).asPng()
}

/** The spec as a PNG: what the bot uploads beside the digest and `kafka-why digest --out` writes. */
export async function renderChartPng(spec: TopLevelSpec, scale = 1): Promise<Buffer> {
  return svgToPng(await renderChartSvg(spec), scale)
}
