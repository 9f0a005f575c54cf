/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, or of the whole key, mod 16384), as
 * Redis computes it, so RedisStore can send each node only the commands whose keys it serves without
 * asking the cluster first.
 */

const TABLE = (() => {
  const t = new Uint16Array(256)
  for (let i = 0; i < 256; i++) {
    let crc = i << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    t[i] = crc
  }
  return t
})()

/** Number of slots a Redis Cluster divides its keys into. */
export const CLUSTER_SLOTS = 16384

/** The slot Redis Cluster assigns to a key: only the first non-empty `{…}` counts when there is one. */
export function keySlot(key: string): number {
  const open = key.indexOf('{')
  let hashed = key
  if (open !== -1) {
    const close = key.indexOf('}', open + 1)
    if (close > open + 1) hashed = key.slice(open + 1, close)
  }
  let crc = 0
  for (const byte of Buffer.from(hashed, 'utf8')) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff]
  return crc % CLUSTER_SLOTS
}
