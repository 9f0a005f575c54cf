import { describe, expect, it } from 'vitest'
import { inflateSync } from 'node:zlib'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { buildDigest, leastSquaresSlope, percentile, underReplicatedMs } from '../../bot/digest/build-digest.js'
import { axisValueLabel, chartAxis, emptyPanelText, hasGlyphs, renderChart, SERIES_COLOURS, type ChartPanel } from '../../bot/digest/chart.js'
import { crc32, encodePng } from '../../bot/digest/png.js'
import { DAY_END, DAY_START, digestDiagnoses, digestSignals } from './support/digest-data.js'

const GiB = 1024 ** 3

/** Splits a PNG into chunks, checking each CRC, and returns IHDR fields and the inflated scanlines. */
function decodePng(png: Buffer): { width: number; height: number; colourType: number; raw: Buffer; types: string[] } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  let off = 8
  const types: string[] = []
  const idat: Buffer[] = []
  let width = 0
  let height = 0
  let colourType = -1
  while (off < png.length) {
    const len = png.readUInt32BE(off)
    const type = png.toString('ascii', off + 4, off + 8)
    const data = png.subarray(off + 8, off + 8 + len)
    expect(png.readUInt32BE(off + 8 + len), `${type} CRC`).toBe(crc32(png.subarray(off + 4, off + 8 + len)))
    types.push(type)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      colourType = data[9]
    }
    if (type === 'IDAT') idat.push(data)
    off += 12 + len
  }
  return { width, height, colourType, raw: inflateSync(Buffer.concat(idat)), types }
}

function pixel(raw: Buffer, width: number, x: number, y: number): number[] {
  const i = y * (width * 4 + 1) + 1 + x * 4
  return [...raw.subarray(i, i + 4)]
}

describe('bot/digest', () => {
  it.each([
    ['empty input', Buffer.alloc(0), 0],
    ['the PNG spec check value', Buffer.from('123456789'), 0xcbf43926],
  ])('crc32 of %s', (_, input, expected) => {
    expect(crc32(input)).toBe(expected)
  })

  it('encodes RGBA pixels that decode back to the same pixels', () => {
    const w = 7
    const h = 5
    const rgba = new Uint8Array(w * h * 4).map((_, i) => (i * 37) % 256)
    const png = decodePng(encodePng(w, h, rgba))
    expect(png.types).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect([png.width, png.height, png.colourType]).toEqual([w, h, 6])
    for (let y = 0; y < h; y++) {
      expect(png.raw[y * (w * 4 + 1)]).toBe(0)
      for (let x = 0; x < w; x++) expect(pixel(png.raw, w, x, y)).toEqual([...rgba.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)])
    }
  })

  it.each([
    [0, 1, 4],
    [2, 2, 15],
  ])('refuses a %ix%i image with %i bytes', (w, h, n) => {
    expect(() => encodePng(w, h, new Uint8Array(n))).toThrow(RangeError)
  })

  it('draws each broker series in its colour where the data is', () => {
    const from = 0
    const to = 1000
    const png = decodePng(renderChart([{ title: 'test', dimension: 'count', series: [{ name: 'b1', points: [{ at: 0, value: 10 }, { at: 1000, value: 10 }] }] }], { from, to, width: 200, panelHeight: 100 }))
    expect([png.width, png.height]).toEqual([200, 100])
    // A flat series at 10 with yMax 11 sits near the top of the plot: find its colour in the middle column.
    const column = Array.from({ length: 100 }, (_, y) => pixel(png.raw, 200, 130, y).slice(0, 3).join(','))
    expect(column).toContain(SERIES_COLOURS[0].join(','))
  })

  it('computes per-broker health, group churn, config smells and top diagnoses for the window', async () => {
    const store = new MemoryStore()
    await store.append(digestSignals())
    for (const d of digestDiagnoses()) await store.recordDiagnosis(d)
    const r = await buildDigest(store, { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
    expect(r.brokers.map((b) => b.broker)).toEqual(['1', '2'])
    const [b1, b2] = r.brokers
    expect(b1.underReplicatedMs).toBe(20 * 60_000)
    expect(b2.underReplicatedMs).toBe(0)
    expect([b1.isrShrinks, b2.isrShrinks]).toEqual([7, 0])
    expect(b1.gcPauseP99Ms).toBe(29)
    expect(b2.gcPauseP99Ms).toBe(15)
    expect([b1.longestSafepointMs, b2.longestSafepointMs]).toEqual([3302, 12])
    // 0.02 GiB per 15 minutes is 0.08 GiB per hour.
    expect(b1.heapAfterGcSlopePerHour! / GiB).toBeCloseTo(0.08, 6)
    expect(b2.heapAfterGcSlopePerHour).toBeCloseTo(0, 6)
    expect([b1.restarts, b2.restarts]).toEqual([1, 0])
    expect(r.groups).toEqual([
      { group: 'churny-connector', rebalances: 144, memberFailures: 72, brokers: ['1'] },
      { group: 'billing', rebalances: 1, memberFailures: 0, brokers: ['2'] },
    ])
    expect(r.smells.map((s) => [s.broker, s.topic, s.key, s.value])).toEqual([
      ['1', 'LoadTestingTopic', 'segment.ms', '100'],
      ['1', undefined, 'zookeeper.session.timeout.ms', '6000'],
      ['2', 'legacy', 'message.format.version', '0.10.2'],
    ])
    expect(r.topDiagnoses.map((d) => [d.ruleId, d.asked])).toEqual([
      ['stw_pause_session_expiry', 2],
      ['group_churn', 1],
    ])
    expect(r.chart.map((p) => p.series.map((s) => s.name))).toEqual([
      ['b1', 'b2'],
      ['b1', 'b2'],
      ['b1', 'b2'],
    ])
  })

  it('reports nothing for a cluster without signals, rather than zeros that look healthy', async () => {
    const r = await buildDigest(new MemoryStore(), { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
    expect(r.brokers).toEqual([])
    expect(r.signalsSeen).toBe(0)
  })

  it.each([
    ['a sample > 0 counts until the next sample', [[0, 1], [60_000, 0]], 60_000],
    ['a missed scrape counts at most 5 minutes', [[0, 3], [3_600_000, 0]], 300_000],
    ['the last sample counts up to the window end', [[0, 1]], 120_000],
    ['zero samples count nothing', [[0, 0], [60_000, 0]], 0],
  ])('under-replicated time: %s', (_, samples, expected) => {
    const signals = samples.map(([at, value]) => ({ name: 'partitions.under_replicated', at, value, cluster: 'c', broker: '1', source: 't' }))
    expect(underReplicatedMs(signals, 120_000)).toBe(expected)
  })

  it.each([
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.99, 10],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5, 5],
    [[42], 0.99, 42],
  ])('nearest-rank percentile of %j at %f is %f', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected)
  })

  it('fits a least-squares slope, and none from a single point', () => {
    expect(leastSquaresSlope([{ at: 0, value: 1 }, { at: 10, value: 21 }, { at: 20, value: 41 }])).toBeCloseTo(2)
    expect(leastSquaresSlope([{ at: 5, value: 1 }])).toBeUndefined()
  })
})

describe('bot/digest/build-digest over a recorded incident', () => {
  it('counts the alerts that fired in its window, most severe first, whether or not anyone asked why', async () => {
    const { loadIncident, loadRuleSet, replayIncidentAlerts } = await import('../../bot/engine-bridge.js')
    const store = new MemoryStore()
    const loaded = await loadIncident(store, 'test/incidents/seed-000-stw-session-expiry')
    const { rules } = await loadRuleSet(['rules'])
    const now = loaded.lastAt! + 1000
    await replayIncidentAlerts(store, rules, loaded.times, now)
    const severity = new Map(rules.map((r) => [r.name ?? r.id, r.severity as string]))
    const r = await buildDigest(store, { cluster: 'perf-lab', from: now - 86_400_000, to: now, now, severityOf: (id) => severity.get(id) })
    expect(r.topDiagnoses[0]).toMatchObject({ ruleId: 'stw_pause_session_expiry', severity: 'critical', fired: 1, asked: 0, brokers: ['1'] })
    expect(r.topDiagnoses.every((d) => d.fired > 0)).toBe(true)
  })

  it('tells a 40-second under-replication as 40s with its peak, not "0 min"', async () => {
    const store = new MemoryStore()
    const at = DAY_START + 3_600_000
    await store.append([
      { name: 'partitions.under_replicated', at, cluster: 'prod', broker: '1', value: 3, source: 'prometheus:b1' },
      { name: 'partitions.under_replicated', at: at + 40_000, cluster: 'prod', broker: '1', value: 0, source: 'prometheus:b1' },
    ])
    const r = await buildDigest(store, { cluster: 'prod', from: DAY_START, to: DAY_END, now: DAY_END })
    expect(r.brokers[0]).toMatchObject({ underReplicatedMs: 40_000, underReplicatedMax: 3 })
  })
})

describe('bot/digest/chart: the axis fits the data and says when and where', () => {
  const WIDTH = 800
  const PANEL = 180
  const LEFT = 70
  const PLOT_W = WIDTH - LEFT - 16
  const PLOT_BOTTOM = PANEL - 34

  /** A recorded incident's digest over the 24 h before its last signal. */
  async function incidentDigest(dir: string) {
    const { loadIncident } = await import('../../bot/engine-bridge.js')
    const store = new MemoryStore()
    const loaded = await loadIncident(store, dir)
    const cluster = (await store.brokers())[0].cluster
    const now = loaded.lastAt! + 1000
    return buildDigest(store, { cluster, from: now - 86_400_000, to: now, now })
  }

  /** Columns of the plot area in which some broker colour is drawn, over every panel. */
  function seriesColumns(png: ReturnType<typeof decodePng>): number[] {
    const colours = new Set(SERIES_COLOURS.map((c) => c.join(',')))
    const cols: number[] = []
    for (let x = LEFT + 1; x < LEFT + PLOT_W; x++) {
      for (let y = 0; y < png.height; y++) {
        if (y % PANEL < 26) continue // legend swatches share the colours
        if (colours.has(pixel(png.raw, png.width, x, y).slice(0, 3).join(','))) {
          cols.push(x)
          break
        }
      }
    }
    return cols
  }

  it('zooms a minutes-long incident to most of the x axis instead of a dot at the edge of 24 h', async () => {
    const r = await incidentDigest('test/incidents/lab-stw')
    const axis = chartAxis(r.chart, { from: r.from, to: r.to, timeZone: 'UTC' })
    expect(axis.zoomed).toBe(true)
    expect(axis.to - axis.from).toBeLessThan(3_600_000)
    const png = decodePng(renderChart(r.chart, { from: r.from, to: r.to, timeZone: 'UTC' }))
    const cols = seriesColumns(png)
    // The data spans the axis but for the margins (5% each side, at least 10 s).
    expect((cols[cols.length - 1] - cols[0]) / PLOT_W).toBeGreaterThan(0.8)
    expect(cols[0] - LEFT).toBeLessThan(PLOT_W * 0.2)
  })

  it('keeps the full window when the data covers it', () => {
    const panels: ChartPanel[] = [{ title: 'day', dimension: 'count', series: [{ name: 'b1', points: [{ at: DAY_START, value: 1 }, { at: DAY_END, value: 2 }] }] }]
    const axis = chartAxis(panels, { from: DAY_START, to: DAY_END, timeZone: 'UTC' })
    expect([axis.from, axis.to, axis.zoomed]).toEqual([DAY_START, DAY_END, false])
    expect(axis.ticks.map((t) => t.label)).toEqual(['08:00', '14:00', '20:00', '02:00', '08:00'])
    expect(axis.caption).toBe('2026-11-28 08:00 → 2026-11-29 08:00 UTC')
  })

  it('names the date and the configured zone under the axis, and draws it', async () => {
    const r = await incidentDigest('test/incidents/seed-000-stw-session-expiry')
    const utc = chartAxis(r.chart, { from: r.from, to: r.to, timeZone: 'UTC' })
    const berlin = chartAxis(r.chart, { from: r.from, to: r.to, timeZone: 'Europe/Berlin' })
    // The recorded incident is from 14 August 2018, 02:14-02:16 UTC (CEST is UTC+2).
    expect(utc.caption).toMatch(/^2018-08-14 02:1\d → 02:1\d UTC · zoomed to the data \(window 24h\)$/)
    expect(berlin.caption).toMatch(/^2018-08-14 04:1\d → 04:1\d Europe\/Berlin · /)
    expect(utc.ticks.every((t) => /^02:1\d:\d\d$/.test(t.label))).toBe(true)
    expect(hasGlyphs(utc.caption) && hasGlyphs(berlin.caption)).toBe(true)
    // The caption row of the pause panel (the one with data) carries ink, and differs with the zone.
    const captionRow = (zone: string) => {
      const png = decodePng(renderChart(r.chart, { from: r.from, to: r.to, timeZone: zone }))
      const rows: string[] = []
      for (let y = PANEL + PLOT_BOTTOM + 20; y < PANEL + PLOT_BOTTOM + 30; y++) for (let x = 0; x < WIDTH; x++) rows.push(pixel(png.raw, WIDTH, x, y).slice(0, 3).join(','))
      return rows
    }
    const a = captionRow('UTC')
    expect(a.filter((p) => p === '120,120,120').length).toBeGreaterThan(200)
    expect(captionRow('Europe/Berlin')).not.toEqual(a)
  })

  it('says why an empty panel is empty instead of drawing NO DATA over invented axes', async () => {
    const r = await incidentDigest('test/incidents/seed-000-stw-session-expiry')
    const heap = r.chart.find((p) => p.title === 'heap after GC')!
    expect(heap.series.every((s) => s.points.length === 0)).toBe(true)
    expect(emptyPanelText(heap)).toBe('no heap after GC samples: no GC log or JMX for these brokers')
    expect(emptyPanelText({ title: 'x', dimension: 'count', series: [] })).toBe('no x samples in this window')
    const png = decodePng(renderChart(r.chart, { from: r.from, to: r.to, timeZone: 'UTC' }))
    const inkIn = (x0: number, x1: number, y0: number, y1: number, colour: string) => {
      let n = 0
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (pixel(png.raw, WIDTH, x, y).slice(0, 3).join(',') === colour) n++
      return n
    }
    // The reason is written in the middle of the heap panel; no y labels, ticks or caption are drawn.
    expect(inkIn(LEFT, WIDTH, 26 + 55, 26 + 70, '120,120,120')).toBeGreaterThan(100)
    expect(inkIn(0, LEFT, 26, PLOT_BOTTOM + 4, '40,40,40')).toBe(0)
    expect(inkIn(0, WIDTH, PLOT_BOTTOM + 4, PANEL, '40,40,40') + inkIn(0, WIDTH, PLOT_BOTTOM + 4, PANEL, '120,120,120')).toBe(0)
    // The pause panel below has data, so its axis labels are there.
    expect(inkIn(0, LEFT, PANEL + 26, PANEL + PLOT_BOTTOM, '40,40,40')).toBeGreaterThan(0)
  })

  it('keeps units in their case and draws every label the digest uses with real glyphs', async () => {
    expect(axisValueLabel(0.5, 'duration')).toBe('500µs')
    expect(axisValueLabel(908, 'duration')).toBe('908ms')
    expect(axisValueLabel(3 * 1024 ** 3, 'bytes')).toBe('3GiB')
    const r = await incidentDigest('test/incidents/lab-stw')
    const labels = r.chart.flatMap((p) => [p.title, emptyPanelText(p), ...p.series.map((s) => s.name), ...[1, 2, 3, 4].map((g) => axisValueLabel(g * 1234.5, p.dimension))])
    expect(labels.filter((l) => !hasGlyphs(l))).toEqual([])
    // Lower and upper case draw differently: 908ms is not 908MS.
    const draw = (title: string) => decodePng(renderChart([{ title, dimension: 'count', series: [] }], { from: 0, to: 1, width: 200, panelHeight: 60 })).raw
    expect(draw('908ms').equals(draw('908MS'))).toBe(false)
  })
})
