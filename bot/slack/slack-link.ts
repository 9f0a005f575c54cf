import { formatRedacted } from '../../secrets/redact.js'

/**
 * Whether the bot can talk to Slack, kept apart from whether the rest of `serve` runs. Slack being
 * unreachable or refusing the token (`invalid_auth`) at start-up, or going away later, marks the
 * link down and retries `auth.test` with growing backoff; logs, scrapes and the alert loop never
 * wait on it, /healthz shows it, and whatever was held back is sent when the link comes up.
 */

/** Who the token belongs to, as auth.test answers; Bolt needs it to ignore the bot's own events. */
export type SlackIdentity = { userId: string; botId?: string }

/** What /healthz shows of Slack. */
export type SlackLinkStatus = { slack: 'up' | 'down' | 'starting'; since: number; attempts: number; lastError?: string; nextTryAt?: number }

export type SlackLinkOptions = {
  /** auth.test (or anything that proves the token works); rejects when Slack cannot be used. */
  check: () => Promise<SlackIdentity>
  /** Runs after every down → up change (the outbox flush, Socket Mode's connect). */
  onUp?: () => Promise<void> | void
  log: { info(...a: unknown[]): void; warn(...a: unknown[]): void; error(...a: unknown[]): void }
  minDelayMs?: number
  maxDelayMs?: number
  now?: () => number
}

/** Slack Web API error codes that mean "cannot use Slack now", not "this one request was wrong". */
const DOWN_CODES = new Set(['slack_webapi_request_error', 'slack_webapi_http_error'])
const DOWN_PLATFORM = /^(invalid_auth|not_authed|account_inactive|token_revoked|token_expired|team_access_not_granted|service_unavailable|fatal_error|internal_error|request_timeout)$/

/** True when a Web API failure says Slack cannot be used now (transport or token), so it is worth holding and retrying. */
export function isSlackDown(err: unknown): boolean {
  const e = err as { code?: string; data?: { error?: string } } | undefined
  if (!e || typeof e !== 'object') return false
  if (e.code && DOWN_CODES.has(e.code)) return true
  return e.code === 'slack_webapi_platform_error' && DOWN_PLATFORM.test(String(e.data?.error ?? ''))
}

/** The link: up or down, with a retry loop while down. */
export class SlackLink {
  private state: SlackLinkStatus
  private identity?: SlackIdentity
  private timer?: NodeJS.Timeout
  private checking?: Promise<void>
  private stopped = false
  private readonly now: () => number

  constructor(private readonly opts: SlackLinkOptions) {
    this.now = opts.now ?? Date.now
    this.state = { slack: 'starting', since: this.now(), attempts: 0 }
  }

  /**
   * Starts checking. The promise settles after the first attempt, success or not (bounded by the
   * client's request timeout), so a caller may wait for it without ever waiting out an outage.
   */
  start(): Promise<void> {
    return this.checkNow()
  }

  get up(): boolean {
    return this.state.slack === 'up'
  }

  status(): SlackLinkStatus {
    return { ...this.state }
  }

  /** The identity last seen (kept while Slack is down), or undefined if Slack never answered. */
  get known(): SlackIdentity | undefined {
    return this.identity
  }

  /** The token's identity when the link is up; rejects (for Bolt's authorize) while it is down. */
  async identify(): Promise<SlackIdentity> {
    if (this.identity && this.up) return this.identity
    await this.checkNow()
    if (!this.identity || !this.up) throw new Error(`Slack is unavailable: ${this.state.lastError ?? 'not connected yet'}`)
    return this.identity
  }

  /** A call failed in a way that says Slack is gone: mark down and start retrying. */
  markDown(err: unknown): void {
    if (this.stopped) return
    const message = describe(err)
    if (this.state.slack !== 'down') {
      this.opts.log.warn(`slack: down (${message}); retrying with backoff`)
      this.state = { slack: 'down', since: this.now(), attempts: 0, lastError: message }
    }
    if (!this.timer && !this.checking) this.schedule(this.delay())
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }

  private delay(): number {
    const min = this.opts.minDelayMs ?? 1000
    return Math.min(this.opts.maxDelayMs ?? 60_000, min * 2 ** Math.min(this.state.attempts, 16))
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    this.state.nextTryAt = this.now() + ms
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.checkNow()
    }, ms)
    this.timer.unref()
  }

  private checkNow(): Promise<void> {
    this.checking ??= this.attempt().finally(() => {
      this.checking = undefined
    })
    return this.checking
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return
    const wasUp = this.up
    try {
      this.identity = await this.opts.check()
      if (!wasUp) {
        this.opts.log.info(`slack: up${this.state.attempts ? ` after ${this.state.attempts} failed attempts` : ''}`)
        this.state = { slack: 'up', since: this.now(), attempts: 0 }
        await Promise.resolve(this.opts.onUp?.()).catch((err: unknown) => this.opts.log.error('slack: after reconnecting', err))
      }
    } catch (err) {
      const message = describe(err)
      if (this.state.slack !== 'down') this.opts.log.warn(`slack: unavailable (${message}); retrying with backoff`)
      this.state = { slack: 'down', since: this.state.slack === 'down' ? this.state.since : this.now(), attempts: this.state.attempts + 1, lastError: message }
      if (this.stopped) return
      if (this.timer) clearTimeout(this.timer)
      this.schedule(this.delay())
    }
  }
}

/** One line for logs and /healthz: the Slack error code or the transport's message, redacted. */
function describe(err: unknown): string {
  const e = err as { code?: string; data?: { error?: string }; message?: string }
  const text = e?.data?.error ?? e?.message ?? String(err)
  return formatRedacted(`${e?.code ? `${e.code}: ` : ''}${text}`).slice(0, 300)
}
