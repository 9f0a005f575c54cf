import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cgroupOf, cgroupUnavailable, deviceNumbers, deviceThrottleUnavailable, makeCgroup, threadCount, throttleDevice } from '../../lab/faults/cgroups.js'
import { firstReason, needsCommand, needsLoopDevices } from '../../lab/faults/requirements.js'

// The lab's cgroup v1 injectors on this machine's kernel, without Kafka: a process moved in, limited,
// and put back where it was; the group removed. Skipped, saying why, where cgroup v1 or root is missing.
const pidsMissing = cgroupUnavailable('pids', [])
const blkioMissing = firstReason(deviceThrottleUnavailable(), needsLoopDevices(), needsCommand('losetup', 'mount'))

function sleeper(): { pid: number; kill: () => void } {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' })
  return { pid: child.pid!, kill: () => child.kill('SIGKILL') }
}

describe.skipIf(pidsMissing !== undefined)(`cgroup v1 groups${pidsMissing ? ` (skipped: ${pidsMissing})` : ''}`, () => {
  it('moves a process into a pids group, holds it to pids.max, then moves it back and removes the group', () => {
    const before = cgroupOf(process.pid, 'pids')
    const shell = spawn('sh', ['-c', 'read _'], { stdio: ['pipe', 'ignore', 'ignore'] })
    const g = makeCgroup('pids')
    try {
      expect(existsSync(join(g.path, 'pids.max'))).toBe(true)
      g.set('pids.max', 1)
      g.add(shell.pid!)
      expect(cgroupOf(shell.pid!, 'pids')).toBe(`/${g.path.split('/').pop()}`)
      expect(threadCount(shell.pid!)).toBe(1)
      // The group is full: a fork from inside it fails, and the kernel counts the refusal.
      const fork = spawnSync('sh', ['-c', `echo $$ > ${g.path}/cgroup.procs && /bin/true`], { encoding: 'utf8' })
      expect(fork.status).not.toBe(0)
      expect(g.read('pids.events')).toMatch(/^max [1-9]/)
    } finally {
      g.release()
      shell.kill('SIGKILL')
    }
    expect(existsSync(g.path)).toBe(false)
    expect(cgroupOf(process.pid, 'pids')).toBe(before)
  })

  it('puts a process it moved back into the group it came from when released', () => {
    const p = sleeper()
    const from = cgroupOf(p.pid, 'cpu')
    const g = makeCgroup('cpu', ['cpu.cfs_quota_us'])
    try {
      g.set('cpu.cfs_quota_us', 5_000)
      g.add(p.pid)
      expect(cgroupOf(p.pid, 'cpu')).not.toBe(from)
      expect(g.read('cpu.cfs_quota_us')).toBe('5000')
      g.release()
      expect(cgroupOf(p.pid, 'cpu')).toBe(from)
      expect(existsSync(g.path)).toBe(false)
      g.release()
    } finally {
      g.release()
      p.kill()
    }
  })
})

describe.skipIf(blkioMissing !== undefined)(`blkio device throttle${blkioMissing ? ` (skipped: ${blkioMissing})` : ''}`, () => {
  it('throttles a loop device\'s direct writes to about the limit and lifts it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafka-why-cgroup-'))
    const image = join(dir, 'disk.img')
    spawnSync('truncate', ['-s', '16M', image])
    const device = spawnSync('losetup', ['-f', '--show', image], { encoding: 'utf8' }).stdout.trim()
    let lift: (() => void) | undefined
    try {
      expect(device).toMatch(/^\/dev\/loop\d+$/)
      const dev = deviceNumbers(device)
      lift = throttleDevice(device, { writeBps: 1024 * 1024 })
      const t0 = Date.now()
      const dd = spawnSync('dd', ['if=/dev/zero', `of=${device}`, 'bs=1M', 'count=2', 'oflag=direct'], { encoding: 'utf8' })
      const took = Date.now() - t0
      expect(dd.status).toBe(0)
      // 2 MiB at 1 MiB/s: about 2 s (the first second's budget is not pre-spent).
      expect(took).toBeGreaterThan(900)
      lift()
      expect(spawnSync('cat', ['/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device'], { encoding: 'utf8' }).stdout).not.toContain(`${dev} `)
    } finally {
      lift?.()
      if (device) spawnSync('losetup', ['-d', device])
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
