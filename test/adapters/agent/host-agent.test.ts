import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { HostAgent } from '../../../adapters/agent/host-agent.js'
import { parseInterval } from '../../../adapters/agent/parse-interval.js'
import { parseMaxOpenFiles, readProcStats, resolvePid } from '../../../adapters/agent/proc-stats.js'
import { openStore } from '../../../engine/store/open-store.js'
import type { Signal } from '../../../signals/signal.js'

const run = promisify(execFile)
const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-why-agent-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) c.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

/**
 * A real process holding `files` open descriptors and `maps` file mappings, under an open-files
 * limit of `nofile`, until its stdin closes.
 */
async function holder(files: number, maps: number, nofile = 4096): Promise<ChildProcess> {
  const script = `
import mmap, os, sys
held = []
for i in range(${files}):
    held.append(open(os.path.join(sys.argv[1], "fd-%d" % i), "w"))
for i in range(${maps}):
    p = os.path.join(sys.argv[1], "map-%d" % i)
    with open(p, "wb") as f:
        f.write(b"x" * 4096)
    f = open(p, "r+b")
    held.append(mmap.mmap(f.fileno(), 4096))
    f.close()
print("ready", flush=True)
sys.stdin.read()
`
  const sub = mkdtempSync(path.join(dir, 'h-'))
  const child = spawn('sh', ['-c', `ulimit -n ${nofile} && exec python3 -c "$0" "$1"`, script, sub], { stdio: ['pipe', 'pipe', 'inherit'] })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve())
    child.on('exit', (code) => reject(new Error(`holder exited ${code}`)))
  })
  return child
}

describe('adapters/agent/proc-stats', () => {
  it('counts a real process\'s open files and mappings, and reads its limits', async () => {
    const base = await holder(0, 0, 300)
    const more = await holder(50, 0, 300)
    const mapped = await holder(0, 40, 300)
    const [b, m, p] = await Promise.all([base, more, mapped].map((c) => readProcStats(c.pid!)))
    expect(m.fdOpen - b.fdOpen).toBe(50)
    // each file mapping adds a line to /proc/<pid>/maps; the interpreter's own areas vary by a few
    expect(p.mmapCount - b.mmapCount).toBeGreaterThanOrEqual(36)
    expect(m.mmapCount - b.mmapCount).toBeLessThan(5)
    expect(b.fdMax).toBe(300)
    expect(b.mmapMax).toBe(Number(readFileSync('/proc/sys/vm/max_map_count', 'utf8')))
    for (const c of [base, more, mapped]) c.stdin!.end()
  })

  it.each([
    ['Max open files            1024                 1048576              files     ', 1024],
    ['Max open files            unlimited            unlimited            files     ', undefined],
    ['Max processes             63432                63432                processes ', undefined],
  ])('reads %j as %s', (line, expected) => {
    expect(parseMaxOpenFiles(`Limit                     Soft Limit           Hard Limit           Units     \n${line}\n`)).toBe(expected)
  })

  it.each([
    ['1234', 1234],
    ['pidfile-ok', 4321],
  ])('resolves --pid %s', async (spec, pid) => {
    writeFileSync(path.join(dir, 'pidfile-ok'), '4321\n')
    expect(await resolvePid(spec === '1234' ? spec : path.join(dir, spec))).toBe(pid)
  })

  it.each([
    ['missing.pid', /cannot read pid file .*ENOENT/],
    ['garbage.pid', /does not hold a process id/],
  ])('rejects the pid file %s with a clear error', async (file, message) => {
    writeFileSync(path.join(dir, 'garbage.pid'), 'kafka\n')
    await expect(resolvePid(path.join(dir, file))).rejects.toThrow(message)
  })

  it.each([
    ['15s', 15_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['250', 250],
    ['15 parsecs', undefined],
    ['3GiB', undefined],
    ['0s', undefined],
  ])('reads the interval %j as %s ms', (text, ms) => {
    expect(parseInterval(text)).toBe(ms)
  })
})

describe('adapters/agent/host-agent', () => {
  it('follows a pid file across a restart, reporting the gap once as source.stale', async () => {
    const pidfile = path.join(dir, 'kafka.pid')
    const got: Signal[] = []
    let t = 1_000
    const agent = new HostAgent({ cluster: 'lab', broker: '3', pid: pidfile, sink: (s) => void got.push(...s), now: () => t, host: 'h1' })
    const first = await holder(10, 0)
    writeFileSync(pidfile, `${first.pid}\n`)
    expect((await agent.sampleOnce()).ok).toBe(true)
    expect(got.map((s) => s.name).sort()).toEqual(['fd.max', 'fd.open', 'mmap.count', 'mmap.max'])
    expect(got[0]).toMatchObject({ cluster: 'lab', broker: '3', at: 1_000, source: `agent:h1:/proc/${first.pid}` })

    first.kill('SIGKILL')
    await new Promise((r) => first.once('exit', r))
    got.length = 0
    t = 2_000
    const gone = await agent.sampleOnce()
    expect(gone).toMatchObject({ ok: false, error: `process ${first.pid} is not running` })
    await agent.sampleOnce()
    expect(got).toMatchObject([{ name: 'source.stale', broker: '3', at: 2_000, labels: { target: `proc:${pidfile}` } }])

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

  it('exits 1 with a clear message when the process is not there', async () => {
    const err = await run('node', ['cli/kafka-why.mjs', 'agent', '--broker', '1', '--pid', '999999999', '--once'], { env: { ...process.env, REDIS_URL: '' } }).catch((e) => e)
    expect(err.code).toBe(1)
    expect(err.stderr).toContain('process 999999999 is not running')
  })
})
