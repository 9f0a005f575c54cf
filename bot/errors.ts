import { randomBytes } from 'node:crypto'
import { childLog } from '../logging/logger.js'

/**
 * The only error whose text may reach Slack or the console. Everything else is an internal failure:
 * its details stay in the log and the user gets an id to quote, so stack traces, hostnames and
 * credentials never leak into a channel.
 */
export class UserError extends Error {
  override readonly name = 'UserError'
}

/** Where internal failures go; console and Bolt loggers both fit. */
export type ErrorLog = { error(...args: unknown[]): void }

/**
 * Turns any thrown value into the text a user may see. A UserError keeps its message; anything else
 * is logged with a fresh id and replaced by a sentence naming that id.
 */
export function userFacingError(err: unknown, log: ErrorLog): { text: string; id?: string } {
  if (err instanceof UserError) return { text: err.message }
  const id = `E-${randomBytes(4).toString('hex')}`
  // A structured log carries the id as a field too; a plain one (the console) prints it in the line.
  childLog(log, { errorId: id }).error(`[${id}]`, err)
  return { id, text: `Something went wrong on our side (error id ${id}). Quote this id to the bot's operator.` }
}
