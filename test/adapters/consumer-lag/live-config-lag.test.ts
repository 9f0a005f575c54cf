import { describe, expect, it } from 'vitest'
import { LiveConfigError, parseLiveConfig } from '../../../adapters/live/live-config.js'

const config = (lag: string) => `live:\n  clusters:\n    prod:\n      admin: { brokers: ["kafka-1:9092"], lag: ${lag} }\n`

describe('adapters/live/live-config consumer lag', () => {
  it('lag: true takes the documented defaults', () => {
    expect(parseLiveConfig(config('true')).clusters[0].admin?.lag).toEqual({ intervalMs: 30_000, offsets: 'topic', maxGroups: 2000, maxPartitionsPerGroup: 1000 })
  })
  it('a mapping sets each', () => {
    expect(parseLiveConfig(config('{ interval: 1m, offsets: admin, max_groups: 50, max_partitions_per_group: 64 }')).clusters[0].admin?.lag).toEqual({ intervalMs: 60_000, offsets: 'admin', maxGroups: 50, maxPartitionsPerGroup: 64 })
  })
  it('absent or false: no consumer lag', () => {
    expect(parseLiveConfig(config('false')).clusters[0].admin?.lag).toBeUndefined()
  })
  it('a bad value names its key', () => {
    expect(() => parseLiveConfig(config('{ offsets: zookeeper }'))).toThrow(LiveConfigError)
    try {
      parseLiveConfig(config('{ offsets: zookeeper }'))
    } catch (err) {
      expect(String((err as Error).message)).toMatch(/lag/)
    }
  })
})
