import { createSlackBot, type SlackBot } from '../../../bot/app.js'
import type { BotContext } from '../../../bot/context.js'
import type { SlackStandIn } from './slack-stand-in.js'

/** A bot started on its real HTTP receiver (loopback, free port), posting to the Slack stand-in. */
export type HttpBot = { bot: SlackBot; port: number; url: string }

/** Starts the bot in HTTP mode the way serve does, for end-to-end tests with signed requests. */
export async function startHttpBot(ctx: BotContext, slack: SlackStandIn, signingSecret: string, botToken = 'xoxb-test'): Promise<HttpBot> {
  const bot = createSlackBot({ mode: 'http', botToken, signingSecret, port: 0, slackApiUrl: slack.apiUrl, configPath: '' }, ctx)
  const port = (await bot.start({ port: 0, host: '127.0.0.1' }))!
  return { bot, port, url: `http://127.0.0.1:${port}/slack/events` }
}
