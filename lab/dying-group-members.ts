import { connect } from 'node:net'

/**
 * Group members that die mid-join, at a steady rate: each opens a connection to the coordinator, sends
 * a JoinGroup (v1) with a second JoinGroup pipelined behind it, and closes at once. Seed 003's group
 * joined and died once a minute; this does it dozens of times a second, so what such members cost a
 * coordinator shows within minutes (before 2.2.0, KAFKA-7610, a member that joins during a rebalance and
 * dies stays in the group's metadata until the rebalance ends). The pipelined second request and the
 * close also take a broker's path for channels closed with a request still staged.
 */
export type DyingMembersOptions = {
  host: string
  port: number
  groupId: string
  topic: string
  /** Connections opened per second. */
  perSecond: number
  /** Size of the subscription's user data in each JoinGroup (what the leaked request holds). */
  userDataBytes: number
  durationMs: number
}

/** What the driver did. */
export type DyingMembersResult = { connections: number; errors: number }

function str(s: string): Buffer {
  const b = Buffer.from(s, 'utf8')
  const len = Buffer.alloc(2)
  len.writeInt16BE(b.length)
  return Buffer.concat([len, b])
}

function int16(n: number): Buffer {
  const b = Buffer.alloc(2)
  b.writeInt16BE(n)
  return b
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

function bytes(b: Buffer): Buffer {
  return Buffer.concat([int32(b.length), b])
}

/** A size-prefixed JoinGroup v1 request (the consumer protocol, one "range" assignor). */
export function joinGroupRequest(correlationId: number, clientId: string, groupId: string, topic: string, userDataBytes: number): Buffer {
  const subscription = Buffer.concat([int16(0), int32(1), str(topic), bytes(Buffer.alloc(userDataBytes, 0x61))])
  const body = Buffer.concat([
    int16(11), int16(1), int32(correlationId), str(clientId),
    str(groupId), int32(6_000), int32(10_000), str(''), str('consumer'),
    int32(1), str('range'), bytes(subscription),
  ])
  return Buffer.concat([int32(body.length), body])
}

/** Runs the dying members for `durationMs`; resolves with how many connections it made. */
export async function runDyingMembers(o: DyingMembersOptions): Promise<DyingMembersResult> {
  const result: DyingMembersResult = { connections: 0, errors: 0 }
  const start = Date.now()
  const intervalMs = 1_000 / o.perSecond
  let next = start
  let correlation = 0
  const pending = new Set<Promise<void>>()
  while (Date.now() - start < o.durationMs) {
    const payload = Buffer.concat([
      joinGroupRequest(++correlation, 'billing-sync-worker', o.groupId, o.topic, o.userDataBytes),
      joinGroupRequest(++correlation, 'billing-sync-worker', o.groupId, o.topic, o.userDataBytes),
    ])
    const done = new Promise<void>((resolve) => {
      const socket = connect({ host: o.host, port: o.port }, () => {
        // Closed as soon as both requests are written: the member dies while its join is pending.
        socket.end(payload, () => socket.destroy())
        result.connections++
      })
      socket.on('error', () => {
        result.errors++
        resolve()
      })
      socket.on('close', () => resolve())
      socket.setTimeout(5_000, () => socket.destroy())
    })
    pending.add(done)
    void done.then(() => pending.delete(done))
    next += intervalMs
    const waitMs = next - Date.now()
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs))
  }
  await Promise.all(pending)
  return result
}
