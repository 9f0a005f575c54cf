import { existsSync } from 'node:fs'
import { DEFAULT_INCIDENT, openConsole, type ConsoleOptions, type ConsoleSession } from '../bot/console/console-context.js'
import { ConfigError } from '../bot/config.js'
import { reportStoreUnavailable } from './command-setup.js'

/**
 * What the commands that run the bot in a terminal (console, digest) share: the options that choose
 * the incident, configuration and clock, and opening the session with one clear line on bad input.
 */

/** The session options every such command takes; the incident defaults to the first seed. */
export type SessionArgs = { replay: string | null; configPath?: string; now?: number }

/**
 * The session options as the command line gave them (--replay, --no-replay, --config, --now); a
 * `--now` that is not a time prints the problem and gives 2.
 */
export function readSessionOptions(command: string, options: { replay?: string | false; config?: string; now?: string }): SessionArgs | number {
  const args: SessionArgs = { replay: options.replay === false ? null : (options.replay ?? DEFAULT_INCIDENT), configPath: options.config }
  if (options.now !== undefined) {
    args.now = Date.parse(options.now)
    if (Number.isNaN(args.now)) {
      console.error(`kafka-why ${command}: --now: '${options.now}' is not an ISO time\n(kafka-why ${command} --help for usage)`)
      return 2
    }
  }
  return args
}

/** Opens the console session; a bad configuration, a missing file or an unreachable Redis is one line and an exit code. */
export async function openSession(command: string, opts: ConsoleOptions): Promise<ConsoleSession | number> {
  if (opts.replay && !existsSync(opts.replay)) {
    console.error(`kafka-why ${command}: no such file or directory: ${opts.replay}`)
    return 2
  }
  try {
    return await openConsole(opts)
  } catch (err) {
    if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error(`kafka-why ${command}: ${(err as Error).message}`)
      return 2
    }
    const code = reportStoreUnavailable(`kafka-why ${command}`, err)
    if (code !== undefined) return code
    throw err
  }
}
