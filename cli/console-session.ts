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
 * Reads `--replay`, `--no-replay`, `--config`, `--now` and `--help`; the command's own options go to
 * `own`, which takes the option and a reader of its value and says whether it knew it. A bad option
 * prints the problem with the usage and gives 2; `--help` prints the usage and gives 0.
 */
export function parseSessionArgs(command: string, usage: string, argv: string[], own: (option: string, value: () => string) => boolean): SessionArgs | number {
  const args: SessionArgs = { replay: DEFAULT_INCIDENT }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const next = () => {
      const v = argv[++i]
      if (v === undefined) throw new ConfigError([`${a} needs a value`])
      return v
    }
    try {
      if (a === '--replay') args.replay = next()
      else if (a === '--no-replay') args.replay = null
      else if (a === '--config') args.configPath = next()
      else if (a === '--now') {
        const v = next()
        args.now = Date.parse(v)
        if (Number.isNaN(args.now)) throw new ConfigError([`--now: '${v}' is not an ISO time`])
      } else if (a === '--help' || a === '-h') {
        console.log(usage)
        return 0
      } else if (!own(a, next)) throw new ConfigError([`unknown option '${a}'`])
    } catch (err) {
      console.error(`kafka-why ${command}: ${(err as Error).message}\n\n${usage}`)
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
