import { silence } from '../commands/silence.js'
import type { BotContext } from '../context.js'
import { errorMessage, runCommand } from '../dispatch.js'
import { UserError } from '../errors.js'
import type { ActionId, BotMessage } from '../message.js'
import { approveChange, cancelChange, confirmChange } from './config-change.js'

/** One button click or menu choice, platform-neutral. */
export type Click = { user: string; channel: string; actionId: string; value: string }

const HOUR = 3_600_000

/**
 * Routes a click to what it means. Buttons that run commands go through the same parser and
 * permission checks as typed commands, so a button is never a way around them. Never throws.
 */
export async function handleAction(ctx: BotContext, click: Click): Promise<BotMessage> {
  const req = { user: click.user, channel: click.channel }
  // The renderer suffixes repeated action ids (":1") so each is unique within its block.
  const action = click.actionId.replace(/:\d+$/, '') as ActionId
  try {
    switch (action) {
      case 'kafka_why_broker':
        return await runCommand(ctx, { ...req, text: `why ${click.value}` })
      case 'kafka_run':
        return await runCommand(ctx, { ...req, text: click.value })
      case 'kafka_show_rule':
        return await runCommand(ctx, { ...req, text: `explain ${click.value}` })
      case 'kafka_silence_1h': {
        const matcher = parseMatcher(click.value)
        return await silence(ctx, { ...req, text: `silence ${matcher} 1h` }, { matcher, durationMs: HOUR })
      }
      case 'kafka_config_confirm':
        return await confirmChange(ctx, req, click.value)
      case 'kafka_config_approve':
        return await approveChange(ctx, req, click.value)
      case 'kafka_config_cancel':
        return await cancelChange(ctx, req, click.value)
      default:
        throw new UserError(`This button (${click.actionId.slice(0, 60)}) is not one kafka-why knows.`)
    }
  } catch (err) {
    return errorMessage(err, ctx)
  }
}

function parseMatcher(value: string): string {
  try {
    const m = (JSON.parse(value) as { matcher?: unknown }).matcher
    if (typeof m === 'string' && /^[A-Za-z0-9_.#:-]{1,200}$/.test(m)) return m
  } catch {
    // fall through to the UserError below
  }
  throw new UserError('This silence button carries no valid rule or fingerprint.')
}
