/**
 * Decodes the records of Kafka's internal `__consumer_offsets` topic: offset commits (key versions
 * 0 and 1, value versions 0–4) and classic group metadata (key version 2, value versions 0–4), as
 * Kafka's group coordinator writes them. Sources: GroupMetadataManager.scala (Kafka 2.x, the
 * hand-written schemas) and the generated-message definitions OffsetCommitKey.json,
 * OffsetCommitValue.json, GroupMetadataKey.json and GroupMetadataValue.json
 * (group-coordinator/src/main/resources/common/message/, Kafka 3.x). Every key and value starts
 * with a big-endian int16 version; versions 4 are "flexible" (compact strings, compact arrays,
 * tagged fields). Key versions 3 and up (KIP-848 consumer groups, share groups) carry no committed
 * offsets and are reported as `other`.
 */

/** An offset-commit key: the group, topic and partition a committed offset belongs to. */
export type OffsetKey = { kind: 'offset'; version: number; group: string; topic: string; partition: number }
/** A classic group-metadata key. */
export type GroupKey = { kind: 'group'; version: number; group: string }
/** A key of a record type this decoder does not read (newer coordinators' own records). */
export type OtherKey = { kind: 'other'; version: number }
export type ConsumerOffsetsKey = OffsetKey | GroupKey | OtherKey

/** A committed offset as the coordinator stored it. */
export type OffsetValue = {
  version: number
  offset: number
  /** -1 when the record carries none (versions 0–2) or the client sent none. */
  leaderEpoch: number
  metadata: string
  /** Epoch ms at which the coordinator accepted the commit. */
  commitTimestamp: number
  /** Epoch ms after which the offset expires; -1 unless version 1. */
  expireTimestamp: number
}

/** One member of a classic group, as the group's metadata record lists it. */
export type GroupMember = {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  rebalanceTimeoutMs: number
  sessionTimeoutMs: number
}

/** A classic group's state after its last rebalance. */
export type GroupValue = {
  version: number
  protocolType: string
  generation: number
  protocol: string | null
  leader: string | null
  /** Epoch ms of the state change; -1 before version 2. */
  currentStateTimestamp: number
  members: GroupMember[]
}

/** Raised for bytes that do not follow the schema their version names. */
export class RecordDecodeError extends Error {}

/** A cursor over one key or value. */
class Reader {
  private pos = 0
  constructor(private readonly buf: Uint8Array) {}
  private view = () => new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
  private need(n: number) {
    if (this.pos + n > this.buf.byteLength) throw new RecordDecodeError(`record ends at byte ${this.buf.byteLength}, ${n} more needed at ${this.pos}`)
  }
  int16(): number {
    this.need(2)
    const v = this.view().getInt16(this.pos)
    this.pos += 2
    return v
  }
  int32(): number {
    this.need(4)
    const v = this.view().getInt32(this.pos)
    this.pos += 4
    return v
  }
  int64(): number {
    this.need(8)
    const v = this.view().getBigInt64(this.pos)
    this.pos += 8
    // Offsets and epoch-ms timestamps fit in a double's 53 bits for any real log.
    return Number(v)
  }
  unsignedVarint(): number {
    let value = 0
    for (let shift = 0; shift < 35; shift += 7) {
      this.need(1)
      const b = this.buf[this.pos++]
      value += (b & 0x7f) * 2 ** shift
      if ((b & 0x80) === 0) return value
    }
    throw new RecordDecodeError(`varint longer than 5 bytes at ${this.pos}`)
  }
  private text(len: number): string {
    this.need(len)
    const s = new TextDecoder().decode(this.buf.subarray(this.pos, this.pos + len))
    this.pos += len
    return s
  }
  /** int16 length then UTF-8; -1 is null. */
  string(nullable = false): string | null {
    const len = this.int16()
    if (len < 0) {
      if (nullable) return null
      throw new RecordDecodeError(`null string where the schema allows none`)
    }
    return this.text(len)
  }
  /** Unsigned varint length + 1 then UTF-8; 0 is null. */
  compactString(nullable = false): string | null {
    const len = this.unsignedVarint() - 1
    if (len < 0) {
      if (nullable) return null
      throw new RecordDecodeError(`null string where the schema allows none`)
    }
    return this.text(len)
  }
  skipBytes(): void {
    const len = this.int32()
    if (len > 0) this.skip(len)
  }
  skipCompactBytes(): void {
    const len = this.unsignedVarint() - 1
    if (len > 0) this.skip(len)
  }
  skip(n: number): void {
    this.need(n)
    this.pos += n
  }
  /** Tagged fields of a flexible version: none of ours are read, all are skipped. */
  skipTaggedFields(): void {
    const count = this.unsignedVarint()
    for (let i = 0; i < count; i++) {
      this.unsignedVarint()
      this.skip(this.unsignedVarint())
    }
  }
}

const str = (r: Reader, flexible: boolean): string => (flexible ? r.compactString() : r.string()) as string
const nstr = (r: Reader, flexible: boolean): string | null => (flexible ? r.compactString(true) : r.string(true))

/** Decodes a record key of `__consumer_offsets`. */
export function decodeKey(key: Uint8Array): ConsumerOffsetsKey {
  const r = new Reader(key)
  const version = r.int16()
  if (version === 0 || version === 1) {
    const group = r.string() as string
    const topic = r.string() as string
    return { kind: 'offset', version, group, topic, partition: r.int32() }
  }
  if (version === 2) return { kind: 'group', version, group: r.string() as string }
  return { kind: 'other', version }
}

/** Decodes an offset-commit value (the key was version 0 or 1). */
export function decodeOffsetValue(value: Uint8Array): OffsetValue {
  const r = new Reader(value)
  const version = r.int16()
  if (version < 0 || version > 4) throw new RecordDecodeError(`offset commit value version ${version} is not 0–4`)
  const flexible = version >= 4
  const offset = r.int64()
  const leaderEpoch = version >= 3 ? r.int32() : -1
  const metadata = str(r, flexible)
  const commitTimestamp = r.int64()
  const expireTimestamp = version === 1 ? r.int64() : -1
  if (flexible) r.skipTaggedFields()
  return { version, offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp }
}

/** Decodes a classic group-metadata value (the key was version 2). */
export function decodeGroupValue(value: Uint8Array): GroupValue {
  const r = new Reader(value)
  const version = r.int16()
  if (version < 0 || version > 4) throw new RecordDecodeError(`group metadata value version ${version} is not 0–4`)
  const flexible = version >= 4
  const protocolType = str(r, flexible)
  const generation = r.int32()
  const protocol = nstr(r, flexible)
  const leader = nstr(r, flexible)
  const currentStateTimestamp = version >= 2 ? r.int64() : -1
  const count = flexible ? r.unsignedVarint() - 1 : r.int32()
  const members: GroupMember[] = []
  for (let i = 0; i < count; i++) {
    const memberId = str(r, flexible)
    const groupInstanceId = version >= 3 ? nstr(r, flexible) : null
    const clientId = str(r, flexible)
    const clientHost = str(r, flexible)
    const rebalanceTimeoutMs = version >= 1 ? r.int32() : -1
    const sessionTimeoutMs = r.int32()
    if (flexible) {
      r.skipCompactBytes()
      r.skipCompactBytes()
      r.skipTaggedFields()
    } else {
      r.skipBytes()
      r.skipBytes()
    }
    members.push({ memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs })
  }
  if (flexible) r.skipTaggedFields()
  return { version, protocolType, generation, protocol, leader, currentStateTimestamp, members }
}

/** What one `__consumer_offsets` record means; a null value is a tombstone (the offset or group was deleted). */
export type ConsumerOffsetsRecord =
  | { kind: 'offset'; key: OffsetKey; value: OffsetValue | null }
  | { kind: 'group'; key: GroupKey; value: GroupValue | null }
  | { kind: 'other'; version: number }

/** Decodes one record of `__consumer_offsets`; throws RecordDecodeError on bytes that break their schema. */
export function decodeRecord(key: Uint8Array | null, value: Uint8Array | null): ConsumerOffsetsRecord {
  if (!key) throw new RecordDecodeError('record without a key')
  const k = decodeKey(key)
  if (k.kind === 'offset') return { kind: 'offset', key: k, value: value ? decodeOffsetValue(value) : null }
  if (k.kind === 'group') return { kind: 'group', key: k, value: value ? decodeGroupValue(value) : null }
  return { kind: 'other', version: k.version }
}
