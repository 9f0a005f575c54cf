import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A lab recording in which one broker's data ends early: a copy of test/incidents/<slug> in a
 * temporary directory whose broker-N files keep their lines up to the first one stamped after `cutAt`
 * (a multi-line record, a stack trace, stays whole with its first line), and whose signals.jsonl
 * loses that broker's scrapes after `cutAt`. Every line left is one the processes wrote; the peers'
 * files and the clients' are untouched, so they still speak of the broker after its data ends.
 * The lab records in UTC, and the stamps are read so.
 */
export function cutBrokerAt(slug: string, broker: string, cutAt: string): { dir: string; cut: number } {
  const cut = Date.parse(cutAt)
  const dir = mkdtempSync(join(tmpdir(), `kafka-why-cut-${slug}-`))
  cpSync(join('test', 'incidents', slug), dir, { recursive: true })
  const brokerDir = join(dir, `broker-${broker}`)
  for (const file of readdirSync(brokerDir)) {
    const path = join(brokerDir, file)
    const lines = readFileSync(path, 'utf8').split('\n')
    const after = lines.findIndex((line) => (stampOf(line) ?? -Infinity) > cut)
    if (after >= 0) writeFileSync(path, lines.slice(0, after).join('\n') + '\n')
  }
  const jsonl = join(dir, 'signals.jsonl')
  const kept = readFileSync(jsonl, 'utf8')
    .split('\n')
    .filter((line) => {
      if (line === '') return false
      const s = JSON.parse(line) as { broker?: string; at: number }
      return !(s.broker === broker && s.at > cut)
    })
  writeFileSync(jsonl, kept.join('\n') + '\n')
  return { dir, cut }
}

/** log4j's "[2026-12-01 12:03:41,718]" and the JDK's unified GC log "[2026-12-01T12:03:41.884+0000]". */
function stampOf(line: string): number | undefined {
  const m = /^\[(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)[,.](\d{3})/.exec(line)
  return m ? Date.parse(`${m[1]}T${m[2]}.${m[3]}Z`) : undefined
}
