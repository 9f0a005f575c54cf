import { Argument, Option } from 'commander'

/**
 * Commands and their options as data: commander builds the parser and the --help text from it, the
 * completion scripts read which options take a path, and a command's body receives typed values.
 * One description serves all three, so help, parsing and completion cannot drift apart.
 */

/** One option of a command. The key it is stored under is commander's attribute name (`--fail-on-x` → failOnX). */
export type OptionSpec = {
  /** commander's flags: '--json', '-v, --verbose', '--since <duration>', '--no-bot'. */
  readonly flags: string
  readonly description: string
  /** Repeatable: every occurrence is kept, in order; [] when not given. */
  readonly repeat?: boolean
  readonly default?: string
  readonly choices?: readonly string[]
  /** Also accept --no-<name>, described by this text, which sets the value to false. */
  readonly negatable?: string
  readonly required?: boolean
  /** Attribute names of the options this one cannot be given with. */
  readonly conflicts?: readonly string[]
  /** What the value names, for shell completion. */
  readonly complete?: 'file' | 'dir'
}

/** A command's options by attribute name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>

/** A positional argument; `variadic` takes the rest of the command line. */
export type ArgumentSpec = {
  readonly name: string
  readonly description: string
  readonly required?: boolean
  readonly variadic?: boolean
  readonly choices?: readonly string[]
  readonly complete?: 'file' | 'dir'
}

/** What a command's body receives: its positionals and its option values. */
export type CommandInput<O extends OptionSpecs> = { args: string[]; options: OptionValues<O> }

/** A command's body: returns the exit code (0 ok, 1 the command failed, 2 usage). */
export type CommandBody<O extends OptionSpecs = OptionSpecs> = (input: CommandInput<O>) => Promise<number>

/**
 * A command of the kafka-why line. `load` imports the body only when the command runs, so `lint`
 * in CI never loads Slack or Kafka clients.
 */
export type CommandSpec = {
  readonly name: string
  /** One line in `kafka-why --help`. */
  readonly summary: string
  /** The prose of the command's own --help, before its arguments and options (default: the summary). */
  readonly description?: string
  readonly arguments?: readonly ArgumentSpec[]
  readonly options: OptionSpecs
  /** Text after the options in --help: exit codes, forms that need saying. */
  readonly helpAfter?: string
  /** Everything after the first argument is handed on as is (a benchmark's own options). */
  readonly passThrough?: boolean
  readonly subcommands?: readonly CommandSpec[]
  // The body's options are checked where it is written (CommandInput<typeof ITS_OPTIONS>), not here.
  readonly load: () => Promise<CommandBody<any>>
}

type TakesValue<F extends string> = F extends `${string}<${string}>${string}` ? true : false

/** The value an option spec gives the body: what the flags and the spec's fields make of it. */
export type OptionValue<S extends OptionSpec> =
  TakesValue<S['flags']> extends false
    ? boolean
    : S extends { repeat: true }
      ? string[]
      :
          | (S extends { choices: readonly (infer C)[] } ? C : string)
          | (S extends { default: string } ? never : S extends { required: true } ? never : undefined)
          | (S extends { negatable: string } ? false : never)

/** A body's option values, typed from its specs. */
export type OptionValues<O extends OptionSpecs> = { -readonly [K in keyof O]: OptionValue<O[K]> }

/** commander's options for one spec (two when it is negatable); the key must be commander's attribute name. */
export function toOptions(key: string, spec: OptionSpec): Option[] {
  const option = new Option(spec.flags, spec.description)
  if (option.attributeName() !== key) throw new Error(`option ${spec.flags} is stored as '${option.attributeName()}', not '${key}'`)
  if (spec.choices) option.choices(spec.choices)
  if (spec.repeat) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
  if (spec.default !== undefined) option.default(spec.default)
  if (spec.required) option.makeOptionMandatory()
  if (spec.conflicts) option.conflicts([...spec.conflicts])
  if (spec.negatable === undefined) return [option]
  return [option, new Option(`--no-${option.name()}`, spec.negatable)]
}

/** commander's argument for one spec. */
export function toArgument(spec: ArgumentSpec): Argument {
  const name = `${spec.name}${spec.variadic ? '...' : ''}`
  const argument = new Argument(spec.required ? `<${name}>` : `[${name}]`, spec.description)
  if (spec.choices) argument.choices(spec.choices)
  return argument
}

/** Parsed values with the gaps filled: false for an absent flag, [] for an absent repeatable option. */
export function completeValues(specs: OptionSpecs, parsed: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = { ...parsed }
  for (const [key, spec] of Object.entries(specs)) {
    if (values[key] !== undefined) continue
    if (spec.repeat) values[key] = []
    else if (!takesValue(spec)) values[key] = false
  }
  return values
}

/** True when the option takes a value (`--since <duration>`), false for a flag. */
export function takesValue(spec: OptionSpec): boolean {
  return /<.*>/.test(spec.flags)
}
