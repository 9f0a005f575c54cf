import { configSignalName, lookupSignal } from '../../signals/catalogue.js'
import { encodeVersion } from '../../signals/units.js'

/**
 * Kafka config values → catalogue facts. A topic key and its broker-wide default are one fact
 * (`segment.ms` on a topic, `log.roll.ms` on a broker → `config.segment_ms`), so a rule compares one
 * name whichever level set it. Values are converted into the catalogue unit of the fact.
 */

/** Broker key → the topic-level key it is the default for, where the names differ. */
export const BROKER_KEY_ALIASES: Record<string, string> = {
  'log.roll.ms': 'segment.ms',
  'log.roll.hours': 'segment.ms',
  'log.segment.bytes': 'segment.bytes',
  'log.retention.ms': 'retention.ms',
  'log.retention.hours': 'retention.ms',
  'log.message.format.version': 'log.message.format.version',
  'message.format.version': 'log.message.format.version',
}

const HOURS = new Set(['log.roll.hours', 'log.retention.hours'])

/** The fact name a config key reports as, or undefined when the catalogue has no row for it. */
export function configFactName(key: string): string | undefined {
  const name = configSignalName(BROKER_KEY_ALIASES[key] ?? key)
  return lookupSignal(name)?.kind === 'fact' ? name : undefined
}

/** A config value in its fact's base unit; undefined when it cannot be read as one. */
export function configFactValue(key: string, value: string | null): number | undefined {
  const name = configFactName(key)
  if (!name || value === null) return undefined
  const unit = lookupSignal(name)!.unit
  const text = value.trim()
  if (unit === 'version') return encodeVersion(text)
  if (text === 'true') return 1
  if (text === 'false') return 0
  const n = Number(text)
  if (text === '' || !Number.isFinite(n)) return undefined
  return HOURS.has(key) ? n * 3_600_000 : n
}

/**
 * The facts of one config map: for each fact name the value and the key it came from. When a broker
 * has both `log.roll.ms` and `log.roll.hours`, the ms key wins, as it does in Kafka.
 */
export function configFacts(configs: Record<string, { value: string | null; isDefault?: boolean }>): Map<string, { value: number; key: string; raw: string }> {
  const out = new Map<string, { value: number; key: string; raw: string }>()
  const keys = Object.keys(configs).sort((a, b) => Number(HOURS.has(a)) - Number(HOURS.has(b)))
  for (const key of keys) {
    const raw = configs[key].value
    const name = configFactName(key)
    if (!name || out.has(name)) continue
    const value = configFactValue(key, raw)
    if (value === undefined) continue
    out.set(name, { value, key, raw: raw! })
  }
  return out
}
