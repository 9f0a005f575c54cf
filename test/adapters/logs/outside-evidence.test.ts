import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { brief, parse } from './helpers.js'

/**
 * What the world around a broker logs about it: the controller dropping it, ZooKeeper expiring a
 * session, a follower getting nothing back from it. Each is filed on the broker it is about, not on
 * the one that logged it. Every line is from a lab recording (test/incidents).
 */
const line = (file: string, pattern: RegExp) => {
  const found = readFileSync(new URL(`../../incidents/${file}`, import.meta.url), 'utf8').split('\n').find((l) => pattern.test(l))
  if (!found) throw new Error(`no line ${pattern} in ${file}`)
  return found
}

const OUTSIDE = new Set(['controller.broker_lost', 'zk.server_session_expired', 'peer.fetch_failed'])

describe('adapters/logs outside evidence', () => {
  it.each([
    [
      'Kafka 3.9.1 controller (ZooKeeper mode) dropping broker 1 whose session expired in a safepoint stall',
      'lab-stw/broker-2/controller.log',
      /Broker failure callback for 1/,
      '2',
      [{ name: 'controller.broker_lost', labels: { controller: '2' }, broker: '1' }],
    ],
    [
      'ZooKeeper 3.8 server expiring the frozen broker\'s session',
      'lab-stw/zookeeper/server.log',
      /Expiring session/,
      undefined,
      [{ name: 'zk.server_session_expired', value: 6000, labels: { session: '0x100001597490001' } }],
    ],
    [
      'Kafka 3.9.1 follower 2 getting no fetch response from the killed leader 1',
      'lab-broker-kill/broker-2/server.log',
      /replicaId=2, leaderId=1, fetcherId=0\] Error in response for fetch request/,
      '2',
      [{ name: 'peer.fetch_failed', labels: { follower: '2' }, broker: '1' }],
    ],
  ] as const)('%s', (_label, file, pattern, broker, expected) => {
    const { signals } = parse(line(file, pattern), broker === undefined ? {} : { broker })
    expect(signals.filter((s) => OUTSIDE.has(s.name)).map(brief)).toEqual(expected)
  })

  it('the controller line of a broker that shut down names it too (the rules tell the two apart)', () => {
    const { signals } = parse(line('lab-rolling-restart/broker-1/controller.log', /Broker failure callback for 3/), { broker: '1' })
    expect(signals.filter((s) => s.name === 'controller.broker_lost').map(brief)).toEqual([{ name: 'controller.broker_lost', labels: { controller: '1' }, broker: '3' }])
  })

  it('the controller listing the live brokers names no lost one', () => {
    const { signals } = parse(line('lab-stw/broker-2/controller.log', /Newly added brokers: , deleted brokers: 1/), { broker: '2' })
    expect(signals.filter((s) => OUTSIDE.has(s.name))).toEqual([])
  })
})
