import type { AllMiddlewareArgs, BlockAction, RespondArguments, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt'
import { handleAction } from './actions/handle-action.js'
import type { BotContext } from './context.js'
import { runCommand } from './dispatch.js'
import type { BotMessage } from './message.js'
import { toBlockKit } from './render/block-kit.js'
import type { SlackPoster } from './slack/slack-poster.js'

/**
 * Bolt listeners as plain exported functions: acknowledge first (Slack's 3-second limit holds no
 * matter how long a diagnosis takes), then answer through `respond` (the response_url).
 */

/** A message as a response_url payload. */
export function toRespond(msg: BotMessage): RespondArguments {
  const { text, blocks } = toBlockKit(msg)
  return {
    text,
    blocks,
    response_type: msg.visibility === 'channel' ? 'in_channel' : 'ephemeral',
    replace_original: msg.replaceOriginal ?? false,
  } as RespondArguments
}

/** `/kafka …` */
export function onKafkaCommand(ctx: BotContext, poster: SlackPoster) {
  return async ({ command, ack, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack()
    const reply = await runCommand(ctx, { user: command.user_id, channel: command.channel_id, text: command.text ?? '' })
    await respond(toRespond(reply))
    for (const file of reply.files ?? []) {
      await poster.uploadFile(command.channel_id, file).catch((err: unknown) => ctx.log.error('chart upload failed', err))
    }
  }
}

/** Buttons and menus of kafka-why messages (action ids starting kafka_). */
export function onKafkaAction(ctx: BotContext) {
  return async ({ body, action, ack, respond }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs): Promise<void> => {
    await ack()
    const value = action.type === 'button' ? action.value ?? '' : action.type === 'static_select' ? action.selected_option?.value ?? '' : ''
    const reply = await handleAction(ctx, {
      user: body.user.id,
      channel: body.channel?.id ?? body.container?.channel_id ?? '',
      actionId: 'action_id' in action ? action.action_id : '',
      value,
    })
    await respond(toRespond(reply))
  }
}
