import { labelKey } from './eval-data.js'

/**
 * The identity of an alert: rule + cluster + broker + group labels. Two engine processes compute the
 * same fingerprint for the same condition, which is what lets the store's compare-and-set turn two
 * attempts into one firing. A short hash (FNV-1a, 64 bit) so people can type it in `silence`.
 */
export function alertFingerprint(ruleId: string, cluster: string, broker: string | undefined, labels: Readonly<Record<string, string>>): string {
  const text = [ruleId, cluster, broker ?? '', labelKey(labels)].join('\u0000')
  let hash = 0xcbf29ce484222325n
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte)
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return hash.toString(16).padStart(16, '0')
}
