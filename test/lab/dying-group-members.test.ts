import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { joinGroupRequest } from '../../lab/dying-group-members.js'

const require = createRequire(import.meta.url)
// kafkajs's own encoders (the client the lab already trusts) are the reference for the wire format.
const encodeRequest = require('kafkajs/src/protocol/request.js') as (r: unknown) => Promise<{ buffer: Buffer }>
const joinGroupV1 = require('kafkajs/src/protocol/requests/joinGroup/v1/request.js') as (r: unknown) => unknown
const { MemberMetadata } = require('kafkajs/src/consumer/assignerProtocol.js') as { MemberMetadata: { encode(m: unknown): Buffer } }

describe('lab/dying-group-members', () => {
  it('writes the JoinGroup v1 request kafkajs writes, consumer subscription and user data included', async () => {
    const userData = Buffer.alloc(4_096, 0x61)
    const reference = await encodeRequest({
      correlationId: 7,
      clientId: 'billing-sync-worker',
      request: joinGroupV1({
        groupId: 'billing-sync',
        sessionTimeout: 6_000,
        rebalanceTimeout: 10_000,
        memberId: '',
        protocolType: 'consumer',
        groupProtocols: [{ name: 'range', metadata: MemberMetadata.encode({ version: 0, topics: ['billing-events'], userData }) }],
      }),
    })
    const ours = joinGroupRequest(7, 'billing-sync-worker', 'billing-sync', 'billing-events', 4_096)
    expect(ours.equals(reference.buffer)).toBe(true)
    expect(ours.readInt32BE(0)).toBe(ours.length - 4)
  })
})
