import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { decodeGroupValue, decodeKey, decodeOffsetValue, decodeRecord, RecordDecodeError } from '../../../adapters/consumer-lag/offsets-codec.js'

/** Keys and values of every version, serialised by Kafka 3.9.1's own generated classes (kafka-records/GenerateRecords.java). */
type Row = { kind: string; version: number; hex: string; empty?: boolean }
const rows: Row[] = JSON.parse(readFileSync(new URL('./kafka-records/records.json', import.meta.url), 'utf8'))
const bytes = (r: Row) => Buffer.from(r.hex, 'hex')
const of = (kind: string) => rows.filter((r) => r.kind === kind && !r.empty)

describe('adapters/consumer-lag/offsets-codec', () => {
  it.each(of('offset-key'))('offset-commit key version $version', (r) => {
    expect(decodeKey(bytes(r))).toEqual({ kind: 'offset', version: r.version, group: 'orders-app', topic: 'orders', partition: 7 })
  })

  it.each(of('offset-value'))('offset-commit value version $version', (r) => {
    const v = decodeOffsetValue(bytes(r))
    expect(v).toEqual({
      version: r.version,
      offset: 123456789012,
      leaderEpoch: r.version >= 3 ? 5 : -1,
      metadata: 'méta',
      commitTimestamp: 1733100000123,
      expireTimestamp: r.version === 1 ? 1733186400123 : -1,
    })
  })

  it('group-metadata key version 2', () => {
    expect(decodeKey(bytes(of('group-key')[0]))).toEqual({ kind: 'group', version: 2, group: 'orders-app' })
  })

  it.each(of('group-value'))('group-metadata value version $version with two members', (r) => {
    const g = decodeGroupValue(bytes(r))
    expect(g).toMatchObject({ version: r.version, protocolType: 'consumer', generation: 12, protocol: 'range', leader: 'consumer-orders-app-1-0' })
    expect(g.currentStateTimestamp).toBe(r.version >= 2 ? 1733100000456 : -1)
    expect(g.members).toEqual(
      [0, 1].map((i) => ({
        memberId: `consumer-orders-app-1-${i}`,
        groupInstanceId: r.version >= 3 && i === 0 ? 'static-0' : null,
        clientId: 'consumer-orders-app-1',
        clientHost: `/127.0.0.${i + 1}`,
        rebalanceTimeoutMs: r.version >= 1 ? 300000 : -1,
        sessionTimeoutMs: 45000,
      })),
    )
  })

  it('an empty group (no protocol, no leader, no members) after its last member left', () => {
    const g = decodeGroupValue(bytes(rows.find((r) => r.empty)!))
    expect(g).toMatchObject({ generation: 13, protocol: null, leader: null, members: [] })
  })

  it('a null value is a tombstone: the offset or the group was deleted', () => {
    const key = bytes(of('offset-key')[1])
    expect(decodeRecord(key, null)).toEqual({ kind: 'offset', key: decodeKey(key), value: null })
    expect(decodeRecord(bytes(of('group-key')[0]), null)).toMatchObject({ kind: 'group', value: null })
  })

  it('newer coordinators\' record types are named, not misread', () => {
    // KIP-848 ConsumerGroupMetadataKey is version 3: a group id string after the version.
    expect(decodeRecord(Buffer.from('00030003616263', 'hex'), Buffer.from('00', 'hex'))).toEqual({ kind: 'other', version: 3 })
  })

  it.each([
    ['a value cut short', () => decodeOffsetValue(bytes(of('offset-value')[3]).subarray(0, 9))],
    ['an unknown value version', () => decodeOffsetValue(Buffer.from('0009', 'hex'))],
    ['a member count past the end', () => decodeGroupValue(Buffer.from('000000016100000001000000007fffffff', 'hex'))],
  ])('%s is a RecordDecodeError', (_, f) => {
    expect(f).toThrow(RecordDecodeError)
  })
})
