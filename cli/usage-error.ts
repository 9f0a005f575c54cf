/**
 * How a command says the user asked for something it cannot do: one line and an exit code, never a
 * stack trace. Kept apart from the store and rule loading so light commands (lint) import only this.
 */

/**
 * Thrown by a command's body for bad arguments and unreadable inputs: the command line prints its
 * message under the command's name with the pointer to --help, exit code 2, as it does for its own.
 */
export class UsageError extends Error {}

/** Thrown when the command ran but cannot answer (no data for that broker): one line, exit code 1. */
export class CommandError extends Error {}
