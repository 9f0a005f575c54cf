import { describe, expect, it } from 'vitest'
import { LiveConfigError, parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService } from '../../adapters/live/live-service.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import type { AlertRecord } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'

// serve keeps the store bounded on its own: a sweep trims signals by age (per signal where
// configured), drops brokers quiet for the whole retention and deletes alerts resolved longer ago
// than their grace period. The service runs for real with its clock set to a fixed time.

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0)
const HOUR = 3_600_000
const DAY = 24 * HOUR
const sig = (name: string, at: number, broker: string, value?: number): Signal => ({ name, at, cluster: 'prod', broker, source: `test:${name}:${at}`, ...(value === undefined ? {} : { value }) })
const alert = (fingerprint: string, over: Partial<AlertRecord>): AlertRecord => ({
  fingerprint,
  ruleId: 'r',
  cluster: 'prod',
  broker: '1',
  labels: {},
  state: 'resolved',
  activeAt: NOW - 10 * DAY,
  lastSeenAt: NOW - 10 * DAY,
  ...over,
})

describe('serve retention', () => {
  it('reads retention from the config with a 7-day default and refuses unknown signals and bad ages', () => {
    const base = parseLiveConfig('live: {}\n', 'k.yaml')
    expect(base.retention).toEqual({ defaultMs: 7 * DAY, signalsMs: {}, resolvedAlertsMs: DAY, everyMs: 600_000 })
    const set = parseLiveConfig('live:\n  retention: { default: 3d, resolved_alerts: 2h, every: 1m, signals: { heap.used: 36h } }\n', 'k.yaml')
    expect(set.retention).toEqual({ defaultMs: 3 * DAY, signalsMs: { 'heap.used': 36 * HOUR }, resolvedAlertsMs: 2 * HOUR, everyMs: 60_000 })
    let problems: string[] = []
    try {
      parseLiveConfig('live:\n  retention: { default: forever, signals: { heap.usd: 1d }, keep: 1 }\n', 'k.yaml')
    } catch (err) {
      if (err instanceof LiveConfigError) problems = err.problems
    }
    expect(problems).toEqual([
      "k.yaml:2:25: live.retention.default: 'forever' is not a duration (e.g. 15s, 500ms, 1m)",
      "k.yaml:2:45: live.retention.signals.heap.usd: unknown signal 'heap.usd'",
      'k.yaml:2:61: live.retention.keep: unknown key (known: default, signals, resolved_alerts, every)',
    ])
  })

  it('sweeps old signals, quiet brokers and long-resolved alerts while it runs', async () => {
    const store = new MemoryStore()
    await store.append([
      sig('isr.shrink', NOW - 8 * DAY, '1'),
      sig('isr.shrink', NOW - HOUR, '1'),
      sig('heap.used', NOW - 2 * DAY, '1', 1e9),
      sig('heap.used', NOW - HOUR, '1', 1e9),
      sig('isr.shrink', NOW - 9 * DAY, '2'),
      sig('broker.version', NOW - 9 * DAY, '2', 3_007_000),
    ])
    await store.transitionAlert(undefined, alert('long-ago', { resolvedAt: NOW - 2 * DAY }))
    await store.transitionAlert(undefined, alert('just-now', { resolvedAt: NOW - HOUR }))
    await store.transitionAlert(undefined, alert('open', { state: 'firing', firedAt: NOW - 9 * DAY }))
    const config = parseLiveConfig('live:\n  listen: 127.0.0.1:0\n  engine: { enabled: false }\n  retention: { every: 50ms, signals: { heap.used: 1d } }\n', 'k.yaml')
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined }
    const service = await startLiveService({ config, store, now: () => NOW, bot: false, log: quiet })
    try {
      for (let i = 0; i < 100 && (await store.brokers()).length > 1; i++) await new Promise((r) => setTimeout(r, 20))
      const left = await store.query({ cluster: 'prod', broker: '1', from: 0, to: NOW })
      expect(left.map((s) => `${s.name}@${(NOW - s.at) / HOUR}h`)).toEqual(['heap.used@1h', 'isr.shrink@1h'])
      expect(await store.brokers()).toEqual([{ cluster: 'prod', broker: '1' }])
      expect(await store.facts('prod', '2')).toEqual([])
      expect((await store.listAlerts()).map((a) => a.fingerprint)).toEqual(['just-now', 'open'])
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      expect(metrics).toContain('kafka_why_retention_removed_total{kind="signal"} 3')
      expect(metrics).toContain('kafka_why_retention_removed_total{kind="alert"} 1')
    } finally {
      await service.stop()
    }
  })
})
