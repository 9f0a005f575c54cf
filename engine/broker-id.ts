/**
 * What a broker id may look like. Broker ids become Redis key parts, Slack text and CLI arguments,
 * and every distinct id is a scope the store keeps: an id taken from a log line or a JSONL file
 * unchecked could be anything from a 64 KiB string to a fresh value per line. Kafka's own ids are
 * integers; deployments also name brokers by host ("kafka-3", "b3.prod.example.com"). The ingest path
 * (engine/ingest.ts) and both stores refuse anything else, as does the bot where a user types one.
 *
 * Pattern: a letter or digit, then letters, digits, `.`, `_` or `-`; at most 64 characters.
 */
export const BROKER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** The longest broker id accepted. */
export const BROKER_ID_MAX_CHARS = 64

/** Why `id` is not a usable broker id, or undefined when it is. */
export function checkBrokerId(id: string): string | undefined {
  if (id.length > BROKER_ID_MAX_CHARS) return `broker id longer than ${BROKER_ID_MAX_CHARS} characters`
  if (!BROKER_ID_PATTERN.test(id)) return `broker id '${id}' must be letters, digits, '.', '_' or '-', starting with a letter or digit`
  return undefined
}

/** Broker ids in the order people count them: 2 before 10; names (kafka-3) after, alphabetically. */
export function compareBroker(a: string, b: string): number {
  const na = Number(a)
  const nb = Number(b)
  return Number.isFinite(na) && Number.isFinite(nb) ? na - nb : a.localeCompare(b)
}
