import { randomBytes } from 'node:crypto'
import type { AllMiddlewareArgs, BlockAction, RespondArguments, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt'
import type { UploadedLog } from '../adapters/uploaded-logs.js'
import { childLog } from '../logging/logger.js'
import { handleAction } from './actions/handle-action.js'
import type { BotContext } from './context.js'
import { whyUploaded } from './commands/why-upload.js'
import { errorMessage, runCommand } from './dispatch.js'
import { UserError } from './errors.js'
import type { BotMessage } from './message.js'
import { parseCommand } from './parse-command.js'
import { toBlockKit } from './render/block-kit.js'
import type { SlackCall, SlackPoster } from './slack/slack-poster.js'
import { downloadSharedFile, pastedLines, sharedFileIds, threadMessages, type DownloadOptions, type SharedMessage } from './uploads/slack-files.js'

/**
 * Bolt listeners as plain exported functions: acknowledge first (Slack's 3-second limit holds no
 * matter how long a diagnosis takes), then answer through `respond` (the response_url).
 */

/**
 * The context one Slack request is handled in: its log lines carry a fresh request id (and who asked
 * where), so everything logged while answering it, an internal error's id included, is found together.
 */
export function requestContext(ctx: BotContext, fields: { user?: string; channel?: string; eventId?: string }): BotContext {
  return { ...ctx, log: childLog(ctx.log, { requestId: `R-${randomBytes(4).toString('hex')}`, ...fields }) }
}

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

/**
 * `/kafka …`. A bare `/kafka why` (no broker) with `uploads` given first looks for logs the asker
 * shared among the channel's last 20 messages: found, they are diagnosed in that message's thread;
 * not found (or the history cannot be read), the usual answer: the cluster's in a cluster's channel,
 * else the usage line asking for a broker.
 */
export function onKafkaCommand(base: BotContext, poster: SlackPoster, uploads?: MentionDeps) {
  return async ({ command, ack, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack()
    const ctx = requestContext(base, { user: command.user_id, channel: command.channel_id })
    ctx.log.info(`/kafka ${(command.text ?? '').trim().split(/\s+/)[0] || 'help'}`)
    if (uploads && /^\s*why\s*$/i.test(command.text ?? '')) {
      const shared = await latestShared(uploads.call, command.channel_id, command.user_id).catch((err: unknown) => {
        ctx.log.warn('slack: channel history unreadable for /kafka why', err)
        return undefined
      })
      if (shared?.ts) {
        await respond({ text: 'Reading the logs you shared last in this channel; the diagnosis goes in that message’s thread.', response_type: 'ephemeral' })
        await answerInThread(ctx, uploads, command.channel_id, shared.ts, async () => [shared], {})
        return
      }
    }
    const reply = await runCommand(ctx, { user: command.user_id, channel: command.channel_id, text: command.text ?? '' })
    await respond(toRespond(reply))
    for (const file of reply.files ?? []) {
      await poster.uploadFile(command.channel_id, file).catch((err: unknown) => ctx.log.error('chart upload failed', err))
    }
  }
}

/** Buttons and menus of kafka-why messages (action ids starting kafka_). */
export function onKafkaAction(base: BotContext) {
  return async ({ body, action, ack, respond }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs): Promise<void> => {
    await ack()
    const ctx = requestContext(base, { user: body.user.id, channel: body.channel?.id ?? body.container?.channel_id })
    ctx.log.info(`action ${'action_id' in action ? action.action_id : '-'}`)
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

/** What the mention listener needs besides the context: the Web API, the poster, download rules. */
export type MentionDeps = { call: SlackCall; poster: SlackPoster; download: DownloadOptions }

/**
 * `@kafka-why why [broker]` in a thread (or on a message) that shares log files or pasted lines:
 * the files are fetched, diagnosed in memory, and the diagnosis is posted in that thread. Slack's
 * redeliveries of the same event are ignored, so a slow download never gets two answers.
 */
export function onAppMention(base: BotContext, deps: MentionDeps) {
  return async ({ event, body, context }: SlackEventMiddlewareArgs<'app_mention'> & AllMiddlewareArgs): Promise<void> => {
    if (context.retryNum) return
    const channel = event.channel
    const ctx = requestContext(base, { user: event.user, channel, eventId: (body as { event_id?: string }).event_id })
    ctx.log.info('mention')
    let args: { broker?: string } | Error
    try {
      args = mentionArgs(event.text ?? '')
    } catch (err) {
      args = err as Error
    }
    const own: SharedMessage = { ts: event.ts, text: event.text, files: (event as { files?: { id?: string }[] }).files }
    const messages = async () => (own.files?.length || /```/.test(own.text ?? '') || !event.thread_ts ? [own] : await threadMessages(deps.call, channel, event.thread_ts))
    await answerInThread(ctx, deps, channel, event.thread_ts ?? event.ts, messages, args)
  }
}

/**
 * Downloads the files and pasted lines of `messages`, diagnoses them in memory and posts the answer
 * (or the reason there is none) in the thread: there is no ephemeral reply in a thread.
 */
async function answerInThread(ctx: BotContext, deps: MentionDeps, channel: string, threadTs: string, messages: () => Promise<SharedMessage[]>, args: { broker?: string } | Error): Promise<void> {
  let reply: BotMessage
  try {
    if (args instanceof Error) throw args
    const shared = await messages()
    const uploads: UploadedLog[] = []
    for (const id of sharedFileIds(shared)) uploads.push(await downloadSharedFile(deps.call, id, deps.download))
    const pasted = pastedLines(shared)
    if (pasted) uploads.push(pasted)
    reply = await whyUploaded(ctx, { channel }, uploads, args)
  } catch (err) {
    reply = { ...errorMessage(err, ctx), visibility: 'channel' }
  }
  await deps.poster.postMessage(channel, reply, { ts: threadTs }).catch((err: unknown) => ctx.log.error('thread reply failed', err))
}

/** The asker's latest message among the channel's last 20 that shares a file or pasted lines. */
async function latestShared(call: SlackCall, channel: string, user: string): Promise<SharedMessage | undefined> {
  const r = await call('conversations.history', { channel, limit: 20 })
  const messages = Array.isArray(r.messages) ? (r.messages as (SharedMessage & { user?: string })[]) : []
  return messages.find((m) => m.user === user && (m.files?.length || /```/.test(m.text ?? '')))
}

/**
 * The words after the mention: `why`, optionally a broker (`why 3`, `why broker-3`); anything else
 * is answered with how to ask.
 */
export function mentionArgs(text: string): { broker?: string } {
  const words = text.replace(/```[\s\S]*?```/g, ' ').replace(/<@[A-Z0-9]+(?:\|[^>]*)?>/g, ' ').trim().split(/\s+/).filter(Boolean)
  if (words.length === 0 || words[0].toLowerCase() !== 'why') {
    throw new UserError('Mention me with `why` (or `why 3` for broker 3) in a thread that shares a Kafka log file or pasted log lines, and I will diagnose them.')
  }
  if (words.length === 1) return {}
  const cmd = parseCommand(words.join(' '))
  if (cmd.verb !== 'why') return {}
  return { broker: cmd.broker }
}
