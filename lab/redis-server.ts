import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { freePort } from './free-port.js'
import { spawnManaged, type ManagedProcess } from './managed-process.js'
import { waitFor } from './wait-for.js'

/**
 * A redis-server of our own on a free loopback port, for what must not touch the shared Redis on
 * 6379: killing it mid-command, or reading `INFO memory` of a server that holds only our keys. No
 * persistence, no daemon; it dies with the process that started it (see spawnManaged).
 */
export type LabRedis = {
  url: string
  port: number
  process: ManagedProcess
  /** SIGKILL, the way a crashed or OOM-killed Redis goes; resolves once it has gone. */
  kill(): Promise<void>
  /** Stops it (if still running) and removes its directory. */
  stop(): Promise<void>
}

/** Starts one and resolves once it answers PING. */
export async function startLabRedis(extraArgs: string[] = []): Promise<LabRedis> {
  const port = await freePort()
  const dir = await mkdtemp(path.join(tmpdir(), 'kafka-why-redis-'))
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir, ...extraArgs]
  const proc = spawnManaged('redis-server', args, { stdoutFile: path.join(dir, 'redis.log') })
  const url = `redis://127.0.0.1:${port}`
  const ping = async () => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false })
    r.on('error', () => undefined)
    try {
      await r.connect()
      return (await r.ping()) === 'PONG'
    } catch {
      return false
    } finally {
      r.disconnect()
    }
  }
  try {
    await waitFor(ping, { timeoutMs: 10_000, intervalMs: 50, what: `redis-server on ${port}`, abortIf: () => (proc.alive() ? undefined : 'exited') })
  } catch (err) {
    await proc.stop(1000)
    await rm(dir, { recursive: true, force: true })
    throw err
  }
  return {
    url,
    port,
    process: proc,
    async kill() {
      proc.signal('SIGKILL')
      await proc.exited
    },
    async stop() {
      await proc.stop(2000)
      await rm(dir, { recursive: true, force: true })
    },
  }
}
