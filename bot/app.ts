import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { App, HTTPReceiver, LogLevel, webApi, type Logger } from '@slack/bolt'
import { childLog } from '../logging/logger.js'
import { formatRedacted, redactingLog, type Log } from '../secrets/redact.js'
import type { BotEnv } from './config.js'
import type { BotContext } from './context.js'
import { onAppMention, onKafkaAction, onKafkaCommand } from './listeners.js'
import { guardSlackRequests } from './slack/request-guard.js'
import { isSlackDown, SlackLink } from './slack/slack-link.js'
import { SlackPoster } from './slack/slack-poster.js'
import { downloadOrigins } from './uploads/slack-files.js'

/**
 * Wiring only: a Bolt app (HTTP receiver behind the request guard, or Socket Mode), the Web API
 * client pointed at `slackApiUrl` when one is set, the link that knows whether Slack can be used,
 * the per-channel poster, and the listeners. Bolt never calls auth.test on its own: it asks the
 * link, so an unreachable Slack or a refused token at start-up is a state to retry, not a crash.
 */
export type SlackBot = {
  app: App
  poster: SlackPoster
  ctx: BotContext
  link: SlackLink
  /**
   * Starts the link and the receiver; resolves with the HTTP port (HTTP mode) without waiting for
   * Slack, or (Socket Mode) after the first connection attempt, whatever its outcome.
   */
  start(listen?: { port: number; host?: string }): Promise<number | undefined>
  stop(): Promise<void>
}

export type SlackBotOptions = {
  logLevel?: LogLevel
  /** Runs whenever Slack becomes usable again (the held alerts are sent from here). */
  onUp?: () => Promise<void> | void
  /** First retry delay of the link; tests shorten it. */
  retryMs?: number
  /** Time a client has to send its request headers (HTTP mode). Default 10 s. */
  headersTimeoutMs?: number
  /** Time a client has to send its whole request, body included (HTTP mode). Default 30 s. */
  requestTimeoutMs?: number
}

/** Builds the Bolt app around a context; the caller starts it. */
export function createSlackBot(env: BotEnv, ctx: BotContext, opts: SlackBotOptions = {}): SlackBot {
  const log = redactingLog(ctx.log)
  // Bolt's own info lines are start-up chatter; they are shown only when debugging.
  const debugging = (log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('debug') ?? false
  const logger = boltLogger(childLog(log, { lib: 'bolt' }), opts.logLevel ?? (debugging ? LogLevel.DEBUG : LogLevel.WARN))
  // The poster handles 429 itself (per-channel queue, Retry-After); the client must not hide them.
  const web = new webApi.WebClient(env.botToken, { slackApiUrl: env.slackApiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 }, timeout: 10_000, logger })
  let socketStarted = false
  const link: SlackLink = new SlackLink({
    check: async () => {
      const r = await web.auth.test()
      return { userId: String(r.user_id), botId: r.bot_id ? String(r.bot_id) : undefined }
    },
    onUp: async () => {
      if (env.mode === 'socket' && !socketStarted) {
        try {
          await app.start()
          socketStarted = true
        } catch (err) {
          link.markDown(err)
          return
        }
      }
      await opts.onUp?.()
    },
    log,
    minDelayMs: opts.retryMs,
  })
  // A signed request is Slack's own whether or not its Web API answers us: while it does not, the
  // request is still handled with the identity last seen (none before the first answer), so the
  // user is answered through the HTTP ack and the response_url instead of a 401. Never waits for a
  // check while Slack is down: the ack must leave within 3 s.
  const authorize = async () => {
    const who = link.up ? await link.identify().catch(() => link.known) : link.known
    return { botToken: env.botToken, ...(who ? { botUserId: who.userId, botId: who.botId } : {}) }
  }
  const receiver = env.mode === 'http' ? new HTTPReceiver({ signingSecret: env.signingSecret!, logger }) : undefined
  const app = new App({
    ...(receiver ? { receiver } : { socketMode: true, appToken: env.appToken, installerOptions: { clientOptions: { slackApiUrl: env.slackApiUrl } } }),
    authorize,
    logger,
    clientOptions: { slackApiUrl: env.slackApiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } },
  })
  const slackCall = async (method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    try {
      return (await web.apiCall(method, args)) as unknown as Record<string, unknown>
    } catch (err) {
      if (isSlackDown(err)) link.markDown(err)
      throw err
    }
  }
  const poster = new SlackPoster(slackCall, { log })
  const wired: BotContext = { ...ctx, log, post: async (channel, msg) => void (await poster.postMessage(channel, msg)) }
  const uploads = { call: slackCall, poster, download: { token: env.botToken, allowedOrigins: downloadOrigins(env.slackApiUrl) } }
  app.command('/kafka', onKafkaCommand(wired, poster, uploads))
  app.action(/^kafka_/, onKafkaAction(wired))
  app.event('app_mention', onAppMention(wired, uploads))

  let server: Server | undefined
  return {
    app,
    poster,
    ctx: wired,
    link,
    async start(listen) {
      const first = link.start()
      if (!receiver) {
        await first
        return undefined
      }
      const guarded = guardSlackRequests(receiver.requestListener, { signingSecret: env.signingSecret!, store: ctx.store, log })
      // Deadlines for headers and the whole request, checked every second: a connection that never
      // finishes (or trickles a byte at a time) is answered 408 and closed, not held for minutes.
      const requestTimeout = opts.requestTimeoutMs ?? 30_000
      server = createServer({ headersTimeout: Math.min(opts.headersTimeoutMs ?? 10_000, requestTimeout), requestTimeout, connectionsCheckingInterval: 1000 }, (req, res) => {
        try {
          guarded(req, res)
        } catch (err) {
          log.error('slack request failed', err)
          if (!res.headersSent) res.writeHead(500).end()
        }
      })
      const s = server
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject)
        s.listen(listen?.port ?? env.port, listen?.host ?? env.host ?? '127.0.0.1', () => resolve())
      })
      return (s.address() as AddressInfo).port
    },
    async stop() {
      link.stop()
      if (server) {
        const s = server
        s.closeAllConnections()
        await new Promise<void>((resolve) => s.close(() => resolve()))
      }
      if (socketStarted) await app.stop().catch((err: unknown) => log.warn('slack: socket mode stop', err))
    },
  }
}

/** Bolt's and the Web API client's logger, writing through the redacting log at the matching level. */
function boltLogger(log: Log & { debug?(...a: unknown[]): void }, level: LogLevel): Logger {
  let current = level
  const rank = { [LogLevel.DEBUG]: 0, [LogLevel.INFO]: 1, [LogLevel.WARN]: 2, [LogLevel.ERROR]: 3 } as Record<LogLevel, number>
  const at = (l: LogLevel, write: (line: string) => void) => (...msgs: unknown[]) => {
    if (rank[l] >= rank[current]) write(formatRedacted(...msgs))
  }
  return {
    debug: at(LogLevel.DEBUG, log.debug ?? log.info),
    info: at(LogLevel.INFO, log.info),
    warn: at(LogLevel.WARN, log.warn),
    error: at(LogLevel.ERROR, log.error),
    setLevel: (l) => void (current = l),
    getLevel: () => current,
    setName: () => undefined,
  }
}
