import { Console } from 'node:console'
import { Writable } from 'node:stream'
import { runCommandLine } from '../../cli/command-line/program.js'
import type { CliResult } from './kafka-why-cli.js'

/**
 * Runs a kafka-why command line inside the test's process: the same runCommandLine the entry point
 * (cli/kafka-why.mjs) calls, with what it prints captured and the environment kafkaWhy() would give
 * it (the caller's REDIS_URL and REDIS_CLUSTER_NODES dropped, `env` added, `cwd` as the working
 * directory). A spawned process costs about 2.5 s of CPU loading modules through tsx; in-process the
 * modules are loaded once per test file. For tests about what a command does; exit codes through the
 * process boundary stay with kafkaWhy().
 *
 * Calls run one at a time (the process's output, environment and directory are borrowed for the
 * call), so tests using this must not run concurrently within a file.
 */
export async function kafkaWhyInProcess(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  const previous = running
  let release!: () => void
  running = new Promise((resolve) => (release = resolve))
  await previous
  try {
    return await runBorrowingProcess(args, env, cwd)
  } finally {
    release()
  }
}

let running: Promise<void> = Promise.resolve()

async function runBorrowingProcess(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))
        done()
      },
    })
  const outStream = sink((t) => (stdout += t))
  const errStream = sink((t) => (stderr += t))
  const captureWrite = (append: (text: string) => void) =>
    ((chunk: string | Uint8Array, encodingOrDone?: BufferEncoding | ((err?: Error | null) => void), done?: (err?: Error | null) => void) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
      const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done
      if (callback) queueMicrotask(() => callback())
      return true
    }) as typeof process.stdout.write

  const saved = {
    console: globalThis.console,
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
    stdoutTty: process.stdout.isTTY,
    cwd: process.cwd(),
    env: { ...process.env },
  }
  // The environment kafkaWhy() gives a spawned command: without the caller's store, plus `env`.
  delete process.env.REDIS_URL
  delete process.env.REDIS_CLUSTER_NODES
  Object.assign(process.env, env)
  globalThis.console = new Console({ stdout: outStream, stderr: errStream })
  process.stdout.write = captureWrite((t) => (stdout += t))
  process.stderr.write = captureWrite((t) => (stderr += t))
  // A spawned command's stdout is a pipe: no colour.
  process.stdout.isTTY = false as true
  if (cwd) process.chdir(cwd)
  try {
    const code = await runCommandLine(args)
    return { code, stdout, stderr }
  } catch (err) {
    // What the entry point does with an error nothing caught: the stack on stderr, exit 1.
    return { code: 1, stdout, stderr: `${stderr}${(err as Error)?.stack ?? String(err)}\n` }
  } finally {
    if (cwd) process.chdir(saved.cwd)
    process.stdout.isTTY = saved.stdoutTty as true
    process.stderr.write = saved.stderrWrite
    process.stdout.write = saved.stdoutWrite
    globalThis.console = saved.console
    for (const key of Object.keys(process.env)) if (!(key in saved.env)) delete process.env[key]
    Object.assign(process.env, saved.env)
  }
}
