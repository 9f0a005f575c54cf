import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

/**
 * Thrown by an injector or scenario when this machine cannot inject its fault (no root, a missing
 * tool or kernel feature); the message is the one-line reason shown as the skip.
 */
export class FaultUnavailable extends Error {}

/** Why a fault needing root cannot run here, or undefined when the process is root. */
export function needsRoot(what: string): string | undefined {
  return process.getuid?.() === 0 ? undefined : `${what} needs root (mounts, file ownership, signals to another user's processes)`
}

/** Why a command-line tool is missing, with the Debian package that has it, or undefined when present. */
export function needsCommand(command: string, debianPackage: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
  return r.status === 0 ? undefined : `${command} not found (apt-get install ${debianPackage})`
}

/** Why the kernel cannot mount a file system type, or undefined when /proc/filesystems lists it. */
export function needsFileSystem(type: string): string | undefined {
  const list = existsSync('/proc/filesystems') ? readFileSync('/proc/filesystems', 'utf8') : ''
  return new RegExp(`\\s${type}$`, 'm').test(list) ? undefined : `the kernel has no ${type} file system (/proc/filesystems)`
}

/** Why a loop device cannot be set up, or undefined when /dev/loop-control is there. */
export function needsLoopDevices(): string | undefined {
  return existsSync('/dev/loop-control') ? undefined : 'no loop devices (/dev/loop-control missing)'
}

/** The first reason among several checks, or undefined when all pass. */
export function firstReason(...reasons: (string | undefined)[]): string | undefined {
  return reasons.find((r) => r !== undefined)
}

/** Runs a command and throws with its stderr when it fails: injectors are all-or-nothing. */
export function runOrThrow(command: string, args: string[], what: string): string {
  const r = spawnSync(command, args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${what}: ${command} ${args.join(' ')} failed: ${(r.stderr || r.error?.message || '').trim()}`)
  return r.stdout
}

/**
 * Why a cgroup v1 controller cannot be used here, or undefined: mounted at /sys/fs/cgroup/<controller>
 * as a v1 hierarchy (cgroup.procs at its root, not only the unified v2 one) with the files the lab writes.
 */
export function needsCgroupV1(controller: string, files: string[] = []): string | undefined {
  const dir = `/sys/fs/cgroup/${controller}`
  if (!existsSync(`${dir}/cgroup.procs`)) return `no cgroup v1 ${controller} controller mounted at ${dir}`
  const missing = files.find((f) => !existsSync(`${dir}/${f}`))
  return missing ? `the cgroup v1 ${controller} controller has no ${missing} (${dir})` : undefined
}

/** The user a broker is run as when permissions must bite or its own packets be matched: nobody. */
export const UNPRIVILEGED = { uid: 65534, gid: 65534 }
