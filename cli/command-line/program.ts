import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { UsageError } from '../usage-error.js'
import { COMMANDS } from './commands.js'
import { completeValues, toArgument, toOptions, type CommandBody, type CommandSpec, type OptionSpecs, type OptionValues } from './option-spec.js'

/**
 * The kafka-why command line on commander: help generated from the option specs, did-you-mean for
 * unknown commands and options, and every usage error as one line and exit code 2, never a parser's
 * raw text or a stack trace. A command's body is imported only when that command runs.
 */

const PROGRAM = 'kafka-why'

/** Runs the command line (argv without node and the script); returns the exit code. */
export async function runCommandLine(argv: readonly string[]): Promise<number> {
  const outcome = { code: 0 }
  // A fresh tree per run: commander keeps parsed values on its Command objects.
  const program = buildProgram(outcome)
  try {
    await program.parseAsync([...argv], { from: 'user' })
  } catch (err) {
    // Help and version exit 0; every other commander exit is a usage error.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2
    throw err
  }
  return outcome.code
}

/** One command as the command line runs it, for callers that hold its arguments (tests, scripts). */
export function runCommand(name: string, argv: readonly string[]): Promise<number> {
  return runCommandLine([name, ...argv])
}

/** The commander tree of every command, with its help and error output; bodies stay unloaded. */
export function buildProgram(outcome: { code: number } = { code: 0 }): Command {
  const program = new Command(PROGRAM).usage('<command> [options]').description('Tells a Kafka team why a broker is sick.').enablePositionalOptions()
  program.version(packageVersion(), '-V, --version', 'print the version')
  configure(program, PROGRAM)
  program.addHelpText('after', `\n${PROGRAM} <command> --help for a command's options; ${PROGRAM} completion bash|zsh for shell completion`)
  for (const spec of COMMANDS) program.addCommand(buildCommand(spec, PROGRAM, outcome))
  return program
}

function buildCommand(spec: CommandSpec, parentPath: string, outcome: { code: number }): Command {
  const path = `${parentPath} ${spec.name}`
  // Descriptions are written as wrapped prose; commander re-wraps them to the terminal's width.
  const command = new Command(spec.name).summary(spec.summary).description((spec.description ?? spec.summary).replace(/(?<!\n)\n(?!\n)/g, ' '))
  configure(command, path)
  command.helpCommand(false)
  for (const argument of spec.arguments ?? []) command.addArgument(toArgument(argument))
  for (const [key, option] of Object.entries(spec.options)) for (const o of toOptions(key, option)) command.addOption(o)
  if (spec.helpAfter) command.addHelpText('after', `\n${spec.helpAfter}`)
  if (spec.passThrough) command.passThroughOptions().allowUnknownOption().allowExcessArguments()
  if (spec.subcommands?.length) {
    // Options after a subcommand's name are the subcommand's (lab cluster --keep), not the parent's.
    command.enablePositionalOptions()
    for (const sub of spec.subcommands) command.addCommand(buildCommand(sub, path, outcome))
  }
  command.action(async () => {
    const body = await loadBody(spec, path)
    if (typeof body === 'number') {
      outcome.code = body
      return
    }
    try {
      outcome.code = await body({ args: command.args, options: completeValues(spec.options, command.opts()) as OptionValues<OptionSpecs> })
    } catch (err) {
      // A body's usage problem reads like the parser's: under the command's name, exit 2.
      if (!(err instanceof UsageError)) throw err
      process.stderr.write(formatUsageError(path, err.message))
      outcome.code = 2
    }
  })
  return command
}

/** What every command of the tree shares: exit through runCommandLine, suggestions, one-line errors. */
function configure(command: Command, path: string): void {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .helpOption('-h, --help', 'show this help')
    .configureOutput({ outputError: (text, write) => write(formatUsageError(path, text)) })
}

/**
 * commander's "error: unknown option '--sinc'\n(Did you mean --since?)" as kafka-why prints every
 * usage problem: one line under the command's name, then where the usage is.
 */
export function formatUsageError(path: string, text: string): string {
  const message = text
    .trim()
    .replace(/^error: /, '')
    .replace(/\n\((Did you mean [^)]*)\)$/, ' ($1)')
  return `${path}: ${message}\n(${path} --help for usage)\n`
}

/** The installed package's version, for --version. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
}

async function loadBody(spec: CommandSpec, path: string): Promise<CommandBody | number> {
  try {
    return await spec.load()
  } catch (err) {
    // A build that leaves a command out (the lab in a slim package) says so instead of a stack trace.
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && /Cannot find \w+ '[^']*\/commands\/[^'/]*'/.test(String(err))) {
      console.error(`${path}: not available in this build`)
      return 2
    }
    throw err
  }
}
