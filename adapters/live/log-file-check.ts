import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'

/**
 * Whether a configured log file can be read, as serve reports it on /healthz and /metrics. The tail
 * itself waits quietly for a file to appear (a broker not started yet, a rotation in progress); this
 * says so out loud, so a mistyped path or a lost permission shows as degraded instead of "ok" over a
 * service that monitors nothing.
 */

/** Why a log path cannot be read ("no such file (ENOENT)"), or undefined when it can. */
export async function logFileProblem(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path)
    if (s.isDirectory()) return 'is a directory, not a log file'
    await access(path, constants.R_OK)
    return undefined
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return 'no such file (ENOENT)'
    if (code === 'EACCES' || code === 'EPERM') return `not readable by this process (${code})`
    if (code === 'ENOTDIR') return 'a parent of the path is not a directory (ENOTDIR)'
    return code ?? (err as Error).message
  }
}

/**
 * A problem must be seen at this many checks in a row before a path that was readable is reported:
 * a rotation (rename, then create) leaves the path missing for a moment. At start one is enough.
 */
export const LOG_CHECKS_BEFORE_REPORT = 2
