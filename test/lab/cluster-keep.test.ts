import { spawn } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { labUnavailableReason } from '../../lab/kafka-runtime.js'

const unavailable = labUnavailableReason()
if (unavailable) console.warn(`test/lab/cluster-keep skipped: ${unavailable}`)

const ENTRY = new URL('../../cli/kafka-why.mjs', import.meta.url).pathname

/** Runs `kafka-why lab cluster` as docs/lab.md shows it, stops it with Ctrl-C once it is up, and returns what it printed. */
function runUntilUp(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [ENTRY, 'lab', 'cluster', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no cluster within 90 s:\n${out}`))
    }, 90_000)
    const onData = (d: Buffer) => {
      out += d.toString()
      if (out.includes('Ctrl-C stops it')) child.kill('SIGINT')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

describe.skipIf(unavailable !== undefined)('lab cluster --keep (the CLI, as docs/lab.md shows it)', () => {
  it('keeps the cluster directory, with its brokers\' logs, after Ctrl-C; without --keep it is removed', { timeout: 200_000 }, async () => {
    // Ctrl-C ends the lab's processes through its exit hooks: exit status 130, as for any interrupted command.
    const kept = await runUntilUp(['--brokers', '1', '--session-timeout-ms', '6000', '--keep'])
    expect(kept.code, kept.out).toBe(130)
    const dir = /; (\S+) is kept\./.exec(kept.out)?.[1]
    expect(dir, kept.out).toBeDefined()
    try {
      expect(existsSync(path.join(dir!, 'broker-1', 'logs', 'server.log'))).toBe(true)
      expect(existsSync(path.join(dir!, 'broker-1', 'server.properties'))).toBe(true)
    } finally {
      rmSync(dir!, { recursive: true, force: true })
    }

    const plain = await runUntilUp(['--brokers', '1'])
    expect(plain.code, plain.out).toBe(130)
    const logs = /logs (\S+)/.exec(plain.out)?.[1]
    expect(logs, plain.out).toBeDefined()
    expect(existsSync(logs!)).toBe(false)
  })
})
