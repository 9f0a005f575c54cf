import { createReadStream } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * What the kernel says about one broker process: the numbers behind "Too many open files" and
 * "Map failed" (open descriptors against RLIMIT_NOFILE, mapped areas against vm.max_map_count),
 * read from /proc, which no JMX exporter reports in full.
 */
export type ProcStats = {
  pid: number
  fdOpen: number
  /** Soft RLIMIT_NOFILE; undefined when unlimited. */
  fdMax?: number
  mmapCount: number
  mmapMax?: number
  /** The state letter of /proc/<pid>/stat (R, S, D, T, t, Z, X, I); absent when stat could not be read. */
  state?: string
  /** utime + stime of /proc/<pid>/stat, in ms. */
  cpuMs?: number
}

/**
 * Linux reports CPU times in USER_HZ ticks, which the kernel fixes at 100 for user space on every
 * architecture (sysconf(_SC_CLK_TCK)); Node has no sysconf to ask.
 */
const MS_PER_TICK = 10

/**
 * State and CPU time from /proc/<pid>/stat text. The command name sits in parentheses and may hold
 * spaces or ')' itself, so the fields are counted from the last ')'.
 */
export function parseProcStat(stat: string): { state: string; cpuMs: number } | undefined {
  const close = stat.lastIndexOf(')')
  if (close < 0) return undefined
  // After ')': state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8) flags(9) minflt(10) cminflt(11) majflt(12) cmajflt(13) utime(14) stime(15)
  const f = stat.slice(close + 1).trim().split(/\s+/)
  const utime = Number(f[11])
  const stime = Number(f[12])
  if (!f[0] || !Number.isFinite(utime) || !Number.isFinite(stime)) return undefined
  return { state: f[0], cpuMs: (utime + stime) * MS_PER_TICK }
}

/** The catalogue's words for a /proc state letter (process.state's label). */
export function procStateName(letter: string): string {
  switch (letter) {
    case 'R':
      return 'running'
    case 'S':
      return 'sleeping'
    case 'D':
      return 'disk_wait'
    case 'T':
      return 'stopped'
    case 't':
      return 'traced'
    case 'Z':
      return 'zombie'
    case 'X':
    case 'x':
      return 'dead'
    case 'I':
      return 'idle'
    default:
      return 'other'
  }
}

/** Why a read failed, in words an operator acts on. */
export class ProcReadError extends Error {
  constructor(
    message: string,
    readonly code: 'no-process' | 'permission' | 'bad-pidfile' | 'io',
  ) {
    super(message)
    this.name = 'ProcReadError'
  }
}

/** The soft "Max open files" limit from /proc/<pid>/limits text; undefined for "unlimited" or absent. */
export function parseMaxOpenFiles(limits: string): number | undefined {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits)
  if (!m || m[1] === 'unlimited') return undefined
  const n = Number(m[1])
  return Number.isFinite(n) ? n : undefined
}

async function countLines(file: string): Promise<number> {
  let n = 0
  let last = 10
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) n++
    if (chunk.length) last = chunk[chunk.length - 1]
  }
  return last === 10 ? n : n + 1
}

function translate(err: unknown, pid: number, what: string): never {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ESRCH') throw new ProcReadError(`process ${pid} is not running`, 'no-process')
  if (code === 'EACCES' || code === 'EPERM') throw new ProcReadError(`no permission to read ${what} (run the agent as the broker's user or root)`, 'permission')
  throw new ProcReadError(`cannot read ${what}: ${(err as Error).message}`, 'io')
}

/** Reads the four numbers, the state and the CPU time for `pid`; `procRoot` is /proc except in tests of the parsing. */
export async function readProcStats(pid: number, procRoot = '/proc'): Promise<ProcStats> {
  const dir = path.join(procRoot, String(pid))
  const stat = await readFile(path.join(dir, 'stat'), 'utf8').then(parseProcStat, () => undefined)
  // A zombie has exited and holds nothing: its fd and maps are gone, its state is the news.
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return { pid, fdOpen: 0, mmapCount: 0, state: stat.state, cpuMs: stat.cpuMs }
  const fdOpen = await readdir(path.join(dir, 'fd')).then((e) => e.length, (err) => translate(err, pid, `${dir}/fd`))
  const mmapCount = await countLines(path.join(dir, 'maps')).catch((err) => translate(err, pid, `${dir}/maps`))
  const limits = await readFile(path.join(dir, 'limits'), 'utf8').catch((err) => translate(err, pid, `${dir}/limits`))
  const maxMap = await readFile(path.join(procRoot, 'sys', 'vm', 'max_map_count'), 'utf8').catch(() => undefined)
  const stats: ProcStats = { pid, fdOpen, mmapCount }
  if (stat) {
    stats.state = stat.state
    stats.cpuMs = stat.cpuMs
  }
  const fdMax = parseMaxOpenFiles(limits)
  if (fdMax !== undefined) stats.fdMax = fdMax
  const mmapMax = maxMap === undefined ? NaN : Number(maxMap.trim())
  if (Number.isFinite(mmapMax)) stats.mmapMax = mmapMax
  return stats
}

/** `--pid` takes a number or a pid file (Kafka's, systemd's); the file is re-read each time so a restart is followed. */
export async function resolvePid(spec: string): Promise<number> {
  if (/^\d+$/.test(spec)) return Number(spec)
  const text = await readFile(spec, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new ProcReadError(`cannot read pid file ${spec}: ${err.code ?? err.message}`, 'bad-pidfile')
  })
  const m = /^\s*(\d+)\s*$/.exec(text)
  if (!m) throw new ProcReadError(`pid file ${spec} does not hold a process id`, 'bad-pidfile')
  return Number(m[1])
}
