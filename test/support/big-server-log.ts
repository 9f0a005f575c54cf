import { createWriteStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { once } from 'node:events'

// A server.log of any size made of real broker lines: recorded incidents' server.logs (test/incidents),
// repeated with their log4j timestamps moved forward on each pass so time keeps advancing, as a broker
// that ran for weeks would have written it. The size is a parameter: CI writes a few MiB through the
// same code path that a 1 GiB hand measurement uses.

const INCIDENTS = path.join(import.meta.dirname, '..', 'incidents')
/** Real server.logs with ERROR and WARN records, stack traces and the usual INFO chatter. */
const SOURCES = ['lab-under-min-isr', 'lab-direct-memory-oom', 'lab-roll-storm', 'seed-000-stw-session-expiry'].map((s) => path.join(INCIDENTS, s, 'broker-1', 'server.log'))
const STAMP = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3})\]/

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
function stamp(ms: number): string {
  const d = new Date(ms)
  return `[${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())},${pad(d.getUTCMilliseconds(), 3)}]`
}

/** Writes at least `bytes` of real server.log lines to `file`; gives the lines written and the span covered. */
export async function writeBigServerLog(file: string, bytes: number): Promise<{ lines: number; bytes: number; from: number; to: number }> {
  // Each source is shifted to follow the one before, so the unit is one ordered stretch of time.
  const unit: { at?: number; rest: string }[] = []
  let end = 0
  for (const src of SOURCES) {
    const lines = (await readFile(src, 'utf8')).split('\n').filter((l) => l !== '')
    let shift: number | undefined
    for (const l of lines) {
      const m = STAMP.exec(l)
      if (!m) {
        unit.push({ rest: l })
        continue
      }
      const at = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7])
      shift ??= end === 0 ? 0 : end + 60_000 - at
      unit.push({ at: at + shift, rest: l.slice(m[0].length) })
      end = Math.max(end, at + shift)
    }
  }
  const start = unit.find((u) => u.at !== undefined)!.at!
  const span = end - start + 60_000
  const out = createWriteStream(file)
  let written = 0
  let lines = 0
  let last = start
  for (let pass = 0; written < bytes; pass++) {
    const parts: string[] = []
    for (const u of unit) {
      const line = u.at === undefined ? u.rest : `${stamp(u.at + pass * span)}${u.rest}`
      if (u.at !== undefined) last = u.at + pass * span
      parts.push(line)
    }
    const text = `${parts.join('\n')}\n`
    written += Buffer.byteLength(text)
    lines += parts.length
    if (!out.write(text)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  return { lines, bytes: written, from: start, to: last }
}
