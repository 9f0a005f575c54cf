import type { WordingEntry } from '../../adapters/logs/wording/lookup.js'

/**
 * Turns a catalogue template back into a log line as a broker would print it, each `{}` filled with a
 * typical value chosen from the words around it (a partition after "partition", a path after "dir",
 * milliseconds before "ms"). The generator runs the real parser on these lines to learn which signal a
 * template yields, and the wording test asserts the same; both must render alike, hence one module.
 */

/** Fixed timestamp of every rendered line, so the parse is deterministic. */
export const RENDER_TIME = '2024-05-01 10:00:00,123'

type Rule = { before?: RegExp; after?: RegExp; value: string }

/** First rule whose `before` matches the text just before the placeholder (and `after` the text just after) wins. */
const RULES: readonly Rule[] = [
  { before: /0x$/, value: '1000a1b2c3d0004' },
  { before: /session(?: ?id)?\s*[:=]?\s*$/i, value: '0x1000a1b2c3d0004' },
  { after: /^\s*ms\b/, value: '7768' },
  { after: /^\s*(?:bytes|records|messages|segments|partitions|brokers|times|attempts)\b/, value: '3' },
  { before: /(?:partitions?|topic-?partition|tp)\s*[:=]?\s*\[?$/i, value: 'orders-3' },
  { before: /topics?\s*[:=]?\s*'?$/i, value: 'orders' },
  { before: /(?:(?:log )?dir(?:ectory)?|path|file|folder|logDir)\s*[:=]?\s*'?$/i, value: '/var/lib/kafka/data' },
  { before: /(?:group(?: ?id)?)\s*[:=]?\s*'?$/i, value: 'orders-consumer' },
  { before: /client ?id\s*[:=]?\s*$/i, value: 'consumer-orders-1' },
  { before: /(?:member(?: ?id)?)\s*[:=]?\s*$/i, value: 'consumer-orders-1-5b4f' },
  {
    before: /(?:broker(?:s| id|\.id|Id)?|node(?: id)?|replica(?: ?id)?|leader(?: ?id)?|controller(?: id)?|voter|id|follower)\s*[:=]?\s*$/i,
    value: '1',
  },
  { before: /(?:epoch|offset|version|generation|timeout|size|count|lag|attempt|retries|position|watermark)\s*[:=]?\s*$/i, value: '42' },
  { before: /(?:server|address|host|endpoint|connection to)\s*[:=]?\s*$/i, value: 'broker-1.example.com/10.0.0.1:9092' },
]

/** The value a placeholder gets, from the literal text around it. */
export function typicalValue(before: string, after: string): string {
  for (const r of RULES) if ((!r.before || r.before.test(before)) && (!r.after || r.after.test(after))) return r.value
  return 'value-1'
}

/** The message text a template prints with typical values. */
export function renderMessage(template: string): string {
  const parts = template.split('{}')
  let out = parts[0]
  for (let i = 1; i < parts.length; i++) out += typicalValue(out.slice(-40), parts[i].slice(0, 40)) + parts[i]
  return out
}

/**
 * A whole record in Kafka's shipped log4j layout: `[time] LEVEL message (logger)`, and when the
 * statement passes a Throwable, the stack trace log4j prints after it (a neutral exception, so only
 * the statement's own wording can reach a specific signal).
 */
export function renderLine(entry: Pick<WordingEntry, 'level' | 'template' | 'logger'> & { throwable?: boolean }): string {
  const line = `[${RENDER_TIME}] ${entry.level} ${renderMessage(entry.template)} (${entry.logger})`
  if (!entry.throwable) return line
  const cls = entry.logger.includes('.') ? entry.logger.replace(/\$$/, '') : 'kafka.utils.Logging'
  return `${line}\njava.lang.IllegalStateException: value-1\n\tat ${cls}.run(Unknown Source)`
}

/**
 * The signals every ERROR/FATAL line or exception yields whatever it says, and the WARN-failure one a statement
 * gets from the table itself (adapters/logs/warn-failures.ts); a template reaching only these is "generic".
 */
export const GENERIC_SIGNALS: ReadonlySet<string> = new Set(['log.error', 'log.fatal', 'log.warn_exception', 'log.warn_failure'])

/** Indices of sampled releases -> "0.10.2.2-2.3.1,3.9.1" (consecutive releases of the list as a range). */
export function versionRanges(indices: Iterable<number>, versions: readonly string[]): string {
  const sorted = [...indices].sort((a, b) => a - b)
  const out: string[] = []
  for (let i = 0; i < sorted.length; i++) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++
    out.push(i === j ? versions[sorted[i]] : `${versions[sorted[i]]}-${versions[sorted[j]]}`)
    i = j
  }
  return out.join(',')
}
