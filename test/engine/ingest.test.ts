import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SignalWriter, type IngestEvent } from '../../engine/ingest.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { RedisStore } from '../../engine/store/redis-store.js'
import { StoreUnavailableError, type Store } from '../../engine/store/store.js'
import type { Signal } from '../../signals/signal.js'

// The streaming write path against a real redis-server of its own on another loopback port, which
// the tests start, stop, kill and freeze to produce real outages. Every server is stopped in afterEach.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls until the condition holds; fails the test after `timeoutMs`. */
async function waitFor(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  for (let waited = 0; !condition(); waited += 25) {
    if (waited > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

/** A port nothing listens on right now (the kernel picks it, we release it). */
async function freePort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as { port: number }).port
  await new Promise((r) => srv.close(r))
  return port
}

type Server = { child: ChildProcess; dir: string; exited: Promise<unknown> }
const running = new Set<Server>()

/** Starts `redis-server` on the port and waits until it answers; no persistence, no daemon. */
async function startRedis(port: number, extraArgs: string[] = []): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-why-ingest-'))
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir, ...extraArgs]
  const child = spawn('redis-server', args, {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const server: Server = { child, dir, exited: new Promise((r) => child.once('exit', r)) }
  running.add(server)
  await new Promise<void>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`redis-server on ${port} did not start: ${out}`)), 10_000)
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => reject(new Error(`redis-server on ${port} exited with ${code}: ${out}`)))
  })
  return server
}

async function stopRedis(server: Server, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGCONT')
    server.child.kill(signal)
  }
  await server.exited
  rmSync(server.dir, { recursive: true, force: true })
  running.delete(server)
}

const signals = (from: number, n: number): Signal[] =>
  Array.from({ length: n }, (_, i) => ({
    name: 'isr.shrink',
    at: 1_700_000_000_000 + from + i,
    cluster: 'prod',
    broker: '1',
    labels: { topic: 'orders', partition: String((from + i) % 12) },
    source: `log:server.log:${from + i}`,
  }))

const storedAts = async (store: Store): Promise<Set<number>> =>
  new Set((await store.query({ cluster: 'prod', broker: '1', from: 0, to: Number.MAX_SAFE_INTEGER })).map((s) => s.at))

const fastStore = (port: number) => new RedisStore({ url: `redis://127.0.0.1:${port}`, prefix: 'kafka-why-ingest:', connectTimeoutMs: 300, commandTimeoutMs: 500 })

describe('engine/ingest', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
    for (const s of [...running]) await stopRedis(s, 'SIGKILL')
  })

  it('acknowledges a write once the store holds it and counts invalid signals apart', async () => {
    const store = new MemoryStore()
    const writer = new SignalWriter(store, { batchSize: 7 })
    const events: IngestEvent[] = []
    const w2 = new SignalWriter(store, { onEvent: (e) => events.push(e) })
    const bad = { ...signals(0, 1)[0], name: 'isr.shrinks' }
    const outcome = await writer.write([...signals(0, 50), bad])
    expect(outcome).toEqual({ accepted: 50, rejected: { 'unknown signal': 1 } })
    expect((await storedAts(store)).size).toBe(50)
    expect(await w2.write([bad])).toEqual({ accepted: 0, rejected: { 'unknown signal': 1 } })
    expect(events).toEqual([{ kind: 'invalid', rejected: { 'unknown signal': 1 } }])
    expect(writer.stats()).toMatchObject({ stored: 50, buffered: 0, rejected: { 'unknown signal': 1 }, storeDown: false })
  })

  it.each([
    ['append', (s: Store) => s.append(signals(0, 1))],
    ['query', (s: Store) => s.query({ cluster: 'prod', broker: '1', from: 0, to: 1 })],
    ['facts', (s: Store) => s.facts('prod', '1')],
    ['brokers', (s: Store) => s.brokers()],
    ['transitionAlert', (s: Store) => s.transitionAlert(undefined, { fingerprint: 'f', ruleId: 'r', cluster: 'c', labels: {}, state: 'pending', activeAt: 0, lastSeenAt: 0 })],
    ['acquireLock', (s: Store) => s.acquireLock('digest', 'a', 1000)],
  ])('fails %s promptly with a readable message when nothing listens', async (_, call) => {
    const port = await freePort()
    const store = fastStore(port)
    cleanups.push(() => store.close())
    for (let attempt = 0; attempt < 2; attempt++) {
      const started = performance.now()
      const err = await call(store).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(StoreUnavailableError)
      expect((err as Error).message).toBe(`cannot reach Redis at redis://127.0.0.1:${port}: connection refused`)
      expect(performance.now() - started).toBeLessThan(2000)
    }
  })

  it.each([
    ['garbage', "cannot use Redis URL 'garbage': not a URL; expected redis://host:port"],
    ['http://127.0.0.1:6379', "cannot use Redis URL 'http://127.0.0.1:6379': unsupported scheme 'http:'; expected redis:// or rediss://"],
    ['redis://127.0.0.1:6379/zero', "cannot use Redis URL 'redis://127.0.0.1:6379/zero': database 'zero' is not a number"],
    ['redis//:hunter2@127.0.0.1', "cannot use Redis URL 'redis//:***@127.0.0.1': not a URL; expected redis://host:port"],
  ])('refuses the unusable REDIS_URL %s on first use', async (url, message) => {
    const store = new RedisStore({ url })
    cleanups.push(() => store.close())
    await expect(store.query({ cluster: 'c', from: 0, to: 1 })).rejects.toThrow(new StoreUnavailableError(message))
  })

  it('says authentication failed, without printing the password, when the password is wrong', async () => {
    const port = await freePort()
    await startRedis(port, ['--requirepass', 'right-secret'])
    const store = new RedisStore({ url: `redis://:wrong-secret@127.0.0.1:${port}`, connectTimeoutMs: 300, commandTimeoutMs: 500 })
    cleanups.push(() => store.close())
    const err = await store.brokers().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(StoreUnavailableError)
    expect((err as Error).message).toBe(`cannot reach Redis at redis://:***@127.0.0.1:${port}: authentication failed`)
  })

  it('buffers while Redis is down, refuses what does not fit, and stores the rest once it is up', async () => {
    const port = await freePort()
    const store = fastStore(port)
    const events: IngestEvent[] = []
    const writer = new SignalWriter(store, { batchSize: 200, maxBuffered: 1000, retryInitialMs: 50, retryMaxMs: 200, onEvent: (e) => events.push(e) })
    cleanups.push(() => store.close(), () => writer.close())

    let acked = false
    const first = writer.write(signals(0, 600)).then((o) => ((acked = true), o))
    const second = writer.write(signals(600, 300))
    await waitFor('the writer to notice the outage', () => writer.stats().storeDown)
    await sleep(300)
    expect(acked).toBe(false)
    expect(writer.stats()).toMatchObject({ buffered: 900, stored: 0, storeDown: true })
    expect(events.find((e) => e.kind === 'store-down')).toMatchObject({ message: `cannot reach Redis at redis://127.0.0.1:${port}: connection refused` })

    expect(await writer.write(signals(900, 101))).toEqual({ accepted: 0, rejected: { 'buffer full': 101 } })
    expect(events).toContainEqual({ kind: 'buffer-full', refused: 101, buffered: 900, capacity: 1000 })
    const third = writer.write(signals(1001, 100))

    await startRedis(port)
    expect(await first).toEqual({ accepted: 600, rejected: {} })
    expect(await second).toEqual({ accepted: 300, rejected: {} })
    expect(await third).toEqual({ accepted: 100, rejected: {} })
    const ats = await storedAts(store)
    expect(ats.size).toBe(1000)
    for (const s of signals(900, 101)) expect(ats.has(s.at)).toBe(false)
    expect(events.some((e) => e.kind === 'store-up')).toBe(true)
    expect(writer.stats()).toMatchObject({ buffered: 0, stored: 1000, rejected: { 'buffer full': 101 }, storeDown: false })
  })

  it.each([1, 3])('retries through a Redis restart and a frozen Redis without losing an acknowledged signal (%i appends in flight)', async (concurrency) => {
    const port = await freePort()
    let server = await startRedis(port)
    const store = fastStore(port)
    const writer = new SignalWriter(store, { batchSize: 100, concurrency, maxBuffered: 5000, retryInitialMs: 50, retryMaxMs: 200 })
    cleanups.push(() => store.close(), () => writer.close())
    const acknowledged = new Set<number>()
    const write = (from: number, n: number) =>
      writer.write(signals(from, n)).then((o) => {
        if (o.accepted === n) for (const s of signals(from, n)) acknowledged.add(s.at)
        return o
      })

    await write(0, 300)
    // Frozen: connections stay open but nothing answers, so commands time out.
    server.child.kill('SIGSTOP')
    const duringFreeze = write(300, 300)
    await waitFor('the writer to notice the frozen Redis', () => writer.stats().storeDown)
    server.child.kill('SIGCONT')
    expect((await duringFreeze).accepted).toBe(300)
    expect(await storedAts(store)).toEqual(new Set([...acknowledged]))

    // Killed: the server is gone; a fresh one (no persistence) takes its port.
    await stopRedis(server, 'SIGKILL')
    const duringOutage = write(600, 400)
    await waitFor('the writer to notice the outage', () => writer.stats().storeDown)
    expect(writer.stats()).toMatchObject({ buffered: 400 })
    server = await startRedis(port)
    expect((await duringOutage).accepted).toBe(400)
    const afterRestart = await storedAts(store)
    for (const s of signals(600, 400)) expect(afterRestart.has(s.at)).toBe(true)
    expect(writer.stats()).toMatchObject({ stored: 1000, buffered: 0, storeDown: false })
  })

  it('answers still-unstored signals as "writer closed" on close, never as stored', async () => {
    const port = await freePort()
    const store = fastStore(port)
    const writer = new SignalWriter(store, { retryInitialMs: 50, retryMaxMs: 100 })
    cleanups.push(() => store.close())
    const pending = writer.write(signals(0, 10))
    await sleep(200)
    const stats = await writer.close(100)
    expect(await pending).toEqual({ accepted: 0, rejected: { 'writer closed': 10 } })
    expect(stats).toMatchObject({ stored: 0, buffered: 0, rejected: { 'writer closed': 10 } })
    expect(await writer.write(signals(10, 1))).toEqual({ accepted: 0, rejected: { 'writer closed': 1 } })
  })
})
