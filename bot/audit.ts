import type { AuditRecord } from '../engine/store/store.js'
import type { BotContext } from './context.js'
import { UserError } from './errors.js'
import { escapeMrkdwn } from './render/block-kit.js'

/**
 * Every change the bot makes or refuses (config requests, approvals, silences) goes to the store's
 * audit stream and, when `audit_channel` is set, to that channel, so a reviewer sees who did what
 * without reading logs.
 */
/**
 * The audit record of a change, written *before* the change: when the store refuses it, the change
 * is not made and the user is told exactly that (`nothing` names what did not happen), so there is
 * never an effect without its record, nor a reply claiming no effect after one.
 */
export async function auditFirst(ctx: BotContext, r: Omit<AuditRecord, 'at'>, nothing: string): Promise<void> {
  try {
    await audit(ctx, r)
  } catch (err) {
    ctx.log.error(`audit record of ${r.action} ${r.target} not written; ${nothing}`, err)
    throw new UserError(`The audit trail could not be written, so ${nothing}. Try again in a moment; if it keeps failing, tell the bot's operator.`)
  }
}

export async function audit(ctx: BotContext, r: Omit<AuditRecord, 'at'>): Promise<void> {
  const record: AuditRecord = { at: ctx.now(), ...r }
  await ctx.store.appendAudit(record)
  if (!ctx.config.auditChannel || !ctx.post) return
  const detail = [record.before !== undefined ? `before \`${escapeMrkdwn(record.before)}\`` : '', record.after !== undefined ? `after \`${escapeMrkdwn(record.after)}\`` : '', record.detail ? escapeMrkdwn(record.detail) : '']
    .filter(Boolean)
    .join(' · ')
  const text = `:memo: *${record.outcome}* ${escapeMrkdwn(record.action)} \`${escapeMrkdwn(record.target)}\` by <@${record.user}> in <#${record.channel}>${detail ? ` — ${detail}` : ''}`
  try {
    await ctx.post(ctx.config.auditChannel, { text: `audit: ${record.outcome} ${record.action} ${record.target} by ${record.user}`, parts: [{ kind: 'section', text }], visibility: 'channel' })
  } catch (err) {
    // The record is in the store; a failed channel post must not undo or hide the change itself.
    ctx.log.error('audit channel post failed', err)
  }
}
