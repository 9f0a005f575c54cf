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

/** A request body Slack would send, with the response_url the bot answers through. */
export type SlackRequest = { body: string; responseUrl: string }

/** A `/kafka <text>` slash command from `user` in `channel`, as Slack form-encodes it. */
export function slashCommandRequest(slack: SlackStandIn, text: string, user: string, channel: string): SlackRequest {
  const responseUrl = slack.responseUrl()
  const body = new URLSearchParams({ token: 'x', team_id: 'TTEAM', channel_id: channel, user_id: user, command: '/kafka', text, response_url: responseUrl, trigger_id: '1' }).toString()
  return { body, responseUrl }
}

/** A click on a message button (`block_actions`) from `user` in `channel`, as Slack form-encodes it. */
export function buttonClickRequest(slack: SlackStandIn, actionId: string, value: string, user: string, channel: string): SlackRequest {
  const responseUrl = slack.responseUrl()
  const payload = {
    type: 'block_actions',
    team: { id: 'TTEAM', domain: 'example' },
    user: { id: user, username: user.toLowerCase(), team_id: 'TTEAM' },
    api_app_id: 'AAPP',
    token: 'x',
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: channel, is_ephemeral: false },
    trigger_id: '1.2.3',
    channel: { id: channel, name: 'kafka' },
    response_url: responseUrl,
    actions: [{ type: 'button', action_id: actionId, block_id: 'b1', value, text: { type: 'plain_text', text: 'x' }, action_ts: '1700000001.000' }],
  }
  return { body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), responseUrl }
}
