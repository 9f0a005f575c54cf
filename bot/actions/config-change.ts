import type { PendingChange } from '../commands/config.js'
import { changePrompt } from '../commands/config.js'
import { adminCall, isAllowed } from '../commands/shared.js'
import type { BotContext } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { audit } from '../audit.js'

/**
 * The second half of a configuration change: Confirm, Approve (risky keys, by another person) and
 * Cancel. Permissions are checked again at click time, the value is re-read and the change refused
 * if it moved since the prompt, and every step leaves an audit record.
 */

/** Who pressed a button and where: permissions are checked against the clicker, not the requester. */
export type Clicker = { user: string; channel: string }

/** Reads a button's pending change, refusing anything that is not one. */
export function parsePending(value: string): PendingChange {
  let p: unknown
  try {
    p = JSON.parse(value)
  } catch {
    throw new UserError('This button no longer carries a valid change. Ask again with `/kafka config topic …`.')
  }
  const ok =
    typeof p === 'object' && p !== null &&
    ['cluster', 'topic', 'op', 'key', 'requestedBy', 'channel'].every((k) => typeof (p as Record<string, unknown>)[k] === 'string') &&
    ((p as PendingChange).op === 'set' || (p as PendingChange).op === 'reset')
  if (!ok) throw new UserError('This button no longer carries a valid change. Ask again with `/kafka config topic …`.')
  return p as PendingChange
}

function target(p: PendingChange): string {
  return `${p.cluster}:topic/${p.topic}:${p.key}`
}

/** Confirm: applies a plain change, or moves a risky one to awaiting approval. */
export async function confirmChange(ctx: BotContext, who: Clicker, p: PendingChange): Promise<BotMessage> {
  await requireAllowed(ctx, who, p, 'confirm')
  if (who.user !== p.requestedBy) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), outcome: 'denied', detail: 'only the requester confirms' })
    throw new UserError(`Only <@${p.requestedBy}>, who asked for this change, can confirm it.${p.risky ? ' You can approve it after they confirm.' : ''}`)
  }
  if (p.risky) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), before: p.before ?? undefined, after: p.value, outcome: 'requested', detail: 'confirmed; awaiting a second approval' })
    return changePrompt({ ...p, confirmedBy: who.user })
  }
  return apply(ctx, who, p)
}

/** Approve: a second allowed person lets a confirmed risky change through. */
export async function approveChange(ctx: BotContext, who: Clicker, p: PendingChange): Promise<BotMessage> {
  await requireAllowed(ctx, who, p, 'approve')
  if (!p.confirmedBy) throw new UserError('This change has not been confirmed by its requester yet.')
  if (who.user === p.requestedBy || who.user === p.confirmedBy) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), outcome: 'denied', detail: 'self-approval of a risky key' })
    throw new UserError(`\`${p.key}\` is a risky key: a second person must approve it, not the one who asked. Nothing was changed.`)
  }
  return apply(ctx, who, p)
}

/** Cancel: drops the change; the requester or any allowed user may. */
export async function cancelChange(ctx: BotContext, who: Clicker, p: PendingChange): Promise<BotMessage> {
  if (who.user !== p.requestedBy && !isAllowed(ctx, who.user, who.channel)) throw new UserError('Only the requester or an allowed user can cancel this change.')
  await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), before: p.before ?? undefined, after: p.value, outcome: 'cancelled' })
  return {
    text: `Cancelled: ${p.key} of topic ${p.topic} stays ${p.before}`,
    parts: [{ kind: 'section', text: `:no_entry_sign: Cancelled by <@${who.user}>: \`${escapeMrkdwn(p.key)}\` of topic \`${escapeMrkdwn(p.topic)}\` stays \`${escapeMrkdwn(p.before ?? '(none)')}\`.` }],
    visibility: 'channel',
    replaceOriginal: true,
  }
}

async function requireAllowed(ctx: BotContext, who: Clicker, p: PendingChange, what: string): Promise<void> {
  if (isAllowed(ctx, who.user, who.channel)) return
  await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), outcome: 'denied', detail: `${what}: user or channel not allowed` })
  throw new UserError(`You may not ${what} configuration changes here. Nothing was changed.`)
}

async function apply(ctx: BotContext, who: Clicker, p: PendingChange): Promise<BotMessage> {
  const admin = await ctx.admin(p.cluster)
  const before = await adminCall(`Topic ${p.topic} on ${p.cluster}`, () => admin.topicConfig(p.topic))
  const now = before[p.key]?.value ?? null
  if (now !== p.before) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), before: now ?? undefined, after: p.value, outcome: 'denied', detail: `value moved from ${p.before} since the request` })
    throw new UserError(`\`${p.key}\` of topic ${p.topic} changed since this was requested (it is now \`${now}\`, was \`${p.before}\`). Nothing was changed; ask again.`)
  }
  try {
    if (p.op === 'set') await adminCall(`Topic ${p.topic}`, () => admin.setTopicConfig(p.topic, p.key, p.value!))
    else await adminCall(`Topic ${p.topic}`, () => admin.resetTopicConfig(p.topic, p.key))
  } catch (err) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), before: now ?? undefined, after: p.value, outcome: 'failed', detail: (err as Error).message.slice(0, 300) })
    throw err
  }
  const after = (await admin.topicConfig(p.topic))[p.key]?.value ?? null
  await audit(ctx, {
    user: who.user,
    channel: who.channel,
    action: `config ${p.op}`,
    target: target(p),
    before: now ?? undefined,
    after: after ?? undefined,
    outcome: 'applied',
    detail: `requested by ${p.requestedBy}${p.confirmedBy && who.user !== p.confirmedBy ? `, approved by ${who.user}` : ''}`,
  })
  return {
    text: `Applied: ${p.key} of topic ${p.topic} on ${p.cluster}: ${now} → ${after}`,
    parts: [
      {
        kind: 'section',
        text: `:white_check_mark: Applied \`${escapeMrkdwn(p.key)}\` of topic \`${escapeMrkdwn(p.topic)}\` on ${escapeMrkdwn(p.cluster)}: \`${escapeMrkdwn(now ?? '(none)')}\` → \`${escapeMrkdwn(after ?? '(default)')}\`\nRequested by <@${p.requestedBy}>${p.risky ? `, approved by <@${who.user}>` : ''}.`,
      },
    ],
    visibility: 'channel',
    replaceOriginal: true,
  }
}
