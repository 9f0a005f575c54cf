import { App, LogLevel } from '@slack/bolt'
import type { BotEnv } from './config.js'
import type { BotContext } from './context.js'
import { onKafkaAction, onKafkaCommand } from './listeners.js'
import { SlackPoster } from './slack/slack-poster.js'

/**
 * Wiring only: a Bolt app (HTTP receiver with request signing, or Socket Mode), the Web API client
 * pointed at `slackApiUrl` when one is set, the per-channel poster, and the listeners.
 */
export type SlackBot = { app: App; poster: SlackPoster; ctx: BotContext }

/** Builds the Bolt app around a context; the caller starts it (HTTP port or Socket Mode). */
export function createSlackBot(env: BotEnv, ctx: BotContext, opts: { logLevel?: LogLevel } = {}): SlackBot {
  const app = new App({
    token: env.botToken,
    ...(env.mode === 'socket'
      ? { socketMode: true, appToken: env.appToken, installerOptions: { clientOptions: { slackApiUrl: env.slackApiUrl } } }
      : { signingSecret: env.signingSecret }),
    logLevel: opts.logLevel ?? LogLevel.WARN,
    // The poster handles 429 itself (per-channel queue, Retry-After); the client must not hide them.
    clientOptions: { slackApiUrl: env.slackApiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } },
  })
  const poster = new SlackPoster(async (method, args) => (await app.client.apiCall(method, args)) as unknown as Record<string, unknown>, { log: ctx.log })
  const wired: BotContext = { ...ctx, post: async (channel, msg) => void (await poster.postMessage(channel, msg)) }
  app.command('/kafka', onKafkaCommand(wired, poster))
  app.action(/^kafka_/, onKafkaAction(wired))
  return { app, poster, ctx: wired }
}
