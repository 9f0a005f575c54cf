import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UploadedLog } from '../../../adapters/uploaded-logs.js'
import { DEFAULT_UPLOAD_BUDGET, readUploadedLogsOffThread, signalChars } from '../../../adapters/uploads-worker/read-off-thread.js'
import { whyUploaded } from '../../../bot/commands/why-upload.js'
import type { BotMessage } from '../../../bot/message.js'
import { MemoryStore } from '../../../engine/store/memory-store.js'
import type { Signal } from '../../../signals/signal.js'
import { writeBigServerLog } from '../../support/big-server-log.js'
import { testContext } from '../../bot/support/bot-context.js'

// What the upload worker hands back is capped before the main thread holds it: a count of signals
// and a count of their characters per request (a 50 MiB bundle may expand to 4 GiB of lines). Past a
// cap nothing more is kept, what was left out is counted, and the answer says so instead of answering
// over part of the logs as if it were all of them. Before, every signal the worker posted was appended.
// The upload is real broker lines repeated (test/support/big-server-log.ts).

let dir = ''
let upload: UploadedLog

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'upload-caps-'))
  const file = path.join(dir, 'server.log')
  await writeBigServerLog(file, 1024 ** 2)
  upload = { name: 'broker-1-server.log', bytes: await readFile(file) }
}, 60_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function stored(store: MemoryStore): Promise<Signal[]> {
  const out: Signal[] = []
  for (const ref of await store.brokers()) for (const s of await store.query({ cluster: ref.cluster, broker: ref.broker, from: 0, to: Number.MAX_SAFE_INTEGER })) out.push(s)
  for (const s of await store.query({ cluster: 'c', from: 0, to: Number.MAX_SAFE_INTEGER })) out.push(s)
  return out
}

const budget = (caps: { signals?: number; signalChars?: number }) => ({ timeMs: DEFAULT_UPLOAD_BUDGET.timeMs, heapMiB: DEFAULT_UPLOAD_BUDGET.heapMiB, ...caps })
const textOf = (m: BotMessage) => [m.text, ...m.parts.map((p) => ('text' in p ? p.text : ''))].join('\n')

describe('adapters/uploads-worker signal caps', () => {
  it('keeps at most the capped count of signals, the first ones, and counts the rest', { timeout: 120_000 }, async () => {
    const whole = new MemoryStore()
    const all = await readUploadedLogsOffThread([upload], whole, { cluster: 'c', broker: '1' })
    expect(all.cut).toBeUndefined()
    const total = all.stats.logs.signals
    expect(total).toBeGreaterThan(3000)

    const store = new MemoryStore()
    const r = await readUploadedLogsOffThread([upload], store, { cluster: 'c', broker: '1' }, budget({ signals: 1000 }))
    expect(r.cut).toEqual({ limit: 'signals', kept: 1000, signals: total - 1000 })
    expect(r.accepted).toBeLessThanOrEqual(1000)
    const kept = await stored(store)
    expect(kept.length).toBeLessThanOrEqual(1000)
    expect(kept.length).toBeGreaterThan(900)
    // The worker's summary still counts every line it read.
    expect(r.stats.logs.lines).toBe(all.stats.logs.lines)
  })

  it('keeps at most the capped characters of evidence', { timeout: 120_000 }, async () => {
    const store = new MemoryStore()
    const r = await readUploadedLogsOffThread([upload], store, { cluster: 'c', broker: '1' }, budget({ signalChars: 100_000 }))
    expect(r.cut?.limit).toBe('characters')
    expect(r.cut!.signals).toBeGreaterThan(0)
    const kept = await stored(store)
    expect(kept.reduce((n, s) => n + signalChars(s), 0)).toBeLessThanOrEqual(100_000)
  })

  it('says in the answer what was left out', { timeout: 120_000 }, async () => {
    const t = await testContext({ replay: false })
    const m = textOf(await whyUploaded(t.ctx, { channel: 'C0PERF' }, [upload], { broker: '1' }, budget({ signals: 1000 })))
    expect(m).toMatch(/:warning: Only the first 1,000 signals of these logs were kept: [\d,]+ more were left out, past the 1,000 signals one answer over shared logs holds\. Share the part around the incident for a whole answer\./)
  })
})
