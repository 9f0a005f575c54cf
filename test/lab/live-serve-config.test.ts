import { describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import type { LabCluster } from '../../lab/cluster.js'
import { labServeConfig } from '../../lab/live-serve.js'

/** The parts of a running lab cluster the generated config reads. */
const cluster = (mode: 'zk' | 'kraft') =>
  ({
    mode,
    bootstrap: '127.0.0.1:9101,127.0.0.1:9102',
    brokers: [1, 2].map((id) => ({ id, serverLog: `/lab/broker-${id}/logs/server.log`, gcLog: `/lab/broker-${id}/logs/gc.log`, logDir: `/lab/broker-${id}/logs`, exporterPort: 7000 + id })),
    ...(mode === 'zk' ? { zookeeper: { logDir: '/lab/zookeeper/logs' } } : {}),
  }) as unknown as LabCluster

describe('lab/live-serve', () => {
  it('has serve follow the controller\'s and ZooKeeper\'s logs, scrape every 2 s and read each broker\'s process', () => {
    const text = labServeConfig({ cluster: cluster('zk'), listenPort: 9464, build: '/repo', pidFiles: { 1: '/run/broker-1.pid', 2: '/run/broker-2.pid' } })
    const c = parseLiveConfig(text).clusters[0]
    expect(c.logs.map((l) => [l.broker, l.path])).toEqual([
      ['1', '/lab/broker-1/logs/server.log'],
      ['1', '/lab/broker-1/logs/gc.log'],
      ['1', '/lab/broker-1/logs/controller.log'],
      ['2', '/lab/broker-2/logs/server.log'],
      ['2', '/lab/broker-2/logs/gc.log'],
      ['2', '/lab/broker-2/logs/controller.log'],
      [undefined, '/lab/zookeeper/logs/server.log'],
    ])
    expect(c.scrape.map((s) => [s.broker, s.intervalMs, s.timeoutMs])).toEqual([
      ['1', 2000, 1500],
      ['2', 2000, 1500],
    ])
    expect(c.processes).toEqual([
      { broker: '1', pid: '/run/broker-1.pid', intervalMs: 1000 },
      { broker: '2', pid: '/run/broker-2.pid', intervalMs: 1000 },
    ])
  })

  it('follows no controller.log in KRaft mode, where the controller logs to server.log', () => {
    const c = parseLiveConfig(labServeConfig({ cluster: cluster('kraft'), listenPort: 9464, build: '/repo' })).clusters[0]
    expect(c.logs.map((l) => l.path).filter((p) => p.endsWith('controller.log'))).toEqual([])
    expect(c.processes).toEqual([])
  })
})
