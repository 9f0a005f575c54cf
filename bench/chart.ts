/**
 * Digest chart rendering: the time to turn a 3-broker, 24 h digest into its Vega-Lite spec, the SVG
 * (vega) and the PNG (resvg with the bundled font), beside a baseline measured in this run on this
 * machine: JSON.stringify of the same spec (the cost of merely serialising what is drawn).
 * Run: npm run bench -- chart [rounds]
 *
 * The digest is built by the digest job itself (buildDigest over a MemoryStore) from a day of signals
 * at the rates a broker reports them: heap after GC and a GC pause every 30 s, an under-replicated
 * partitions scrape every 15 s, with one 9-minute incident (a pause spike and under-replication) and
 * two alerts firing over it.
 */
import { availableParallelism, loadavg } from 'node:os'
import { buildDigest } from '../bot/digest/build-digest.js'
import { chartSpec } from '../bot/digest/chart.js'
import { renderChartSvg, svgToPng } from '../bot/digest/render-chart.js'
import { MemoryStore } from '../engine/store/memory-store.js'
import type { Signal } from '../signals/signal.js'

const ROUNDS = Number(process.argv[2] ?? 30)
const WARMUP = 3
const DAY = 86_400_000
const BROKERS = ['1', '2', '3']
const FROM = Date.UTC(2026, 10, 28, 9)
const TO = FROM + DAY
const INCIDENT_FROM = FROM + 14 * 3_600_000
const INCIDENT_TO = INCIDENT_FROM + 9 * 60_000
const MiB = 1024 * 1024

/** A day of one broker's signals: a heap sawtooth with a slow climb, small pauses, and the incident. */
function brokerDay(broker: string, index: number): Signal[] {
  const out: Signal[] = []
  const base = { cluster: 'bench', broker, source: `bench:b${broker}` }
  for (let at = FROM, i = 0; at < TO; at += 30_000, i++) {
    const during = at >= INCIDENT_FROM && at <= INCIDENT_TO
    out.push({ ...base, name: 'heap.after_gc', at, value: (600 + index * 40 + (i % 40) * 3 + i / 200) * MiB })
    out.push({ ...base, name: 'gc.pause', at: at + 7, value: during && broker === '1' ? 4000 + (i % 7) * 500 : 8 + ((i * 7 + index) % 23) })
  }
  for (let at = FROM; at < TO; at += 15_000) {
    const during = at >= INCIDENT_FROM && at <= INCIDENT_TO
    out.push({ ...base, name: 'partitions.under_replicated', at, value: during && broker !== '1' ? 6 : 0 })
  }
  return out
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

const store = new MemoryStore()
await store.append(BROKERS.flatMap(brokerDay))
const report = await buildDigest(store, { cluster: 'bench', from: FROM, to: TO, now: TO })
const bands = [
  { ruleId: 'stw_pause_session_expiry', severity: 'critical', brokers: ['1'], from: INCIDENT_FROM + 60_000, to: INCIDENT_TO },
  { ruleId: 'under_replicated_partitions', severity: 'warning', brokers: ['2', '3'], from: INCIDENT_FROM + 30_000, to: INCIDENT_TO + 120_000 },
]
const opts = { from: report.from, to: report.to, timeZone: 'Europe/Berlin', cluster: 'bench' }
const points = report.chart.reduce((n, p) => n + p.series.reduce((m, s) => m + s.points.length, 0), 0)

const times = { baseline: [] as number[], spec: [] as number[], svg: [] as number[], png: [] as number[], total: [] as number[] }
let pngBytes = 0
for (let r = 0; r < WARMUP + ROUNDS; r++) {
  const t0 = performance.now()
  const spec = chartSpec(report.chart, bands, opts)
  const t1 = performance.now()
  const svg = await renderChartSvg(spec)
  const t2 = performance.now()
  const png = await svgToPng(svg)
  const t3 = performance.now()
  let json = ''
  const b0 = performance.now()
  json = JSON.stringify(spec)
  const b1 = performance.now()
  if (r < WARMUP || !json) continue
  pngBytes = png.length
  times.spec.push(t1 - t0)
  times.svg.push(t2 - t1)
  times.png.push(t3 - t2)
  times.total.push(t3 - t0)
  times.baseline.push(b1 - b0)
}

const base = median(times.baseline)
console.log(`digest chart: ${BROKERS.length} brokers, 24 h, ${report.chart.length} panels, ${points} points, ${bands.length} alert bands; ${ROUNDS} rounds after ${WARMUP} warm-up, medians`)
console.log(`  baseline JSON.stringify(spec)   ${base.toFixed(2)} ms`)
for (const [name, label] of [['spec', 'Vega-Lite spec from the digest'], ['svg', 'compile + vega SVG'], ['png', 'resvg PNG (bundled font)'], ['total', 'spec → SVG → PNG']] as const) {
  const ms = median(times[name])
  console.log(`  ${label.padEnd(31)} ${ms.toFixed(2)} ms  (${(ms / base).toFixed(0)}× the baseline)`)
}
console.log(`  PNG: ${pngBytes} bytes; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`)
