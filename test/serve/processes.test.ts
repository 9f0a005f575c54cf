import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService } from '../../adapters/live/live-service.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { cleanupHolders, holder } from '../adapters/agent/holder.js'

afterAll(cleanupHolders)

/**
 * serve reading a broker process from /proc (live.clusters.<c>.processes) with the shipped
 * rules/outside.rules: a real process SIGSTOPped is named as stopped. The loop ticks every 5 s here,
 * so an alert within a second or two shows that the stored state woke it (engine/news.ts), not a tick.
 */
describe('serve: a broker process read from /proc', () => {
  it('names a SIGSTOPped process within a couple of seconds though the loop ticks every 5 s', { timeout: 60_000 }, async () => {
    const proc = await holder(0, 0, 300)
    const config = parseLiveConfig(`
rules: [${JSON.stringify(path.resolve('rules/outside.rules'))}]
live:
  listen: 127.0.0.1:0
  engine: { tick: 5s, lag: 0s }
  clusters:
    lab:
      processes: [{ broker: 7, pid: ${proc.pid}, interval: 200ms }]
`)
    expect(config.clusters[0].processes).toEqual([{ broker: '7', pid: String(proc.pid), intervalMs: 200 }])
    const store = new MemoryStore()
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    const service = await startLiveService({ config, store, log: quiet, env: {} })
    try {
      // The first tick has run, and the process has been read as sleeping.
      for (let i = 0; i < 100 && service.health().engine.lastTickAt === undefined; i++) await new Promise((r) => setTimeout(r, 100))
      await new Promise((r) => setTimeout(r, 1_000))
      const stoppedAt = Date.now()
      proc.kill('SIGSTOP')
      let firing
      while (!firing && Date.now() - stoppedAt < 20_000) {
        await new Promise((r) => setTimeout(r, 50))
        firing = (await store.listAlerts()).find((a) => a.ruleId === 'broker_process_stopped' && a.state === 'firing')
      }
      expect(firing).toMatchObject({ broker: '7', cluster: 'lab' })
      expect(Date.now() - stoppedAt).toBeLessThan(2_500)
      const states = await store.query({ cluster: 'lab', broker: '7', names: ['process.state'], from: 0, to: Date.now() + 1000 })
      expect(states.map((s) => s.labels?.state)).toContain('sleeping')
      expect(states.map((s) => s.labels?.state)).toContain('stopped')
    } finally {
      proc.kill('SIGCONT')
      await service.stop()
      proc.stdin!.end()
    }
  })
})
