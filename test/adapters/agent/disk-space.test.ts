import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { readDiskSpace } from '../../../adapters/agent/disk-space.js'
import { HostAgent } from '../../../adapters/agent/host-agent.js'
import type { Signal } from '../../../signals/signal.js'

const run = promisify(execFile)
const scratch = mkdtempSync(path.join(tmpdir(), 'kafka-why-disk-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** df's own figures for the file system under `dir`, in bytes: what an operator compares with. */
async function df(dir: string): Promise<{ avail: number; size: number }> {
  const { stdout } = await run('df', ['-B1', '--output=avail,size', dir])
  const [avail, size] = stdout.trim().split('\n')[1].trim().split(/\s+/).map(Number)
  return { avail, size }
}

describe('adapters/agent/disk-space', () => {
  it('reads the same free and total bytes as df, and names a dir it cannot read instead of failing', async () => {
    const { readings, errors } = await readDiskSpace([scratch, path.join(scratch, 'not-there')])
    expect(readings.map((r) => r.path)).toEqual([scratch])
    expect(errors).toEqual([expect.stringContaining('not-there')])
    const seen = await df(scratch)
    expect(readings[0].sizeBytes).toBe(seen.size)
    // Other processes write to the same file system between the two reads.
    expect(Math.abs(readings[0].availBytes - seen.avail)).toBeLessThan(256 * 1024 * 1024)
  })

  it('ships disk.avail and disk.size for each log dir, also while the broker process is gone', async () => {
    const shipped: Signal[] = []
    const agent = new HostAgent({ cluster: 'c', broker: '7', pid: '999999999', logDirs: [scratch], sink: (s) => void shipped.push(...s), now: () => 1_000 })
    const first = await agent.sampleOnce()
    const second = await agent.sampleOnce()
    expect(first.ok).toBe(false)
    expect(shipped.filter((s) => s.name === 'source.stale')).toHaveLength(1)
    const avail = shipped.filter((s) => s.name === 'disk.avail')
    expect(avail).toHaveLength(2)
    expect(avail[0]).toMatchObject({ at: 1_000, cluster: 'c', broker: '7', labels: { path: scratch } })
    expect(second.signals.map((s) => s.name).sort()).toEqual(['disk.avail', 'disk.size'])
  })
})
