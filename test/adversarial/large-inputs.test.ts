import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseLogLines } from '../../adapters/logs/parser.js'
import { buildDigest } from '../../bot/digest/build-digest.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { parseSignalsJsonl } from '../../signals/jsonl.js'

// Inputs large enough that spreading one of their arrays into a call (Math.max(...xs), push(...xs))
// overflows V8's stack, which ends the command with a RangeError. Every path here reads such an
// array whole; each must finish with its ordinary answer instead.
const run = promisify(execFile)
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kafka-why-large-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function kafkaWhy(args: string[]) {
  const { REDIS_URL: _ignored, ...env } = process.env
  try {
    const r = await run('node', ['cli/kafka-why.mjs', ...args], { env, timeout: 150_000, maxBuffer: 64 * 1024 * 1024 })
    return { code: 0, stdout: r.stdout, stderr: r.stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** A day of the JDK 17 safepoint lines a lab broker wrote, their times moved so they cover 24 hours. */
async function dayOfSafepointLines(count: number, dayStart: number): Promise<string[]> {
  const gc = await readFile('test/incidents/lab-stw/broker-1/gc.log', 'utf8')
  const real = gc.split('\n').filter((l) => l.includes('[safepoint') && l.includes('Reaching safepoint'))
  expect(real.length).toBeGreaterThan(10)
  const lines: string[] = new Array(count)
  const step = 86_400_000 / count
  for (let i = 0; i < count; i++) {
    const at = new Date(dayStart + Math.floor(i * step)).toISOString().replace('Z', '+0000')
    lines[i] = real[i % real.length].replace(/^\[[^\]]+\]\[[^\]]+\]/, `[${at}][${((i * step) / 1000).toFixed(3)}s]`)
  }
  return lines
}

describe('large inputs', () => {
  it('why --replay of 300,000 signals answers', { timeout: 180_000 }, async () => {
    const t0 = Date.UTC(2026, 10, 29, 0, 0, 0)
    const lines: string[] = []
    for (let i = 0; i < 300_000; i++) {
      lines.push(JSON.stringify({ name: 'safepoint.total', at: t0 + i * 100, cluster: 'big', broker: '1', value: 1 + (i % 50), source: `jsonl:big:${i}` }))
    }
    const file = path.join(dir, 'many.jsonl')
    await writeFile(file, lines.join('\n') + '\n')
    const r = await kafkaWhy(['why', '1', '--replay', file, '--json'])
    expect(r.stderr).not.toMatch(/RangeError|Maximum call stack/)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).broker).toBe('1')
  })

  it('a JSONL file with 200,000 bad lines is reported, line by line, and its good line kept', { timeout: 180_000 }, async () => {
    const lines = ['{"name":"safepoint.total","at":1764374400000,"cluster":"big","broker":"1","value":12}']
    for (let i = 0; i < 200_000; i++) lines.push(i % 2 ? '{"name":' : '{"name":"no.such.signal","at":1,"cluster":"big"}')
    const text = lines.join('\n')
    const parsed = parseSignalsJsonl(text, 'bad.jsonl')
    expect(parsed.signals).toHaveLength(1)
    expect(parsed.rejects).toHaveLength(200_000)
    expect(parsed.rejected).toEqual({ 'invalid JSON': 100_000, 'unknown signal': 100_000 })

    const file = path.join(dir, 'bad.jsonl')
    await writeFile(file, text)
    const r = await kafkaWhy(['why', '1', '--replay', file])
    expect(r.stderr).not.toMatch(/RangeError|Maximum call stack/)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/200000|200,000/)
  })

  it('the digest of a broker that logged a day of JDK 17 safepoints names its longest one', { timeout: 120_000 }, async () => {
    const dayStart = Date.UTC(2026, 10, 29, 0, 0, 0)
    const lines = await dayOfSafepointLines(150_000, dayStart)
    const parsed = parseLogLines(lines, { path: 'broker-1/gc.log', cluster: 'prod', broker: '1' })
    const safepoints = parsed.signals.filter((s) => s.name === 'safepoint.total' || s.name === 'safepoint.sync')
    expect(safepoints.length).toBeGreaterThan(200_000)
    let longest = 0
    for (const s of safepoints) longest = Math.max(longest, s.value ?? 0)
    const store = new MemoryStore()
    await store.append(parsed.signals)
    const report = await buildDigest(store, { cluster: 'prod', from: dayStart, to: dayStart + 86_400_000, now: dayStart + 86_400_000 })
    expect(report.brokers.find((b) => b.broker === '1')?.longestSafepointMs).toBe(longest)
  })
})
