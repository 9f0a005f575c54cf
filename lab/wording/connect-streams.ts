import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseLogText } from '../../adapters/logs/parser.js'
import { escapeField, WORDING_COLUMNS, type WordingEntry } from '../../adapters/logs/wording/lookup.js'
import { extractStatements, type Statement } from './extract.js'
import { GENERIC_SIGNALS, renderLine, versionRanges } from './render.js'
import { fetchSourcesJar, readSources } from './sources.js'

/**
 * `npm run wording -- --connect-streams`: the log statements of Kafka Connect (connect-runtime,
 * connect-mirror) and Kafka Streams (kafka-streams), mined from the sources jars Maven Central
 * publishes for each release (read through ~/.m2, as for the broker), into
 * adapters/logs/wording/{connect,streams}-wording.tsv in the broker tables' columns.
 *
 * Connect and Streams run inside applications that also log the Java client's lines, so a rendered
 * line is parsed as a client log (`format: client`), where the client matchers run.
 */

export type RuntimeProduct = 'connect' | 'streams'

export type RuntimeRelease = { product: RuntimeProduct; version: string; modules: readonly string[] }

/** Oldest first (the order version ranges are written in); add a release and rerun to extend a table. */
export const RUNTIME_RELEASES: readonly RuntimeRelease[] = [
  { product: 'connect', version: '2.8.2', modules: ['connect-runtime', 'connect-mirror'] },
  { product: 'connect', version: '3.9.1', modules: ['connect-runtime', 'connect-mirror'] },
  { product: 'streams', version: '2.8.2', modules: ['kafka-streams'] },
  { product: 'streams', version: '3.9.1', modules: ['kafka-streams'] },
]

export const RUNTIME_TABLE: Record<RuntimeProduct, string> = { connect: 'connect-wording.tsv', streams: 'streams-wording.tsv' }

/** INFO lines of these runtimes worth a row: task and thread state, rebalances, shutdowns. */
const INFO_KEEP = /state transition|rebalanc|revok|assign|fail|error|exception|shut ?down|shutting|stopp|restart|timed out|timeout|fenc|migrat|dead|died|unable|could not|cannot|abort|lost|expired|generation|leader/i

const LEVEL_ORDER: Record<string, number> = { FATAL: 0, ERROR: 1, WARN: 2, INFO: 3 }

type Row = { level: WordingEntry['level']; logger: string; template: string; throwable: boolean; prefix: string; versions: Set<number> }

function keep(s: Statement): boolean {
  if (s.level === 'DEBUG' || s.level === 'TRACE') return false
  // connect-runtime's command-line entry points print to a terminal before a worker runs; still statements of the runtime.
  if (s.template.replace(/\{\}/g, '').replace(/[^A-Za-z]/g, '').length < 4) return false
  return s.level !== 'INFO' || INFO_KEEP.test(s.template)
}

/** Specific signals the real parser gives a rendered line, read as an application's (client) log. */
export function runtimeSignalsOf(e: Pick<WordingEntry, 'level' | 'template' | 'logger'> & { throwable?: boolean }): string[] {
  const { signals } = parseLogText(`${renderLine(e)}\n`, { path: 'wording.log', cluster: 'wording', format: 'client' })
  return [...new Set(signals.map((s) => s.name))].filter((n) => !GENERIC_SIGNALS.has(n)).sort()
}

/** Mines one product over its releases and writes its table; returns the entries with their signals. */
export function mineRuntime(
  product: RuntimeProduct,
  tableDir: string,
  templateId: (level: string, logger: string, template: string) => string,
  log: (m: string) => void,
): (WordingEntry & { prefix: string })[] {
  const releases = RUNTIME_RELEASES.filter((r) => r.product === product)
  const versions = releases.map((r) => r.version)
  const byKey = new Map<string, Row>()
  releases.forEach((rel, vi) => {
    let files = 0
    let kept = 0
    for (const module of rel.modules) {
      const jar = fetchSourcesJar('org.apache.kafka', module, rel.version)
      if (jar === undefined) {
        log(`${product} ${rel.version}: ${module} is not published for this release; skipped`)
        continue
      }
      for (const { name, text } of readSources(jar)) {
        files++
        for (const s of extractStatements(text, name)) {
          if (!keep(s)) continue
          kept++
          const key = `${s.level}\t${s.logger}\t${s.template}`
          let row = byKey.get(key)
          if (!row) byKey.set(key, (row = { level: s.level as Row['level'], logger: s.logger, template: s.template, throwable: false, prefix: '-', versions: new Set() }))
          row.throwable ||= s.throwable
          if (row.prefix === '-') row.prefix = s.prefix
          row.versions.add(vi)
        }
      }
    }
    log(`${product} ${rel.version}: ${files} source files, ${kept} statements kept`)
  })
  const entries = [...byKey.values()]
    .sort((a, b) => (a.logger < b.logger ? -1 : a.logger > b.logger ? 1 : 0) || LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || (a.template < b.template ? -1 : a.template > b.template ? 1 : 0))
    .map((r) => {
      const e = { id: templateId(r.level, r.logger, r.template), level: r.level, logger: r.logger, template: r.template, versions: versionRanges(r.versions, versions), throwable: r.throwable, prefix: r.prefix }
      const sig = r.level === 'INFO' ? [] : runtimeSignalsOf(e)
      return { ...e, ...(sig.length ? { signal: sig.join(',') } : {}) }
    })
  const modules = [...new Set(releases.flatMap((r) => r.modules))].join(', ')
  const lines = [
    `# ${WORDING_COLUMNS.join('\t')}`,
    `# ${product} (${modules}) releases sampled: ${versions.join(' ')} — sources jars from Maven Central (org.apache.kafka); generated by \`npm run wording -- --connect-streams\` (lab/wording/connect-streams.ts); do not edit by hand`,
  ]
  for (const e of entries) lines.push([e.id, e.level, e.logger, e.versions, e.throwable ? 'T' : '-', e.signal ?? '-', e.prefix, escapeField(e.template)].join('\t'))
  writeFileSync(path.join(tableDir, RUNTIME_TABLE[product]), `${lines.join('\n')}\n`)
  log(`${RUNTIME_TABLE[product]}: ${entries.length} templates`)
  return entries
}

/** The Connect and Streams section of the coverage page. */
export function runtimeCoverage(parts: { product: RuntimeProduct; entries: readonly WordingEntry[] }[]): string {
  const lines = [
    '',
    '## Kafka Connect and Kafka Streams',
    '',
    'Tables `adapters/logs/wording/connect-wording.tsv` (connect-runtime, connect-mirror) and `streams-wording.tsv`',
    '(kafka-streams), mined from the sources jars on Maven Central by `npm run wording -- --connect-streams`. Each',
    'template is rendered in Kafka\'s log4j layout and parsed as an application\'s log (`format: client`).',
    '',
    '| product | releases | ERROR/FATAL templates | specific | WARN templates | specific |',
    '|---|---|---|---|---|---|',
  ]
  for (const p of parts) {
    const versions = RUNTIME_RELEASES.filter((r) => r.product === p.product).map((r) => r.version)
    const count = (pred: (e: WordingEntry) => boolean) => {
      const list = p.entries.filter(pred)
      const spec = list.filter((e) => e.signal !== undefined).length
      return [list.length, list.length ? `${spec} (${((100 * spec) / list.length).toFixed(1)} %)` : '—']
    }
    const ef = count((e) => e.level === 'ERROR' || e.level === 'FATAL')
    const w = count((e) => e.level === 'WARN')
    lines.push(`| ${p.product} | ${versions.join(' ')} | ${ef[0]} | ${ef[1]} | ${w[0]} | ${w[1]} |`)
  }
  return `${lines.join('\n')}\n`
}
