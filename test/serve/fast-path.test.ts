import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService, type LiveService } from '../../adapters/live/live-service.js'
import { MemoryStore } from '../../engine/store/memory-store.js'

// The recorded ZooKeeper freeze (test/incidents/lab-zk-freeze: SIGSTOP of ZooKeeper at 09:30:27.6 under
// three brokers) written again, line by line at the pace it was logged, into files `serve` follows with
// its default engine settings. The service's clock runs at the recording's time, so the window and the
// settle time see the evidence exactly as they did live.
const INCIDENT = new URL('../incidents/lab-zk-freeze/', import.meta.url)
const FILES = ['server.log', 'gc.log']
const FROM = Date.parse('2026-12-01T09:30:26.000Z')
const UNTIL = Date.parse('2026-12-01T09:30:37.000Z')

const TIMEOUT = /^\[[^\]]+\] WARN Client session timed out/
/** The disconnect a timed-out client logs right after (ZooKeeper 3.6-3.9's wording): zk.disconnected, also session-loss evidence. */
const DISCONNECT = /^\[[^\]]+\] WARN Session 0x[0-9a-f]+ for server \S+, Closing socket connection\. Attempting reconnect/

type Line = { file: string; at: number; text: string; lineNo: number }

/** The recording's lines of every broker's files, each with the time of the record it belongs to. */
function recordedLines(): { head: Map<string, string[]>; timeline: Line[] } {
  const head = new Map<string, string[]>()
  const timeline: Line[] = []
  for (const b of [1, 2, 3]) {
    for (const f of FILES) {
      const file = `broker-${b}/${f}`
      const lines = readFileSync(new URL(file, INCIDENT), 'utf8').split('\n').filter((l) => l !== '')
      let at = 0
      const before: string[] = []
      lines.forEach((text, i) => {
        const m = /^\[(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)[.,](\d{3})/.exec(text)
        if (m) at = Date.parse(`${m[1]}T${m[2]}.${m[3]}Z`)
        if (at < FROM) before.push(text)
        else if (at <= UNTIL) timeline.push({ file, at, text, lineNo: i + 1 })
      })
      head.set(file, before)
    }
  }
  timeline.sort((a, b) => a.at - b.at)
  return { head, timeline }
}

describe('serve: the live fast path on real log lines', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-fast-path-'))
  let service: LiveService | undefined
  const store = new MemoryStore()
  afterAll(async () => {
    await service?.stop()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('alerts on a ZooKeeper freeze within 5 s of the evidence with the default engine, dated by the evidence', { timeout: 60_000 }, async () => {
    const { head, timeline } = recordedLines()
    for (const [file, lines] of head) {
      writeFileSync(path.join(dir, file.replace('/', '-')), lines.map((l) => l + '\n').join(''))
    }
    const logs = [...head.keys()].map((f) => `        - { broker: "${f[7]}", path: ${JSON.stringify(path.join(dir, f.replace('/', '-')))} }`)
    const config = parseLiveConfig(
      ['rules: [rules]', 'live:', '  listen: 127.0.0.1:0', '  clusters:', '    lab:', '      logs:', ...logs, ''].join('\n'),
      'fast-path.yaml',
    )
    expect(config.engine).toMatchObject({ tickMs: 1_000, lagMs: 0, settleMs: 2_000 })

    // The service's clock: the recording's time, running from FROM as the test starts writing.
    let offset = 0
    const quiet = { info: () => {}, warn: () => {}, error: () => {} }
    service = await startLiveService({ config, store, log: quiet, env: {}, now: () => Date.now() - offset })
    const start = Date.now()
    offset = start - FROM

    let written = 0
    const firstTimeout = timeline.find((l) => TIMEOUT.test(l.text))!
    let alert: Awaited<ReturnType<MemoryStore['listAlerts']>>[number] | undefined
    while (Date.now() - offset <= UNTIL + 5_000 && !alert) {
      const now = Date.now() - offset
      while (written < timeline.length && timeline[written].at <= now) {
        const l = timeline[written++]
        appendFileSync(path.join(dir, l.file.replace('/', '-')), l.text + '\n')
      }
      alert = (await store.listAlerts()).find((a) => a.ruleId === 'zk_unavailable' && a.state === 'firing')
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(alert, 'zk_unavailable never fired').toBeDefined()
    // A second broker's timeout makes the loss cluster-wide: the alert is dated by a session-loss line's own
    // time (the latest one the first evaluation saw: a timeout or the disconnect logged with it), not by
    // when the engine looked.
    const later = timeline.filter((l) => (TIMEOUT.test(l.text) || DISCONNECT.test(l.text)) && l.at > firstTimeout.at).map((l) => l.at)
    expect(later).toContain(alert!.firstEvidenceAt)
    expect(alert!.firedAt! - alert!.evidenceAt!).toBeLessThanOrEqual(5_000)
    // zk_unavailable reads an absence (no pause), so it was held for the 2 s settle time first.
    expect(alert!.firedAt! - alert!.firstEvidenceAt!).toBeGreaterThanOrEqual(2_000)
    // Evidence names each file's own line, though the tails started at its end.
    const timeouts = await store.querySeries({ cluster: 'lab', broker: firstTimeout.file[7], names: ['zk.session_timeout'], from: FROM, to: UNTIL })
    expect(timeouts.get('zk.session_timeout')?.[0].source).toBe(`log:${path.join(dir, firstTimeout.file.replace('/', '-'))}:${firstTimeout.lineNo}`)
  })
})
