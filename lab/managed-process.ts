import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'

/**
 * A process the lab started, in its own process group, so stopping it takes everything it forked with
 * it and a crashed test run never leaves a broker behind.
 */
export type ManagedProcess = {
  /** Process id, which is also the process group id. */
  pid: number
  /** What was run, for error messages. */
  label: string
  /** Resolves with the exit code (or the signal name) once the process has gone. */
  exited: Promise<number | string>
  /** True until the process has exited. */
  alive(): boolean
  /** Sends a signal to the whole process group; ignored once it has gone. */
  signal(sig: NodeJS.Signals): void
  /** SIGTERM, then SIGKILL after graceMs; resolves when the process has gone. */
  stop(graceMs?: number): Promise<void>
}

/** Options for {@link spawnManaged}. */
export type SpawnOptions = {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** File that receives stdout (appended). Without it stdout is discarded. */
  stdoutFile?: string
  /** File that receives stderr (appended). Without it stderr is discarded. */
  stderrFile?: string
  /** Soft and hard RLIMIT_NOFILE for the process, set with prlimit(1) before exec. */
  fdLimit?: number
  /** Text written to stdin, which is then closed. */
  stdin?: string
  /** Run as this user and group (setpriv(1), from root) so file permissions apply to the process. */
  runAs?: { uid: number; gid: number }
}

const live = new Set<ManagedProcess>()
let hooksInstalled = false

function killGroupNow(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig)
  } catch {
    // already gone
  }
}

/** Kills every live lab process at once; the exit hooks call it, tests may too. */
export function killAllManaged(): void {
  for (const p of live) {
    killGroupNow(p.pid, 'SIGCONT')
    killGroupNow(p.pid, 'SIGKILL')
  }
  live.clear()
}

function installExitHooks(): void {
  if (hooksInstalled) return
  hooksInstalled = true
  process.on('exit', killAllManaged)
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAllManaged()
      process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[sig])
    })
  }
}

/**
 * A watchdog outside the child's process group that kills the group when this Node process dies
 * without running its exit hooks (SIGKILL, a crashed test worker). It polls once a second.
 */
function startWatchdog(childPid: number): void {
  const script =
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; ' +
    'if kill -0 "$2" 2>/dev/null; then kill -CONT -- "-$2" 2>/dev/null; kill -KILL -- "-$2" 2>/dev/null; fi'
  const dog = spawn('bash', ['-c', script, 'kafka-why-lab-watchdog', String(process.pid), String(childPid)], {
    detached: true,
    stdio: 'ignore',
  })
  dog.unref()
}

/**
 * Starts a command in a new process group with its output going to files, registered for cleanup on
 * exit. Lab services (ZooKeeper, brokers) and load generators all start through here.
 */
export function spawnManaged(command: string, args: string[], options: SpawnOptions = {}): ManagedProcess {
  installExitHooks()
  const out = options.stdoutFile ? openSync(options.stdoutFile, 'a') : 'ignore'
  const err = options.stderrFile ? openSync(options.stderrFile, 'a') : 'ignore'
  const [userCmd, userArgs] =
    options.runAs !== undefined
      ? ['setpriv', [`--reuid=${options.runAs.uid}`, `--regid=${options.runAs.gid}`, '--clear-groups', '--', command, ...args]]
      : [command, args]
  const [cmd, argv] =
    options.fdLimit !== undefined
      ? ['prlimit', [`--nofile=${options.fdLimit}:${options.fdLimit}`, '--', userCmd, ...userArgs]]
      : [userCmd, userArgs]
  const child = spawn(cmd, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: [options.stdin !== undefined ? 'pipe' : 'ignore', out, err],
  })
  if (typeof out === 'number') closeSync(out)
  if (typeof err === 'number') closeSync(err)
  if (options.stdin !== undefined && child.stdin) child.stdin.end(options.stdin)
  const label = [command, ...args].join(' ').slice(0, 200)
  if (child.pid === undefined) {
    const failed: ManagedProcess = {
      pid: -1,
      label,
      exited: Promise.resolve('ENOENT'),
      alive: () => false,
      signal: () => {},
      stop: async () => {},
    }
    return failed
  }
  const pid = child.pid
  let running = true
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, sig) => {
      running = false
      live.delete(managed)
      resolve(code ?? sig ?? 'unknown')
    })
    child.once('error', (e) => {
      running = false
      live.delete(managed)
      resolve((e as NodeJS.ErrnoException).code ?? 'error')
    })
  })
  const managed: ManagedProcess = {
    pid,
    label,
    exited,
    alive: () => running,
    signal(sig) {
      if (running) killGroupNow(pid, sig)
    },
    async stop(graceMs = 10_000) {
      if (!running) return
      killGroupNow(pid, 'SIGCONT')
      killGroupNow(pid, 'SIGTERM')
      const timer = setTimeout(() => killGroupNow(pid, 'SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
      // Anything the process forked into its group goes too.
      killGroupNow(pid, 'SIGKILL')
    },
  }
  live.add(managed)
  startWatchdog(pid)
  return managed
}
