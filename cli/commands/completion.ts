import { completionScript, type CompletionShell } from '../command-line/completion.js'
import type { CommandInput, OptionSpecs } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('completion', argv)

/** `kafka-why completion bash|zsh`: the script a shell sources to complete kafka-why's commands and options. */
export async function execute({ args: [shell] }: CommandInput<OptionSpecs>): Promise<number> {
  process.stdout.write(completionScript(shell as CompletionShell))
  return 0
}
