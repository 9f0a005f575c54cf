/**
 * Measures the heap a scrape of 100 000 series costs, in a process of its own started with
 * --expose-gc so the figures are not blurred by other tests: a streamed scrape through TargetScraper
 * (signals handed on in batches) against a baseline parse that holds the whole body, same run. Two
 * figures each: peak heap in use (garbage included, what the process really grows to) and live heap
 * after a full collection (what the code holds on to). `counters` as second argument scrapes
 * counters instead of gauges, so the remembered series between scrapes show too.
 * Prints one JSON line. Run: node --expose-gc --import tsx test/adapters/prometheus/scrape-memory-probe.ts [series] [gauges|counters]
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseExposition } from '../../../adapters/prometheus/exposition.js'
import { TargetScraper } from '../../../adapters/prometheus/scraper.js'

const SERIES = Number(process.argv[2] ?? 100_000)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')

// "gauges" (default): per-partition segment counts; "counters": per-topic conversion counts, whose
// previous values the converter must keep between scrapes.
const COUNTERS = process.argv[3] === 'counters'

function line(i: number): string {
  if (COUNTERS) return `kafka_server_brokertopicmetrics_fetchmessageconversionspersec_total{topic="topic-${i}",} ${i}.0\n`
  return `kafka_log_log_numlogsegments{topic="topic-${Math.floor(i / 100)}",partition="${i % 100}",} ${(i % 50) + 1}.0\n`
}

const server = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
  let i = 0
  const write = () => {
    while (i < SERIES) {
      let chunk = ''
      for (let k = 0; k < 500 && i < SERIES; k++) chunk += line(i++)
      if (!res.write(chunk)) return void res.once('drain', write)
    }
    res.end('# TYPE kafka_log_log_numlogsegments gauge\n')
  }
  res.write('# HELP kafka_log_log_numlogsegments Attribute exposed for management\n')
  write()
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`

async function peakDuring(work: () => Promise<unknown>): Promise<number> {
  gc!()
  const base = process.memoryUsage().heapUsed
  let peak = base
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed)
  }, 2)
  await work()
  peak = Math.max(peak, process.memoryUsage().heapUsed)
  clearInterval(timer)
  return peak - base
}

// Live heap: what is still reachable after a full collection, taken at every batch handed on.
let signals = 0
let bytes = 0
let liveBase = 0
let streamedLive = 0
const scraper = new TargetScraper(
  { url, cluster: 'c', broker: '1', timeoutMs: 60_000 },
  {
    sink: (b) => {
      signals += b.length
      gc!()
      streamedLive = Math.max(streamedLive, process.memoryUsage().heapUsed - liveBase)
    },
  },
)
gc()
liveBase = process.memoryUsage().heapUsed
const streamed = await peakDuring(async () => {
  const o = await scraper.scrapeOnce()
  if (!o.ok) throw new Error(o.error)
  bytes = o.bytes
})
// What stays between scrapes: the converter's remembered counter and fact series.
gc()
const retained = process.memoryUsage().heapUsed - liveBase

let held = 0
let wholeLive = 0
gc()
liveBase = process.memoryUsage().heapUsed
const whole = await peakDuring(async () => {
  const text = await (await fetch(url)).text()
  const parsed = parseExposition(text)
  held = parsed.samples.length
  gc!()
  wholeLive = process.memoryUsage().heapUsed - liveBase
})

server.close()
console.log(
  JSON.stringify({
    series: SERIES,
    bytes,
    signals,
    held,
    streamedPeakHeapBytes: streamed,
    wholeBodyPeakHeapBytes: whole,
    streamedLiveHeapBytes: streamedLive,
    wholeBodyLiveHeapBytes: wholeLive,
    rememberedSeries: scraper.converter.seriesCount,
    retainedBetweenScrapesBytes: retained,
  }),
)
