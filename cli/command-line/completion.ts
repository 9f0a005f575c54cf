import { COMMANDS } from './commands.js'
import { takesValue, type ArgumentSpec, type CommandSpec, type OptionSpec } from './option-spec.js'

/**
 * Shell completion scripts written from the command definitions, so every command, option and
 * choice the parser accepts completes, and options that take a path complete file names.
 */

/** A shell `kafka-why completion` writes a script for. */
export type CompletionShell = 'bash' | 'zsh'

/** The completion script for `shell`, built from `commands` (default: every kafka-why command). */
export function completionScript(shell: CompletionShell, commands: readonly CommandSpec[] = COMMANDS): string {
  return shell === 'bash' ? bashScript(commands) : zshScript(commands)
}

type Flag = { names: string[]; spec: OptionSpec }

/** Every flag of a command as typed: short and long names, and the --no- form of a negatable option. */
function flagsOf(command: CommandSpec): Flag[] {
  const flags: Flag[] = []
  for (const spec of Object.values(command.options)) {
    const names = spec.flags.split(/[ ,|]+/).filter((w) => w.startsWith('-'))
    flags.push({ names, spec })
    if (spec.negatable !== undefined) flags.push({ names: [`--no-${names.at(-1)!.slice(2)}`], spec: { flags: '', description: spec.negatable } })
  }
  flags.push({ names: ['-h', '--help'], spec: { flags: '', description: 'show this help' } })
  return flags
}

/** Each command with its path ("lab cluster"), parents before their subcommands. */
function walk(commands: readonly CommandSpec[], parent: string[] = []): { path: string[]; command: CommandSpec }[] {
  return commands.flatMap((command) => {
    const path = [...parent, command.name]
    return [{ path, command }, ...walk(command.subcommands ?? [], path)]
  })
}

const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

function bashScript(commands: readonly CommandSpec[]): string {
  const all = walk(commands)
  const nested = all.filter((c) => c.path.length > 1).map((c) => `"${c.path.join(' ')}"`)
  const cases = all.map(({ path, command }) => bashCase(path, command))
  return `# kafka-why completion for bash. Load it with:  source <(kafka-why completion bash)
# or save it as ~/.local/share/bash-completion/completions/kafka-why

_kafka_why_files() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

_kafka_why_dirs() {
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -d -- "$cur")
}

_kafka_why_words() {
  mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_kafka_why() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" key depth=2
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  if (( COMP_CWORD == 1 )); then
    _kafka_why_words ${shellWord(commands.map((c) => c.name).join(' '))}
    return 0
  fi
  key="\${COMP_WORDS[1]}"
  # A subcommand right after its command (lab cluster) has options of its own.
  if (( COMP_CWORD > 2 )); then
    case "$key \${COMP_WORDS[2]}" in
      ${nested.length ? `${nested.join('|')}) key="$key \${COMP_WORDS[2]}"; depth=3 ;;` : '__none__) ;;'}
    esac
  fi
  case "$key" in
${cases.join('\n')}
  esac
  return 0
}

complete -F _kafka_why kafka-why
`
}

function bashCase(path: string[], command: CommandSpec): string {
  const flags = flagsOf(command)
  const valueCases: string[] = []
  const byAction = new Map<string, string[]>()
  for (const { names, spec } of flags) {
    if (!takesValue(spec)) continue
    const action = spec.choices ? `_kafka_why_words ${shellWord(spec.choices.join(' '))}` : spec.complete === 'file' ? '_kafka_why_files' : spec.complete === 'dir' ? '_kafka_why_dirs' : ':'
    byAction.set(action, [...(byAction.get(action) ?? []), ...names])
  }
  for (const [action, names] of byAction) valueCases.push(`        ${names.join('|')}) ${action}; return 0 ;;`)
  const words = flags.flatMap((f) => f.names).join(' ')
  const positional = bashPositional(command)
  return `    ${shellWord(path.join(' '))})
      case "$prev" in
${valueCases.join('\n')}${valueCases.length ? '\n' : ''}      esac
      if [[ "$cur" == -* ]]; then
        _kafka_why_words ${shellWord(words)}
      else
        ${positional}
      fi
      ;;`
}

/** What a word that is not an option completes to: subcommands, the first argument's choices, paths. */
function bashPositional(command: CommandSpec): string {
  const first: ArgumentSpec | undefined = command.arguments?.[0]
  const subs = (command.subcommands ?? []).map((s) => s.name)
  const choices = [...subs, ...(first?.choices ?? [])]
  const paths = command.arguments?.find((a) => a.complete)?.complete
  const pathAction = paths === 'file' ? '_kafka_why_files' : paths === 'dir' ? '_kafka_why_dirs' : ':'
  if (choices.length) return `if (( COMP_CWORD == depth )); then _kafka_why_words ${shellWord(choices.join(' '))}; else ${pathAction}; fi`
  return pathAction
}

/** A description as zsh's _arguments reads it inside [...]: brackets and colons escaped, one line. */
function zshDescription(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  const short = line.length > 90 ? `${line.slice(0, 89).replace(/\s+\S*$/, '')}…` : line
  return short.replace(/\\/g, '\\\\').replace(/([[\]:])/g, '\\$1')
}

function zshValueAction(spec: OptionSpec): string {
  if (spec.choices) return `(${spec.choices.join(' ')})`
  if (spec.complete === 'file') return '_files'
  if (spec.complete === 'dir') return '_files -/'
  return ' '
}

function zshFunctionName(path: string[]): string {
  return `_kafka-why_${path.join('_')}`
}

function zshFunction(path: string[], command: CommandSpec): string {
  const specs: string[] = []
  for (const { names, spec } of flagsOf(command)) {
    const repeat = spec.repeat ? '*' : ''
    const exclusive = names.length > 1 && !repeat ? `(${names.join(' ')})` : ''
    const value = takesValue(spec) ? `:${/<([^>]*)>/.exec(spec.flags)![1].replace(/:/g, '\\:')}:${zshValueAction(spec)}` : ''
    for (const name of names) specs.push(`${exclusive}${repeat}${name}[${zshDescription(spec.description)}]${value}`)
  }
  const subs = command.subcommands ?? []
  if (subs.length) {
    const list = subs.map((s) => shellWord(`${s.name}:${s.summary.replace(/:/g, '\\:')}`)).join(' ')
    const cases = subs.map((s) => `        ${s.name}) ${zshFunctionName([...path, s.name])} ;;`).join('\n')
    return `${zshFunctionName(path)}() {
  local curcontext="$curcontext" state line
  typeset -A opt_args
  _arguments -C \\
${specs.map((s) => `    ${shellWord(s)} \\`).join('\n')}
    '1: :->sub' \\
    '*:: :->args'
  case $state in
    sub)
      local -a subcommands
      subcommands=(${list})
      _describe -t subcommands ${shellWord(`${path.join(' ')} subcommand`)} subcommands ;;
    args)
      case $line[1] in
${cases}
      esac ;;
  esac
}`
  }
  for (const [i, a] of (command.arguments ?? []).entries()) {
    const action = a.choices ? `(${a.choices.join(' ')})` : a.complete === 'file' ? '_files' : a.complete === 'dir' ? '_files -/' : ' '
    if (a.variadic) specs.push(`*:${a.name}:${action}`)
    else specs.push(`${i + 1}:${a.required ? '' : ':'}${a.name}:${action}`)
  }
  const body = specs.map((s) => `    ${shellWord(s)}`).join(' \\\n')
  return `${zshFunctionName(path)}() {
  _arguments -s${body ? ` \\\n${body}` : ''}
}`
}

function zshScript(commands: readonly CommandSpec[]): string {
  const functions = walk(commands).map(({ path, command }) => zshFunction(path, command))
  const list = commands.map((c) => `    ${shellWord(`${c.name}:${c.summary.replace(/:/g, '\\:')}`)}`).join('\n')
  const cases = commands.map((c) => `        ${c.name}) ${zshFunctionName([c.name])} ;;`).join('\n')
  return `#compdef kafka-why
# kafka-why completion for zsh. Load it with:  source <(kafka-why completion zsh)
# (after compinit), or save it as _kafka-why in a directory of $fpath.

${functions.join('\n\n')}

_kafka-why() {
  local curcontext="$curcontext" state line
  typeset -A opt_args
  _arguments -C \\
    '(- :)'{-h,--help}'[show help]' \\
    '1: :->command' \\
    '*:: :->args'
  case $state in
    command)
      local -a commands
      commands=(
${list}
      )
      _describe -t commands 'kafka-why command' commands ;;
    args)
      case $line[1] in
${cases}
      esac ;;
  esac
}

if [[ "$funcstack[1]" == "_kafka-why" ]]; then
  _kafka-why "$@"
else
  compdef _kafka-why kafka-why
fi
`
}
