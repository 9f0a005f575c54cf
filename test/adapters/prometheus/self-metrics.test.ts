import { describe, expect, it } from 'vitest'
import { parseExposition } from '../../../adapters/prometheus/exposition.js'
import { MetricsRegistry } from '../../../adapters/prometheus/self-metrics.js'

describe('adapters/prometheus/self-metrics', () => {
  it('renders what the exposition parser reads back exactly, awkward label values included', () => {
    const m = new MetricsRegistry()
    const inc = m.counter('kafka_why_signals_total', 'Signals accepted, by source.')
    const up = m.gauge('kafka_why_source_up', 'Source up.')
    const h = m.histogram('kafka_why_rule_evaluation_seconds', 'Tick time.', [0.1, 0.5, 1])
    inc({ source: 'prometheus' }, 5)
    inc({ source: 'prometheus' })
    inc({ source: 'a "quoted"\\path\nnext' }, 2)
    up({ kind: 'scrape', target: 'http://x:7071/metrics' }, 0)
    for (const v of [0.05, 0.3, 0.7, 3]) h({}, v)

    const { samples, stats, types } = parseExposition(m.render())
    expect(stats.badLines).toBe(0)
    expect(types.get('kafka_why_rule_evaluation_seconds')).toBe('histogram')
    const get = (name: string, labels: Record<string, string> = {}) => samples.find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels))?.value
    expect(get('kafka_why_signals_total', { source: 'prometheus' })).toBe(6)
    expect(get('kafka_why_signals_total', { source: 'a "quoted"\\path\nnext' })).toBe(2)
    expect(get('kafka_why_source_up', { kind: 'scrape', target: 'http://x:7071/metrics' })).toBe(0)
    expect([0.1, 0.5, 1].map((le) => get('kafka_why_rule_evaluation_seconds_bucket', { le: String(le) }))).toEqual([1, 2, 3])
    expect(get('kafka_why_rule_evaluation_seconds_bucket', { le: '+Inf' })).toBe(4)
    expect(get('kafka_why_rule_evaluation_seconds_sum')).toBeCloseTo(4.05)
    expect(get('kafka_why_rule_evaluation_seconds_count')).toBe(4)
  })

  it('shows a declared counter at zero before its first increment', () => {
    const m = new MetricsRegistry()
    m.counter('kafka_why_alerts_total', 'Alerts.')
    expect(m.render()).toBe('# HELP kafka_why_alerts_total Alerts.\n# TYPE kafka_why_alerts_total counter\nkafka_why_alerts_total 0\n')
  })
})
