import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { firstReason, FaultUnavailable, needsCgroupV1, needsRoot } from './requirements.js'

/** The cgroup v1 controllers the lab limits a broker with. */
export type CgroupController = 'cpu' | 'memory' | 'pids' | 'blkio'

const CGROUP_ROOT = '/sys/fs/cgroup'

/**
 * Why a cgroup v1 controller cannot limit a broker here, or undefined: root, the controller mounted
 * at /sys/fs/cgroup/<controller> (a v1 hierarchy, not the unified v2 one) with the files the lab writes.
 */
export function cgroupUnavailable(controller: CgroupController, files: string[]): string | undefined {
  return firstReason(needsRoot(`a ${controller} cgroup limit`), needsCgroupV1(controller, files))
}

/** The path of a process's cgroup in one v1 hierarchy, relative to its mount ('/' for the root), from /proc/PID/cgroup. */
export function cgroupOf(pid: number, controller: CgroupController): string {
  for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
    const [, list, path] = line.split(':')
    if (list?.split(',').includes(controller)) return path
  }
  throw new Error(`process ${pid} is in no ${controller} cgroup (/proc/${pid}/cgroup)`)
}

/** A cgroup the lab made; release() moves its processes back and removes it. */
export type LabCgroup = {
  controller: CgroupController
  /** /sys/fs/cgroup/<controller>/kafka-why-lab-<hex> */
  path: string
  /** Writes one of the group's files (a limit). */
  set(file: string, value: string | number): void
  /** Reads one of the group's files, trimmed. */
  read(file: string): string
  /**
   * Moves a process with all its threads into the group (cgroup.procs), remembering the group it came
   * from so release() can put it back.
   */
  add(pid: number): void
  /** Moves every process still in the group back where it came from and removes the group; idempotent. */
  release(): void
}

/**
 * Makes a new cgroup under a v1 controller's root, named kafka-why-lab-<random>. Throws
 * FaultUnavailable when the machine cannot (see {@link cgroupUnavailable}).
 */
export function makeCgroup(controller: CgroupController, files: string[] = []): LabCgroup {
  const reason = cgroupUnavailable(controller, files)
  if (reason) throw new FaultUnavailable(reason)
  const path = join(CGROUP_ROOT, controller, `kafka-why-lab-${randomBytes(4).toString('hex')}`)
  // The kernel fills the new directory with the controller's files.
  try {
    mkdirSync(path)
  } catch (err) {
    throw new Error(`cannot create cgroup ${path}: ${(err as Error).message}`)
  }
  const cameFrom = new Map<number, string>()
  let released = false
  return {
    controller,
    path,
    set(file, value) {
      writeFileSync(join(path, file), String(value))
    },
    read(file) {
      return readFileSync(join(path, file), 'utf8').trim()
    },
    add(pid) {
      cameFrom.set(pid, cgroupOf(pid, controller))
      writeFileSync(join(path, 'cgroup.procs'), String(pid))
    },
    release() {
      if (released) return
      released = true
      const left = existsSync(join(path, 'cgroup.procs'))
        ? readFileSync(join(path, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number)
        : []
      for (const pid of left) {
        const back = join(CGROUP_ROOT, controller, cameFrom.get(pid) ?? '/', 'cgroup.procs')
        try {
          writeFileSync(back, String(pid))
        } catch {
          // exited meanwhile
        }
      }
      // A group whose last process has just exited can stay busy for a moment.
      for (let i = 0; ; i++) {
        try {
          rmdirSync(path)
          return
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code
          if (code === 'ENOENT') return
          if (code !== 'EBUSY' || i >= 50) throw new Error(`cannot remove cgroup ${path}: ${(err as Error).message}`)
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
        }
      }
    },
  }
}

/** A thread count of a process: the entries of /proc/PID/task. */
export function threadCount(pid: number): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
}

/** The major:minor of a block device, for blkio's per-device files. */
export function deviceNumbers(device: string): string {
  const name = device.replace(/^\/dev\//, '')
  return readFileSync(`/sys/class/block/${name}/dev`, 'utf8').trim()
}

/** Limits of blkio's throttle files, per device; a missing one is left unlimited. */
export type DeviceThrottle = { readBps?: number; writeBps?: number; readIops?: number; writeIops?: number }

const THROTTLE_FILES: Record<keyof DeviceThrottle, string> = {
  readBps: 'blkio.throttle.read_bps_device',
  writeBps: 'blkio.throttle.write_bps_device',
  readIops: 'blkio.throttle.read_iops_device',
  writeIops: 'blkio.throttle.write_iops_device',
}

/** Why a block device cannot be throttled here (blkio throttle files of cgroup v1), or undefined. */
export function deviceThrottleUnavailable(): string | undefined {
  return cgroupUnavailable('blkio', Object.values(THROTTLE_FILES))
}

/**
 * Throttles every I/O to one block device in the root blkio cgroup, so the kernel's flusher and
 * journal threads are held to it as well as the processes writing: the device is slow for everyone,
 * as a failing or saturated disk is. Meant for a loop device only the lab uses. Returns the undo,
 * which writes 0 (no limit) for each file it set; idempotent.
 */
export function throttleDevice(device: string, limits: DeviceThrottle): () => void {
  const reason = deviceThrottleUnavailable()
  if (reason) throw new FaultUnavailable(reason)
  const dev = deviceNumbers(device)
  const set: string[] = []
  const undo = () => {
    for (const file of set.splice(0)) writeFileSync(join(CGROUP_ROOT, 'blkio', file), `${dev} 0`)
  }
  try {
    for (const [key, file] of Object.entries(THROTTLE_FILES) as [keyof DeviceThrottle, string][]) {
      const v = limits[key]
      if (v === undefined) continue
      writeFileSync(join(CGROUP_ROOT, 'blkio', file), `${dev} ${v}`)
      set.push(file)
    }
  } catch (err) {
    undo()
    throw err
  }
  return undo
}
