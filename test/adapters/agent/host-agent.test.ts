import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { HostAgent } from '../../../adapters/agent/host-agent.js'
import { openStore } from '../../../engine/store/open-store.js'
import type { Signal } from '../../../signals/signal.js'
import { cleanupHolders, dir, holder } from './holder.js'

const run = promisify(execFile)
afterAll(cleanupHolders)

describe('adapters/agent/host-agent', () => {
  it('follows a pid file across a restart, reporting the gap once as source.stale', async () => {
    const pidfile = path.join(dir, 'kafka.pid')
    const got: Signal[] = []
    let t = 1_000
    const agent = new HostAgent({ cluster: 'lab', broker: '3', pid: pidfile, sink: (s) => void got.push(...s), now: () => t, host: 'h1' })
    const first = await holder(10, 0)
    writeFileSync(pidfile, `${first.pid}\n`)
    expect((await agent.sampleOnce()).ok).toBe(true)
    expect(got.map((s) => s.name).sort()).toEqual(['fd.max', 'fd.open', 'mmap.count', 'mmap.max', 'process.state'])
    expect(got.find((s) => s.name === 'process.state')?.labels).toMatchObject({ state: expect.stringMatching(/^(sleeping|running)$/), pid: String(first.pid) })
    expect(got[0]).toMatchObject({ cluster: 'lab', broker: '3', at: 1_000, source: `agent:h1:/proc/${first.pid}` })

    first.kill('SIGKILL')
    await new Promise((r) => first.once('exit', r))
    got.length = 0
    t = 2_000
    const gone = await agent.sampleOnce()
    expect(gone).toMatchObject({ ok: false, error: `process ${first.pid} is not running` })
    await agent.sampleOnce()
    expect(got).toMatchObject([
      { name: 'process.gone', broker: '3', at: 2_000, labels: { pid: pidfile } },
      { name: 'source.stale', broker: '3', at: 2_000, labels: { target: `proc:${pidfile}` } },
    ])

    const second = await holder(20, 0)
    writeFileSync(pidfile, `${second.pid}\n`)
    got.length = 0
    expect((await agent.sampleOnce()).ok).toBe(true)
    expect(got[0].source).toBe(`agent:h1:/proc/${second.pid}`)
    second.stdin!.end()
  })

  it('ships a reading into Redis through `kafka-why agent --once`', { timeout: 30_000 }, async () => {
    const child = await holder(7, 0, 777)
    const prefix = `test-agent-${randomBytes(4).toString('hex')}:`
    const env = { ...process.env, REDIS_URL: 'redis://127.0.0.1:6379', KAFKA_WHY_REDIS_PREFIX: prefix }
    const { stdout } = await run('node', ['cli/kafka-why.mjs', 'agent', '--broker', '5', '--cluster', 'prod', '--pid', String(child.pid), '--once'], { env, timeout: 20_000 })
    const printed = stdout.trim().split('\n').map((l) => JSON.parse(l) as Signal)
    const store = openStore(env)
    const redis = new Redis('redis://127.0.0.1:6379')
    try {
      const at = printed[0].at
      const stored = await store.query({ cluster: 'prod', broker: '5', from: at - 1, to: at + 1 })
      expect(stored.map((s) => [s.name, s.value]).sort()).toEqual(printed.map((s) => [s.name, s.value]).sort())
      expect(stored.find((s) => s.name === 'fd.max')?.value).toBe(777)
    } finally {
      await store.close()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length) await redis.del(...keys)
      redis.disconnect()
      child.stdin!.end()
    }
  })

  it('samples on its interval until SIGTERM', { timeout: 30_000 }, async () => {
    const child = await holder(3, 0)
    const agent = spawn('node', ['cli/kafka-why.mjs', 'agent', '--broker', '2', '--pid', String(child.pid), '--interval', '200ms', '--print'], {
      env: { ...process.env, REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    agent.stdout!.on('data', (d) => (out += d))
    const exited = new Promise<number | null>((r) => agent.on('exit', (code) => r(code)))
    const readings = () => out.split('\n').filter((l) => l.includes('"fd.open"')).length
    const end = Date.now() + 20_000
    while (readings() < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
    agent.kill('SIGTERM')
    expect(await exited).toBe(0)
    const ats = out.split('\n').filter((l) => l.includes('"fd.open"')).map((l) => (JSON.parse(l) as Signal).at)
    expect(ats.length).toBeGreaterThanOrEqual(3)
    expect(ats[2] - ats[1]).toBeGreaterThanOrEqual(190)
    child.stdin!.end()
  })

  it('exits 1 when the reading cannot reach the store', { timeout: 30_000 }, async () => {
    const err = await run('node', ['cli/kafka-why.mjs', 'agent', '--broker', '1', '--pid', String(process.pid), '--once'], { env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1' } }).catch((e) => e)
    expect(err.code).toBe(1)
    expect(err.stderr).toContain('the reading could not be stored')
  })

  it('exits 1 with a clear message when the process is not there', async () => {
    const err = await run('node', ['cli/kafka-why.mjs', 'agent', '--broker', '1', '--pid', '999999999', '--once'], { env: { ...process.env, REDIS_URL: '' } }).catch((e) => e)
    expect(err.code).toBe(1)
    // Off a terminal the agent logs JSON lines, with its broker on each.
    const records = String(err.stderr).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(records).toContainEqual(expect.objectContaining({ level: 'error', cmd: 'agent', broker: '1', msg: expect.stringContaining('process 999999999 is not running') }))
  })
})
