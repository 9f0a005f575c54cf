/**
 * The store cannot be reached (Redis down, refused, timed out). Its message is written for the person
 * running the command ("cannot reach Redis at redis://127.0.0.1:6379: connection refused"), so the
 * CLI and the bot may show it as is; `cause` keeps the driver's error for the logs.
 */
export class StoreUnavailableError extends Error {
  /** Lets callers tell an outage (retry later) from a bug without instanceof across module copies. */
  readonly code = 'STORE_UNAVAILABLE'

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}
