import { config } from './commands/config.js'
import { describe } from './commands/describe.js'
import { digest } from './commands/digest.js'
import { help } from './commands/help.js'
import { explain, rules } from './commands/rules.js'
import { silence, unsilence } from './commands/silence.js'
import { status } from './commands/status.js'
import { why } from './commands/why.js'
import type { BotContext, CommandRequest } from './context.js'
import { userFacingError } from './errors.js'
import type { BotMessage } from './message.js'
import { textMessage } from './message.js'
import { escapeMrkdwn } from './render/block-kit.js'
import { parseCommand } from './parse-command.js'

/**
 * `/kafka <text>` → a reply message. Never throws: a UserError becomes its text, anything else a
 * logged id, so Slack and the console always get an answer.
 */
export async function runCommand(ctx: BotContext, req: CommandRequest): Promise<BotMessage> {
  try {
    const cmd = parseCommand(req.text)
    switch (cmd.verb) {
      case 'help':
        return help(cmd.topic)
      case 'why':
        return await why(ctx, req, cmd)
      case 'status':
        return await status(ctx, req, cmd)
      case 'digest':
        return await digest(ctx, req, cmd)
      case 'rules':
        return rules(ctx, cmd)
      case 'explain':
        return explain(ctx, cmd)
      case 'describe':
        return await describe(ctx, req, cmd)
      case 'config':
        return await config(ctx, req, cmd)
      case 'silence':
        return await silence(ctx, req, cmd)
      case 'unsilence':
        return await unsilence(ctx, req, cmd)
    }
  } catch (err) {
    return errorMessage(err, ctx)
  }
}

/** The reply for a failed command or click: only the asker sees it. */
export function errorMessage(err: unknown, ctx: Pick<BotContext, 'log'>): BotMessage {
  const { text } = userFacingError(err, ctx.log)
  return { ...textMessage(`:warning: ${escapeExceptMentions(text)}`, 'ephemeral'), isError: true }
}

/** Error texts are plain; only Slack's user and channel mentions (<@U…>, <#C…>) stay live. */
function escapeExceptMentions(text: string): string {
  return text
    .split(/(<[@#][A-Z0-9]+>)/)
    .map((part, i) => (i % 2 === 1 ? part : escapeMrkdwn(part)))
    .join('')
}
