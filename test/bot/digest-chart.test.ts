import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { buildDigest, countBucketMs, countBuckets, firingBands, type DigestReport } from '../../bot/digest/build-digest.js'
import { chartAxis, chartSpec, displayUnit, emptyPanelText, SERIES_COLOURS, wallClockMs, type ChartPanel } from '../../bot/digest/chart.js'
import { renderChartPng, renderChartSvg } from '../../bot/digest/render-chart.js'
import { countColour, decodePngPixels, readPngHeader } from './support/png.js'
import { DAY_END, DAY_START } from './support/digest-data.js'

/* eslint-disable @typescript-eslint/no-explicit-any -- the spec is walked as the JSON a team would restyle */
type Row = any

const LAB_STW = 'test/incidents/lab-stw'
const SEED_003 = 'test/incidents/seed-003-selector-leak-group-churn'

/** A recorded incident's digest over the 24 h before its last signal, its alerts replayed as the console does. */
async function incidentDigest(dir: string): Promise<DigestReport> {
  const { loadIncident, loadRuleSet, replayIncidentAlerts } = await import('../../bot/engine-bridge.js')
  const store = new MemoryStore()
  const loaded = await loadIncident(store, dir)
  const { rules } = await loadRuleSet(['rules'])
  const now = loaded.lastAt! + 1000
  await replayIncidentAlerts(store, rules, loaded.times, now)
  const severity = new Map(rules.map((r) => [r.name ?? r.id, r.severity as string]))
  const cluster = (await store.brokers())[0].cluster
  return buildDigest(store, { cluster, from: now - 86_400_000, to: now, now, severityOf: (id) => severity.get(id) })
}

const digests = new Map<string, Promise<DigestReport>>()
/** Each incident is loaded and replayed once for the whole file. */
function digestOf(dir: string): Promise<DigestReport> {
  if (!digests.has(dir)) digests.set(dir, incidentDigest(dir))
  return digests.get(dir)!
}

function specOf(r: DigestReport, timeZone = 'UTC'): Row {
  return chartSpec(r.chart, r.alertBands, { from: r.from, to: r.to, timeZone, cluster: r.cluster })
}

/** The panel rows of the spec whose title starts with `title`. */
function panel(spec: Row, title: string): Row {
  return spec.vconcat.find((row: Row) => row.title.text.startsWith(title))
}

/** The layer that draws the brokers' values: a line for a gauge, stems for events such as pauses. */
function lineLayer(row: Row): Row {
  return row.layer.find((l: Row) => l.mark.type === 'line' || l.mark.type === 'rule')
}

// Replaying an incident's alerts takes seconds, more on a loaded machine.
describe('bot/digest/chart: the Vega-Lite spec from recorded incidents', { timeout: 120_000 }, () => {
  it('draws one line per broker of lab-stw in every panel with data, in one shared legend', async () => {
    const spec = specOf(await digestOf(LAB_STW))
    for (const title of ['heap after GC', 'longest JVM pause', 'under-replicated partitions']) {
      const line = lineLayer(panel(spec, title))
      // The lab ran three brokers, and every one logged GC lines and was scraped.
      expect(new Set(line.data.values.map((v: Row) => v.broker)), title).toEqual(new Set(['b1', 'b2', 'b3']))
      expect(line.encoding.color.scale.domain).toEqual(['b1', 'b2', 'b3'])
      expect(line.encoding.color.scale.range).toEqual(SERIES_COLOURS.slice(0, 3))
    }
  })

  // A pause is an event of a length, not a sample of a level: joining lab-stw's sparse pauses drew a
  // 3.3 s pause as a ramp over minutes.
  it('draws pauses as stems from zero, never joined into a line; gauges stay lines', async () => {
    const spec = specOf(await digestOf(LAB_STW))
    const pauses = panel(spec, 'longest JVM pause')
    expect(pauses.layer.map((l: Row) => l.mark.type)).not.toContain('line')
    const stems = pauses.layer.find((l: Row) => l.mark.type === 'rule')
    expect(stems.encoding.y2).toEqual({ field: 'zero' })
    expect(stems.data.values.every((v: Row) => v.zero === 0)).toBe(true)
    expect(panel(spec, 'heap after GC').layer.map((l: Row) => l.mark.type)).toContain('line')
    // Overlapping brokers stay apart by their dash, not colour alone.
    expect(lineLayer(panel(spec, 'heap after GC')).encoding.strokeDash.scale.domain).toEqual(['b1', 'b2', 'b3'])
  })

  it("marks lab-stw's stalled broker by its critical alert and its pause, and the others by theirs", async () => {
    const r = await digestOf(LAB_STW)
    const b1 = r.brokers.find((b) => b.broker === '1')!
    expect(b1.status).toBe('critical')
    expect(b1.statusReasons).toEqual(expect.arrayContaining(['critical alert stw_pause_session_expiry']))
    expect(b1.statusReasons.some((s) => /JVM pause/.test(s))).toBe(true)
    for (const b of r.brokers) expect(b.status === 'ok', `broker ${b.broker}`).toBe(b.statusReasons.length === 0)
  })

  it("shows lab-stw's stall as broker 1's pause of about 9 s, in ms with the unit in its case", async () => {
    const spec = specOf(await digestOf(LAB_STW))
    const pauses = panel(spec, 'longest JVM pause')
    expect(pauses.title.text).toBe('longest JVM pause: GC and safepoint (ms)')
    const peak = lineLayer(pauses).data.values.reduce((m: Row, v: Row) => (v.value > m.value ? v : m))
    // The README: broker 1 was frozen for 9054 ms by a safepoint stall (Reaching safepoint ≈ 9 s).
    expect(peak.broker).toBe('b1')
    expect(peak.value).toBeGreaterThan(8500)
    expect(peak.value).toBeLessThan(9600)
    expect(panel(spec, 'heap after GC').title.text).toBe('heap after GC (MiB)')
  })

  it.each([
    [LAB_STW, [['stw_pause_session_expiry (b1)', 'critical'], ['not_leader_errors (b1, b2, b3)', 'info']]],
    [
      SEED_003,
      [
        ['group_churn_heap_growth (b3)', 'warning'],
        ['group_rebalance_storm (b3)', 'warning'],
        ['kafka_7610_group_churn (b3)', 'warning'],
        ['selector_leak_group_churn (b3)', 'critical'],
        ['heap_leak (b3)', 'warning'],
      ],
    ],
  ])('%s: the alerts that fired are shaded bands named after their rule', async (dir, expected) => {
    const r = await digestOf(dir)
    const spec = specOf(r)
    const lanes = panel(spec, 'alerts firing')
    expect(lanes.data.values.map((b: Row) => [b.label, b.severity])).toEqual(expected)
    for (const b of lanes.data.values) expect(b.timeEnd).toBeGreaterThanOrEqual(b.time)
    // Each panel with data shades the same bands behind its lines.
    const heapBands = panel(spec, 'heap after GC').layer.find((l: Row) => l.mark.type === 'rect')
    expect(heapBands.data.values.map((b: Row) => b.rule)).toEqual(lanes.data.values.map((b: Row) => b.rule))
  })

  it("charts seed-003's churn as two rebalances a minute on its coordinator for the last two hours", async () => {
    const spec = specOf(await digestOf(SEED_003))
    const row = panel(spec, 'consumer group rebalances')
    // The README: every minute of the last two hours the group restabilises twice (a join, then the member's failure).
    expect(row.title.text).toBe('consumer group rebalances per 5 min')
    const values = lineLayer(row).data.values
    expect(new Set(values.map((v: Row) => v.value))).toEqual(new Set([10]))
    expect(values.length).toBe(24)
    expect(values.every((v: Row) => v.broker === 'b3')).toBe(true)
  })

  it.each([
    ['no events', [], 60_000],
    ['a burst within 48 minutes', [0, 48 * 60_000], 60_000],
    ['two hours', [0, 2 * 3_600_000], 5 * 60_000],
    ['a day', [0, 86_400_000], 3_600_000],
  ])('counts rebalances in buckets a reader takes in: %s', (_, times, size) => {
    expect(countBucketMs(times)).toBe(size)
  })

  it('counts events per aligned bucket, with the quiet buckets between them at 0', () => {
    expect(countBuckets([60_000, 61_000, 3 * 60_000 + 5], 60_000)).toEqual([
      { at: 60_000, value: 2 },
      { at: 120_000, value: 0 },
      { at: 180_000, value: 1 },
    ])
  })

  it('starts the stw band when that alert fired in lab-stw, after the stall began', async () => {
    const r = await digestOf(LAB_STW)
    const band = r.alertBands.find((b) => b.ruleId === 'stw_pause_session_expiry')!
    // The stall began at 20:07:34.308Z; the alert loop (15 s steps) fired once the session had expired.
    expect(band.from).toBeGreaterThan(Date.parse('2026-11-29T20:07:34.308Z'))
    expect(band.from).toBeLessThan(Date.parse('2026-11-29T20:08:00Z'))
    expect(band.brokers).toEqual(['1'])
  })

  it('says why a panel of seed-003 is empty, with no axes or lines over nothing', async () => {
    const spec = specOf(await digestOf(SEED_003))
    const empty = panel(spec, 'longest JVM pause')
    expect(empty.mark.type).toBe('text')
    expect(empty.data.values).toEqual([{ reason: 'no GC pause or safepoint samples: no GC log for these brokers' }])
    expect(empty.layer).toBeUndefined()
    expect(empty.encoding.x).not.toHaveProperty('field')
    expect(emptyPanelText({ title: 'x', dimension: 'count', series: [] })).toBe('no x samples in this window')
    // The panel that has data, the heap, still has its line.
    expect(lineLayer(panel(spec, 'heap after GC')).data.values.length).toBeGreaterThan(0)
  })

  it('titles the time axis with the date and the zone, and fits it to lab-stw (about 90 s) rather than 24 h', async () => {
    const r = await digestOf(LAB_STW)
    const x = (zone: string) => panel(specOf(r, zone), 'heap after GC').encoding.x
    // The recording is from 2026-11-29, 20:06:46 to 20:08:12 UTC; Berlin is UTC+1 in November.
    expect(x('UTC').axis.title).toBe('2026-11-29 20:06 → 20:08 UTC · zoomed to the data (window 24h)')
    expect(x('Europe/Berlin').axis.title).toBe('2026-11-29 21:06 → 21:08 Europe/Berlin · zoomed to the data (window 24h)')
    expect(x('UTC').axis.format).toBe('%H:%M:%S')
    const { domainMin: from, domainMax: to } = x('UTC').scale
    expect(to - from).toBeLessThan(3 * 60_000)
    expect([x('Europe/Berlin').scale.domainMin, x('Europe/Berlin').scale.domainMax]).toEqual([from + 3_600_000, to + 3_600_000])
  })

  it('keeps the full window, ticked in minutes, when the data covers it', () => {
    const panels: ChartPanel[] = [{ title: 'day', dimension: 'count', series: [{ name: 'b1', points: [{ at: DAY_START, value: 1 }, { at: DAY_END, value: 2 }] }] }]
    const axis = chartAxis(panels, { from: DAY_START, to: DAY_END, timeZone: 'UTC' })
    expect([axis.from, axis.to, axis.zoomed, axis.tickFormat]).toEqual([DAY_START, DAY_END, false, '%H:%M'])
    expect(axis.caption).toBe('2026-11-28 08:00 → 2026-11-29 08:00 UTC')
  })

  it.each([
    ['UTC', '2026-03-29T00:30:00Z', '2026-03-29T00:30:00Z'],
    ['Europe/Berlin before the spring change (CET)', '2026-03-29T00:30:00Z', '2026-03-29T01:30:00Z'],
    ['Europe/Berlin after the spring change (CEST)', '2026-03-29T01:30:00Z', '2026-03-29T03:30:00Z'],
    ['America/New_York (EST)', '2026-11-29T20:07:44.491Z', '2026-11-29T15:07:44.491Z'],
  ])('wall clock in %s', (label, at, wall) => {
    const zone = label.split(' ')[0]
    expect(new Date(wallClockMs(Date.parse(at), zone)).toISOString()).toBe(new Date(wall).toISOString())
  })

  it.each([
    ['duration', 0.5, 'µs'],
    ['duration', 908, 'ms'],
    ['duration', 9054, 'ms'],
    ['duration', 30_000, 's'],
    ['bytes', 512, 'B'],
    ['bytes', 30 * 1024 ** 2, 'MiB'],
    ['bytes', 7.3 * 1024 ** 3, 'GiB'],
    ['count', 3, ''],
  ] as const)('a %s panel peaking at %f is shown in %j', (dimension, max, unit) => {
    expect(displayUnit(dimension, max).unit).toBe(unit)
  })

  it('merges a rule firing on several brokers at once into one band, but not firings hours apart', () => {
    const alert = (broker: string, firedAt: number, resolvedAt?: number) => ({
      fingerprint: `r|${broker}|${firedAt}`,
      ruleId: 'r',
      cluster: 'prod',
      broker,
      labels: {},
      state: resolvedAt ? ('resolved' as const) : ('firing' as const),
      activeAt: firedAt,
      firedAt,
      resolvedAt,
      lastSeenAt: resolvedAt ?? DAY_END,
    })
    const h = 3_600_000
    const bands = firingBands(
      [alert('2', DAY_START + h, DAY_START + 2 * h), alert('1', DAY_START + h + 60_000, DAY_START + 2 * h), alert('1', DAY_START + 10 * h), alert('1', DAY_START - 5 * h, DAY_START - 4 * h)],
      { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END },
    )
    expect(bands.map((b) => [b.brokers, b.from - DAY_START, b.to - DAY_START])).toEqual([
      [['1', '2'], h, 2 * h],
      [['1'], 10 * h, DAY_END - DAY_START],
    ])
  })
})

describe('bot/digest/render-chart: SVG and PNG without system fonts', { timeout: 120_000 }, () => {
  it('writes the legend, the panel titles, the alert names and the time labels into the SVG', async () => {
    const svg = await renderChartSvg(specOf(await digestOf(LAB_STW)))
    const texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
    expect(texts).toEqual(expect.arrayContaining(['broker', 'b1', 'b2', 'b3', 'heap after GC (MiB)', 'stw_pause_session_expiry (b1)', 'Kafka digest · lab']))
    expect(texts).toContain('2026-11-29 20:06 → 20:08 UTC · zoomed to the data (window 24h)')
    // Tick labels in seconds on the ~90 s axis, in the zone's clock.
    expect(texts.filter((t) => /^20:0[78]:\d\d$/.test(t)).length).toBeGreaterThanOrEqual(3)
    expect(svg).toContain('font-family="DejaVu Sans')
  })

  it('escapes text from the data in the SVG', async () => {
    const spec = chartSpec([{ title: 'heap <b>&', dimension: 'bytes', series: [{ name: '<script>', points: [{ at: DAY_START, value: 1 }, { at: DAY_START + 60_000, value: 2 }] }] }], [], { from: DAY_START, to: DAY_END })
    const svg = await renderChartSvg(spec)
    expect(svg).not.toContain('<script>')
    expect(svg).toContain('&lt;script&gt;')
  })

  it('renders a PNG that decodes, with the size the header states and the broker colours drawn', async () => {
    const png = await renderChartPng(specOf(await digestOf(LAB_STW)))
    const header = readPngHeader(png)
    expect(header.chunks[0]).toBe('IHDR')
    expect(header.width).toBeGreaterThan(600)
    expect(header.height).toBeGreaterThan(400)
    const { width, height, rgba } = decodePngPixels(png)
    expect([width, height]).toEqual([header.width, header.height])
    // Not blank: each broker's line colour covers pixels, and there is dark text ink.
    for (const colour of SERIES_COLOURS.slice(0, 3)) expect(countColour(rgba, colour, 20), colour).toBeGreaterThan(200)
    expect(countColour(rgba, '#000000', 60)).toBeGreaterThan(500)
  })

  it('writes text with the bundled font (no system font is loaded), the same bytes every time', async () => {
    const spec = specOf(await digestOf(SEED_003))
    const [a, b] = [await renderChartPng(spec), await renderChartPng(spec)]
    expect(a.equals(b)).toBe(true)
    expect(countColour(decodePngPixels(a).rgba, '#666666', 30)).toBeGreaterThan(100)
  })
})

describe('bot/digest: charting stays at the edge', () => {
  /** Every .ts file under a folder, recursively. */
  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
  }

  it('runs vega, vega-lite and resvg only in bot/digest/render-chart.ts (others may import their types)', () => {
    const importers = ['engine', 'dsl', 'signals', 'adapters', 'bot', 'cli']
      .flatMap(sources)
      .filter((f) => /^import (?!type ).*from '(vega|vega-lite|@resvg\/resvg-js)'/m.test(readFileSync(f, 'utf8')))
      .sort()
    expect(importers).toEqual(['bot/digest/render-chart.ts'])
  })
})
