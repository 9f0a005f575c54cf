import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { ScrapeLoop, TargetScraper, type ScrapeOutcome } from '../../../adapters/prometheus/scraper.js'
import type { Signal } from '../../../signals/signal.js'
import { freePort, startJvm, type ExporterVersion, type RunningJvm } from './jmx-jvm.js'

const run = promisify(execFile)
const started: RunningJvm[] = []
afterAll(async () => {
  await Promise.all(started.map((j) => j.stop()))
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function collector() {
  const got: Signal[] = []
  return { got, sink: (b: Signal[]) => void got.push(...b) }
}

describe('adapters/prometheus/scraper', () => {
  it.each<[ExporterVersion, string]>([
    ['0.20.0', 'default-format.yml'],
    ['1.0.1', 'kafka-lowercase-naming.yml'],
  ])('scrapes the real JMX exporter %s (%s): rates, a stale target, then a restart', { timeout: 120_000 }, async (version, config) => {
    const port = await freePort()
    let jvm = await startJvm(version, config, port)
    started.push(jvm)
    const { got, sink } = collector()
    const scraper = new TargetScraper({ url: jvm.url, cluster: 'lab', broker: '1', intervalMs: 1000, timeoutMs: 5000 }, { sink })

    const first = await scraper.scrapeOnce()
    expect(first).toMatchObject({ ok: true, parse: { badLines: 0 } })
    expect(got.find((s) => s.name === 'partitions.under_replicated')?.value).toBe(3)
    await sleep(2100)
    got.length = 0
    expect((await scraper.scrapeOnce()).ok).toBe(true)
    // fixtures/KafkaMBeans.java counts 10 events a second on each meter
    const rate = got.find((s) => s.name === 'isr.shrink_rate')!
    expect(rate.value).toBeGreaterThan(3)
    expect(rate.value).toBeLessThan(20)
    expect(got.find((s) => s.name === 'fetch.down_conversion')).toMatchObject({ labels: { topic: 'orders' } })
    expect(got.some((s) => s.name === 'gc.count')).toBe(true)

    await jvm.stop()
    got.length = 0
    const down = await scraper.scrapeOnce()
    expect(down.ok).toBe(false)
    expect(down.error).toMatch(/ECONNREFUSED/)
    expect(got).toMatchObject([
      { name: 'scrape.unanswered', cluster: 'lab', broker: '1', labels: { target: jvm.url, reason: 'refused' } },
      { name: 'source.stale', cluster: 'lab', broker: '1', labels: { target: jvm.url } },
    ])
    expect((await scraper.scrapeOnce()).ok).toBe(false)
    expect(got.filter((s) => s.name === 'source.stale')).toHaveLength(1)
    // Every failed attempt is evidence, each saying how long the target has been silent.
    const silent = got.filter((s) => s.name === 'scrape.unanswered').map((s) => s.value!)
    expect(silent).toHaveLength(2)
    expect(silent[1]).toBeGreaterThanOrEqual(silent[0])
    expect(scraper.nextDelayMs()).toBe(4000)

    jvm = await startJvm(version, config, port)
    started.push(jvm)
    got.length = 0
    const back = await scraper.scrapeOnce()
    expect(back).toMatchObject({ ok: true, recovered: true })
    expect(scraper.nextDelayMs()).toBe(1000)
    expect(got.filter((s) => s.name === 'process.restart')).toHaveLength(1)
    expect(got.filter((s) => s.value !== undefined && s.value < 0)).toEqual([])
    if (version === '1.0.1') {
      // 1.x sorts families, so the restarted meters (kafka_…) come before process_start_time_seconds: a counter reset.
      expect(back.convert!.counterResets).toBeGreaterThan(0)
    }
    await jvm.stop()
  })

  it('a slow target that answers within its timeout is no evidence of anything', async () => {
    const server = http.createServer((_, res) => {
      setTimeout(() => res.end('process_open_fds 12\n'), 250)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
    const { got, sink } = collector()
    const scraper = new TargetScraper({ url, cluster: 'c', broker: '2', timeoutMs: 2_000 }, { sink })
    for (let i = 0; i < 3; i++) expect((await scraper.scrapeOnce()).ok).toBe(true)
    server.close()
    expect(got.map((s) => s.name)).toEqual(['fd.open', 'fd.open', 'fd.open'])
  })

  it('cuts a slow target off at its timeout and reports it stale', async () => {
    const server = http.createServer((_, res) => {
      res.writeHead(200)
      res.write('process_open_fds 12\n')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
    const { got, sink } = collector()
    const scraper = new TargetScraper({ url, cluster: 'c', broker: '2', timeoutMs: 300 }, { sink })
    const t0 = performance.now()
    const o = await scraper.scrapeOnce()
    const took = performance.now() - t0
    server.closeAllConnections()
    server.close()
    expect(o).toMatchObject({ ok: false, error: 'timeout after 300ms' })
    expect(took).toBeGreaterThanOrEqual(290)
    expect(took).toBeLessThan(2000)
    // what arrived before the cut-off is kept, and the target is marked stale
    expect(got.map((s) => s.name)).toEqual(['fd.open', 'scrape.unanswered', 'source.stale'])
    // Connected, and nothing came back in time: what a frozen JVM's exporter does.
    expect(got[1]).toMatchObject({ broker: '2', labels: { reason: 'timeout' } })
    expect(got[1].value).toBeGreaterThanOrEqual(290)
    // It took the connection: no backoff, the next attempt keeps the interval and records the silence.
    expect(scraper.nextDelayMs()).toBe(15_000)
  })

  it.each([
    [500, 'HTTP 500'],
    [404, 'HTTP 404'],
  ])('treats an HTTP %i as a failed scrape', async (status, error) => {
    const server = http.createServer((_, res) => res.writeHead(status).end('nope'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
    const scraper = new TargetScraper({ url, cluster: 'c' }, { sink: () => {} })
    const o = await scraper.scrapeOnce()
    server.close()
    expect(o).toMatchObject({ ok: false, error })
  })

  it('backs off a down target in a loop: one stale signal, few attempts, a clean stop', async () => {
    const url = `http://127.0.0.1:${await freePort()}/metrics`
    const { got, sink } = collector()
    const outcomes: ScrapeOutcome[] = []
    const loop = new ScrapeLoop([{ url, cluster: 'c', broker: '3', intervalMs: 50, timeoutMs: 200 }], { sink, maxBackoffMs: 400 }, (o) => outcomes.push(o))
    loop.start()
    await sleep(1500)
    await loop.stop()
    // without backoff 1.5 s at 50 ms is 30 attempts; with it: 0, 100, 300, 700, 1100 ms
    expect(outcomes.length).toBeGreaterThanOrEqual(4)
    expect(outcomes.length).toBeLessThanOrEqual(6)
    expect(outcomes.every((o) => !o.ok)).toBe(true)
    expect(got.filter((s) => s.name === 'source.stale')).toHaveLength(1)
    const n = outcomes.length
    await sleep(300)
    expect(outcomes.length).toBe(n)
  })

  it('scrapes 100 000 series in bounded memory', { timeout: 60_000 }, async () => {
    const probe = path.join(path.dirname(new URL(import.meta.url).pathname), 'scrape-memory-probe.ts')
    const measure = async (series: number, kind = 'gauges') => {
      const { stdout } = await run('node', ['--expose-gc', '--import', 'tsx', probe, String(series), kind], { timeout: 60_000 })
      return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, number>
    }
    const m100 = await measure(100_000)
    const m200 = await measure(200_000)
    console.log('scrape memory', JSON.stringify({ m100, m200 }))
    expect(m100.signals).toBe(100_000)
    expect(m200.signals).toBe(200_000)
    // what the scrape holds on to is a batch, whatever the size of the scrape…
    expect(m100.streamedLiveHeapBytes).toBeLessThan(8 * 1024 * 1024)
    expect(m200.streamedLiveHeapBytes).toBeLessThan(m100.streamedLiveHeapBytes * 1.5 + 1024 * 1024)
    // …while holding the body grows with it
    expect(m200.wholeBodyLiveHeapBytes).toBeGreaterThan(m100.wholeBodyLiveHeapBytes * 1.6)
    expect(m200.streamedLiveHeapBytes).toBeLessThan(m200.wholeBodyLiveHeapBytes / 10)
    expect(m100.streamedPeakHeapBytes).toBeLessThan(48 * 1024 * 1024)
    // counters are remembered between scrapes for their rates: bounded per series, and by maxSeries
    const counters = await measure(100_000, 'counters')
    console.log('scrape memory, counters', JSON.stringify(counters))
    expect(counters.rememberedSeries).toBe(100_000)
    expect(counters.retainedBetweenScrapesBytes / 100_000).toBeLessThan(400)
  })
})
