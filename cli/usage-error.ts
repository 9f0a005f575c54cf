/**
 * How a command says the user asked for something it cannot do: one line and an exit code, never a
 * stack trace. Kept apart from the store and rule loading so light commands (lint) import only this.
 */

/** Thrown for bad arguments and unreadable inputs: its message is printed as is, exit code 2. */
export class UsageError extends Error {}

/** Thrown when the command ran but cannot answer (no data for that broker): one line, exit code 1. */
export class CommandError extends Error {}

/** Prints a usage problem (with the pointer to --help) and gives exit code 2. */
export function usageError(message: string): number {
  console.error(`kafka-why: ${message}\n(kafka-why <command> --help for usage)`)
  return 2
}
