import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CommandInput, OptionSpecs } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/**
 * `kafka-why bench <name> [args]`: runs one of bench/*.ts in its own process, so a benchmark's
 * memory and GC never mix with another's and each prints its ratio against its own baseline.
 * The benchmarks are listed with the command's definition (cli/command-line/commands.ts).
 */

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('bench', argv)

/** Runs the named benchmark with its own arguments; its exit code is the command's. */
export async function execute({ args: [name, ...rest] }: CommandInput<OptionSpecs>): Promise<number> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
  const script = path.join(root, 'bench', `${name}.ts`)
  if (!existsSync(script)) {
    console.error(`kafka-why bench: ${script} is missing`)
    return 2
  }
  const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...rest], { stdio: 'inherit', cwd: root })
  return child.status ?? 1
}
