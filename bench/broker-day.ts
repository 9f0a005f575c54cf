/**
 * One broker-day of signals at the rates they were recorded at, for the benches that need a real
 * feed (retention, the alert loop): times are offsets into the day, so a bench moves them to any day
 * and broker.
 * - exporter scrapes every 15 s: a real JMX-exporter capture of a Kafka 3.9 broker
 *   (test/adapters/prometheus/fixtures), converted scrape by scrape with counters advancing;
 * - server.log and gc.log of a whole day (test/incidents/healthy-day, Kafka 2.0 / JDK 8);
 * - JDK 17 -Xlog:safepoint lines at the rate the lab broker wrote them (test/incidents/lab-stw).
 */
import { readFile } from 'node:fs/promises'
import { parseLogText } from '../adapters/logs/parser.js'
import { parseExposition, type Sample } from '../adapters/prometheus/exposition.js'
import { SampleConverter } from '../adapters/prometheus/to-signals.js'
import { capEvidenceText } from '../engine/ingest.js'
import type { Signal } from '../signals/signal.js'

export const DAY = 86_400_000
export const SCRAPE_MS = 15_000
const EXPORTER = 'test/adapters/prometheus/fixtures/kafka-3.9.1-zk-jmx-1.0.1-kafka-lowercase-naming.prom'
const HEALTHY_DAY = 'test/incidents/healthy-day/broker-2'
const JDK17_GC = 'test/incidents/lab-stw/broker-1/gc.log'

/** A signal of the template day: no broker or cluster yet, its time an offset into the day. */
export type DaySignal = Omit<Signal, 'at' | 'broker' | 'cluster'> & { offsetMs: number }
/** The day's signals in offset order, and how many came from each source. */
export type BrokerDay = { signals: DaySignal[]; bySource: Record<string, number> }

/**
 * Scrapes of a whole day: the capture's samples, counters advancing between scrapes. Only the samples
 * that yielded a signal in the first three scrapes are converted after those (the rest of the
 * exporter's ~7,000 series map to nothing), which gives the same signals in a fraction of the time.
 */
function scrapeDay(all: Sample[]): DaySignal[] {
  const out: DaySignal[] = []
  const converter = new SampleConverter({ cluster: 'bench', broker: '1', source: 'prom:http://kafka-1:7071/metrics' })
  const t0 = 1_700_000_000_000
  let samples = all
  const used = new Set<Sample>()
  for (let k = 0; k < DAY / SCRAPE_MS; k++) {
    if (k === 3) samples = all.filter((s) => used.has(s))
    converter.begin(t0 + k * SCRAPE_MS)
    for (const s of samples) {
      const advancing = /_total$|_count$|_sum$/.test(s.name) ? { ...s, value: s.value + k * (1 + (s.value % 97)) } : s
      for (const sig of converter.convert(advancing)) {
        if (k < 3) used.add(s)
        out.push(toDaySignal(sig, t0))
      }
    }
    converter.end()
  }
  return out
}

function toDaySignal(s: Signal, dayStart: number): DaySignal {
  const { at, broker: _b, cluster: _c, ...rest } = capEvidenceText(s)
  return { ...rest, offsetMs: (((at - dayStart) % DAY) + DAY) % DAY }
}

/** A day of JDK 17 safepoint lines at the recording's own rate, times moved to cover 24 hours. */
function safepointDay(gcLog: string): DaySignal[] {
  const lines = gcLog.split('\n').filter((l) => l.includes('[safepoint') && l.includes('Reaching safepoint'))
  const times = lines.map((l) => Date.parse(/^\[([^\]]+)\]/.exec(l)![1].replace(/([+-]\d{2})(\d{2})$/, '$1:$2')))
  const spanMs = times[times.length - 1] - times[0]
  const perDay = Math.round((lines.length / spanMs) * DAY)
  const dayStart = Date.UTC(2026, 10, 29)
  const day: string[] = []
  for (let i = 0; i < perDay; i++) {
    const at = new Date(dayStart + Math.floor((i * DAY) / perDay)).toISOString().replace('Z', '+0000')
    day.push(lines[i % lines.length].replace(/^\[[^\]]+\]\[[^\]]+\]/, `[${at}][${((i * DAY) / perDay / 1000).toFixed(3)}s]`))
  }
  return parseLogText(day.join('\n'), { path: '/var/log/kafka/gc.log', cluster: 'bench', broker: '1' }).signals.map((s) => toDaySignal(s, dayStart))
}

/** Builds the broker-day from the recordings (a few seconds: a day of scrapes is converted). */
export async function buildBrokerDay(): Promise<BrokerDay> {
  const { samples } = parseExposition(await readFile(EXPORTER, 'utf8'))
  const scrapes = scrapeDay(samples)
  const logs: DaySignal[] = []
  for (const file of ['server.log', 'gc.log']) {
    const parsed = parseLogText(await readFile(`${HEALTHY_DAY}/${file}`, 'utf8'), { path: `/var/log/kafka/${file}`, cluster: 'bench', broker: '1' })
    const first = parsed.signals.reduce((m, s) => Math.min(m, s.at), Infinity)
    const dayStart = first - (first % DAY)
    for (const s of parsed.signals) logs.push(toDaySignal(s, dayStart))
  }
  const safepoints = safepointDay(await readFile(JDK17_GC, 'utf8'))
  return {
    signals: [...scrapes, ...logs, ...safepoints].sort((x, y) => x.offsetMs - y.offsetMs),
    bySource: { 'exporter scrapes (15 s)': scrapes.length, 'server.log + gc.log (healthy day)': logs.length, 'JDK 17 safepoint lines': safepoints.length },
  }
}

