import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { LiveConfigError, parseLiveConfig } from '../../adapters/live/live-config.js'
import { startLiveService } from '../../adapters/live/live-service.js'
import { openStore } from '../../engine/store/open-store.js'
import { createLogger, logSettingsFrom, type Logger } from '../../logging/logger.js'
import { redactText } from '../../secrets/redact.js'
import type { SERVE_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('serve', argv)

/** `kafka-why serve`: the whole product in one process. */
export async function execute({ options: args }: CommandInput<typeof SERVE_OPTIONS>): Promise<number> {
  const logSettings = logSettingsFrom(process.env, args.logLevel)
  if ('error' in logSettings) {
    console.error(`kafka-why serve: ${logSettings.error}`)
    return 2
  }
  const file = args.config ?? process.env.KAFKA_WHY_CONFIG ?? 'kafka-why.yaml'
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    console.error(`kafka-why serve: cannot read config '${file}': ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
    return 2
  }
  let config
  try {
    config = parseLiveConfig(text, file)
    if (args.listen) config = { ...config, listen: parseListen(args.listen) }
  } catch (err) {
    // A config problem is told as file:line:col lines; anything else reading it is still one line,
    // never a stack trace.
    const message = err instanceof LiveConfigError ? err.message : `${file}:1:1: cannot read the configuration: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`
    console.error(redactText(`kafka-why serve: ${message}`))
    return 2
  }

  const log = createLogger({ ...logSettings, bindings: { cmd: 'serve' } })
  const store = openStore(process.env)
  const removeGuards = guardProcess(log)
  let service
  try {
    service = await startLiveService({ config, store, bot: args.bot, log })
  } catch (err) {
    log.fatal(`cannot start: ${(err as Error).message}`)
    removeGuards()
    await store.close()
    return 1
  }
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve())
    process.once('SIGINT', () => resolve())
  })
  log.info('stopping')
  await service.stop()
  await store.close()
  removeGuards()
  return 0
}

/**
 * serve is a long-running process: a rejection nobody awaited (a library's background promise, a
 * dependency failing between two awaits) is logged with an id, redacted, and the process keeps
 * serving instead of exiting with a stack trace that may carry a token.
 */
function guardProcess(log: Logger): () => void {
  const onRejection = (reason: unknown) => {
    const id = `E-${randomBytes(4).toString('hex')}`
    log.error({ errorId: id }, 'unexpected rejection, still serving', reason)
  }
  process.on('unhandledRejection', onRejection)
  return () => process.off('unhandledRejection', onRejection)
}

function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:(.+):)?(\d{1,5})$/.exec(text)
  if (!m || Number(m[2]) > 65535) throw new LiveConfigError([`--listen: '${text}' is not [host:]port`])
  return { host: m[1] ?? '127.0.0.1', port: Number(m[2]) }
}
