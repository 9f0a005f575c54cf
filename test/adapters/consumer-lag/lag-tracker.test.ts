import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { LagTracker } from '../../../adapters/consumer-lag/lag-tracker.js'
import { decodeRecord } from '../../../adapters/consumer-lag/offsets-codec.js'

/** Records Kafka 3.9.1's own classes wrote (kafka-records/GenerateRecords.java): group orders-app on orders-7 and its metadata. */
type Row = { kind: string; version: number; hex: string; empty?: boolean }
const rows: Row[] = JSON.parse(readFileSync(new URL('./kafka-records/records.json', import.meta.url), 'utf8'))
const hex = (kind: string, version: number) => Buffer.from(rows.find((r) => r.kind === kind && r.version === version && !r.empty)!.hex, 'hex')
const offsetKey = hex('offset-key', 1)
const groupKey = hex('group-key', 2)

describe('adapters/consumer-lag/lag-tracker', () => {
  it('turns a commit and two log-end polls into lag in messages and in time, filed on the coordinator', () => {
    const t = new LagTracker({ cluster: 'prod' })
    // Kafka's record: offset 123456789012 committed at 1733100000123 by orders-app on orders-7.
    t.applyRecord(decodeRecord(offsetKey, hex('offset-value', 3)), 4)
    t.applyRecord(decodeRecord(groupKey, hex('group-value', 4)), 4)
    expect(t.topics()).toEqual(['orders'])
    const first = t.tick(1733100030000, [{ topic: 'orders', partition: 7, offset: 123456789012 + 600, leader: 2 }], new Map([[4, 3]]))
    expect(first.find((s) => s.name === 'group.commit')).toMatchObject({ at: 1733100000123, broker: '3', value: 123456789012, labels: { group: 'orders-app', topic: 'orders', partition: '7' } })
    expect(first.find((s) => s.name === 'partition.log_end')).toMatchObject({ broker: '2', value: 123456789612 })
    expect(first.find((s) => s.name === 'group.lag')).toMatchObject({ broker: '3', value: 600, labels: { leader: '2' } })
    expect(first.find((s) => s.name === 'group.members')).toMatchObject({ value: 2, labels: { group: 'orders-app', state: 'Stable', generation: '12' } })
    // A commit is sent once; the next poll has the log end moved on by 300 in 30 s.
    const second = t.tick(1733100060000, [{ topic: 'orders', partition: 7, offset: 123456789012 + 900, leader: 2 }], new Map([[4, 3]]))
    expect(second.filter((s) => s.name === 'group.commit')).toEqual([])
    expect(second.find((s) => s.name === 'group.lag')?.value).toBe(900)
    // The log end passed the committed offset 60 s before the first poll (600 at 10/s), so 90 s ago now.
    expect(second.find((s) => s.name === 'group.lag_time')?.value).toBe(90_000)
  })

  it('a tombstone deletes the offset, and the group with its last offset and no metadata', () => {
    const t = new LagTracker({ cluster: 'prod' })
    t.applyRecord(decodeRecord(offsetKey, hex('offset-value', 1)))
    expect(t.stats()).toMatchObject({ groups: 1, partitions: 1 })
    t.applyRecord(decodeRecord(offsetKey, null))
    expect(t.stats()).toMatchObject({ groups: 0, partitions: 0 })
    t.applyRecord(decodeRecord(groupKey, hex('group-value', 2)))
    t.applyRecord(decodeRecord(groupKey, null))
    expect(t.groupIds()).toEqual([])
  })

  it('holds at most maxGroups groups and maxPartitionsPerGroup partitions, counting what it turned away', () => {
    const t = new LagTracker({ cluster: 'prod', maxGroups: 2, maxPartitionsPerGroup: 3 })
    for (let g = 0; g < 4; g++) for (let p = 0; p < 5; p++) t.applyCommitted(`g${g}`, 'orders', p, 10, 1000)
    expect(t.stats()).toMatchObject({ groups: 2, partitions: 6, droppedGroups: 2, droppedPartitions: 4 })
  })

  it('from the admin API an unchanged offset is no new commit, and -1 (no offset) is ignored', () => {
    const t = new LagTracker({ cluster: 'prod' })
    t.applyCommitted('billing', 'orders', 0, 50, 1000, 1)
    t.applyCommitted('billing', 'orders', 1, -1, 1000, 1)
    expect(t.tick(1000, []).filter((s) => s.name === 'group.commit')).toHaveLength(1)
    t.applyCommitted('billing', 'orders', 0, 50, 31_000, 1)
    expect(t.tick(31_000, []).filter((s) => s.name === 'group.commit')).toHaveLength(0)
  })

  it('never tracks its own group', () => {
    const t = new LagTracker({ cluster: 'prod', ownGroup: 'orders-app' })
    t.applyRecord(decodeRecord(offsetKey, hex('offset-value', 3)))
    expect(t.groupIds()).toEqual([])
  })

  it('keeps at most historyPoints log ends per partition and starts over when the log end goes back', () => {
    const t = new LagTracker({ cluster: 'prod', historyPoints: 3 })
    for (let i = 1; i <= 5; i++) t.tick(i * 1000, [{ topic: 'orders', partition: 0, offset: i * 100 }])
    expect(t.stats().historyPoints).toBe(3)
    t.tick(6000, [{ topic: 'orders', partition: 0, offset: 10 }])
    expect(t.stats().historyPoints).toBe(1)
  })
})
