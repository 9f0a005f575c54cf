import { connect } from 'node:net'
import { readFile } from 'node:fs/promises'

/** Options for {@link waitFor}. */
export type WaitOptions = {
  timeoutMs: number
  intervalMs?: number
  /** What is awaited, for the timeout message. */
  what: string
  /** Returns a reason to give up early (e.g. the process died), or undefined to keep waiting. */
  abortIf?: () => string | undefined
}

/** Polls until check() is true; throws a message naming what never became ready. */
export async function waitFor(check: () => Promise<boolean> | boolean, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    const abort = options.abortIf?.()
    if (abort) throw new Error(`${options.what}: ${abort}`)
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`${options.what}: not ready after ${options.timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250))
  }
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export function portAnswers(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port })
    const done = (ok: boolean) => {
      sock.destroy()
      resolve(ok)
    }
    sock.setTimeout(timeoutMs, () => done(false))
    sock.once('connect', () => done(true))
    sock.once('error', () => done(false))
  })
}

/** True when the file exists and some line matches. */
export async function fileHasLine(path: string, pattern: RegExp): Promise<boolean> {
  try {
    return pattern.test(await readFile(path, 'utf8'))
  } catch {
    return false
  }
}

/** The last lines of a file, for error messages; empty when it cannot be read. */
export async function tailOf(path: string, lines = 20): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).split('\n').slice(-lines - 1).join('\n')
  } catch {
    return ''
  }
}
