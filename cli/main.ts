import { runCommandLine } from './command-line/program.js'

/**
 * The kafka-why command. Its commands, options and help are defined in cli/command-line/; each
 * command's body lives in cli/commands/<name>.ts and is imported only when used, so `lint` in CI
 * never loads Slack or Kafka clients.
 */
export async function main(argv: string[]): Promise<number> {
  return runCommandLine(argv)
}
