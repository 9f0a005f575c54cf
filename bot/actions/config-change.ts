import type { PendingChange, PendingChangeState } from '../../engine/store/store.js'
import { audit, auditFirst } from '../audit.js'
import { changePrompt, PENDING_CHANGE_KEEP_MS } from '../commands/config.js'
import { adminCall, isAllowed } from '../commands/shared.js'
import type { BotContext } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'

/**
 * The second half of a configuration change: Confirm, Approve (risky keys, by another person) and
 * Cancel. A button carries only the change's id; the change itself (requester, channel, key, value,
 * value before, risk) is read from the store, so an edited button cannot forge any of it. Each step
 * moves the stored change by compare-and-set, so it is used once and Cancel is final. At click time
 * the clicker, the channel, the risk and the current value are checked again; the audit record is
 * written before Kafka is touched (no audit, no change) and the outcome after.
 */

/** Who pressed a button and where: permissions are checked against the clicker, not the requester. */
export type Clicker = { user: string; channel: string }

const CHANGE_ID = /^[A-Za-z0-9_-]{8,64}$/

/** Reads a button's change id and the change it names, refusing unknown, used and expired ones. */
export async function loadPending(ctx: BotContext, value: string, wanted: PendingChangeState[]): Promise<PendingChange> {
  const again = 'Ask again with `/kafka config topic …`.'
  if (!CHANGE_ID.test(value)) throw new UserError(`This button no longer carries a valid change. ${again}`)
  const p = await ctx.store.getPendingChange(value)
  if (!p) throw new UserError(`This change is unknown or expired. Nothing was changed. ${again}`)
  if (!wanted.includes(p.state)) throw new UserError(`This change was already ${STATE_WORDS[p.state]}${p.decidedBy ? ` by <@${p.decidedBy}>` : ''}; a change is used once. ${again}`)
  if (ctx.now() > p.expiresAt) throw new UserError(`This change expired (a prompt is valid for ${Math.round((p.expiresAt - p.createdAt) / 60_000)} minutes). Nothing was changed. ${again}`)
  return p
}

const STATE_WORDS: Record<PendingChangeState, string> = {
  requested: 'requested',
  confirmed: 'confirmed and awaits approval',
  applying: 'being applied',
  applied: 'applied',
  cancelled: 'cancelled',
  failed: 'tried and failed',
  refused: 'refused',
}

function target(p: PendingChange): string {
  return `${p.cluster}:topic/${p.topic}:${p.key}`
}

/** Moves the change on, or tells the clicker someone else was faster. */
async function move(ctx: BotContext, p: PendingChange, next: PendingChange): Promise<void> {
  if (!(await ctx.store.transitionPendingChange(p.state, next, PENDING_CHANGE_KEEP_MS))) {
    const now = await ctx.store.getPendingChange(p.id)
    throw new UserError(`This change was ${now ? STATE_WORDS[now.state] : 'dropped'} meanwhile; a change is used once. Nothing else was changed.`)
  }
}

/** The risk as the config says now; a key made risky since the request needs the approval too. */
const isRisky = (ctx: BotContext, p: PendingChange) => p.risky || ctx.config.riskyKeys.includes(p.key)

/** Confirm: applies a plain change, or moves a risky one to awaiting approval. */
export async function confirmChange(ctx: BotContext, who: Clicker, id: string): Promise<BotMessage> {
  const p = await loadPending(ctx, id, ['requested'])
  await requireAllowed(ctx, who, p, 'confirm')
  if (who.user !== p.requestedBy) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), outcome: 'denied', detail: 'only the requester confirms' })
    throw new UserError(`Only <@${p.requestedBy}>, who asked for this change, can confirm it.${isRisky(ctx, p) ? ' You can approve it after they confirm.' : ''}`)
  }
  if (isRisky(ctx, p)) {
    const confirmed: PendingChange = { ...p, risky: true, state: 'confirmed', confirmedBy: who.user }
    await auditFirst(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), before: p.before ?? undefined, after: p.value, outcome: 'requested', detail: `change ${p.id} confirmed; awaiting a second approval` }, 'nothing was confirmed')
    await move(ctx, p, confirmed)
    return changePrompt(confirmed)
  }
  return apply(ctx, who, p)
}

/** Approve: a second allowed person lets a confirmed risky change through. */
export async function approveChange(ctx: BotContext, who: Clicker, id: string): Promise<BotMessage> {
  const p = await loadPending(ctx, id, ['confirmed'])
  await requireAllowed(ctx, who, p, 'approve')
  if (who.user === p.requestedBy || who.user === p.confirmedBy) {
    await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), outcome: 'denied', detail: 'self-approval of a risky key' })
    throw new UserError(`\`${escapeMrkdwn(p.key)}\` is a risky key: a second person must approve it, not the one who asked. Nothing was changed.`)
  }
  return apply(ctx, who, p)
}

/** Cancel: drops the change for good; the requester or any allowed user may. */
export async function cancelChange(ctx: BotContext, who: Clicker, id: string): Promise<BotMessage> {
  const p = await loadPending(ctx, id, ['requested', 'confirmed'])
  if (who.user !== p.requestedBy && !isAllowed(ctx, who.user, who.channel)) throw new UserError('Only the requester or an allowed user can cancel this change.')
  const record = { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), before: p.before ?? undefined, after: p.value }
  await auditFirst(ctx, { ...record, outcome: 'cancelled', detail: `change ${p.id}` }, 'nothing was cancelled')
  try {
    await move(ctx, p, { ...p, state: 'cancelled', decidedBy: who.user })
  } catch (err) {
    await audit(ctx, { ...record, outcome: 'failed', detail: `change ${p.id}: cancel not made (${err instanceof Error ? err.message.slice(0, 120) : 'store'})` }).catch(() => undefined)
    throw err
  }
  return {
    text: `Cancelled: ${p.key} of topic ${p.topic} stays ${p.before}`,
    parts: [{ kind: 'section', text: `:no_entry_sign: Cancelled by <@${who.user}>: \`${escapeMrkdwn(p.key)}\` of topic \`${escapeMrkdwn(p.topic)}\` stays \`${escapeMrkdwn(p.before ?? '(none)')}\`.` }],
    visibility: 'channel',
    replaceOriginal: true,
  }
}

/** The clicker must be allowed, and click in the channel the change was asked for in. */
async function requireAllowed(ctx: BotContext, who: Clicker, p: PendingChange, what: string): Promise<void> {
  if (isAllowed(ctx, who.user, who.channel) && who.channel === p.channel) return
  await audit(ctx, { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p), outcome: 'denied', detail: `${what}: user or channel not allowed` })
  throw new UserError(`You may not ${what} configuration changes here. Nothing was changed.`)
}

async function apply(ctx: BotContext, who: Clicker, p: PendingChange): Promise<BotMessage> {
  const record = { user: who.user, channel: who.channel, action: `config ${p.op}`, target: target(p) }
  // Claiming the change first makes it single-use: a second click, here or on another replica, loses.
  const applying: PendingChange = { ...p, state: 'applying', decidedBy: who.user }
  await move(ctx, p, applying)
  const settle = (state: PendingChangeState) =>
    ctx.store.transitionPendingChange('applying', { ...applying, state }, PENDING_CHANGE_KEEP_MS).catch((err: unknown) => ctx.log.error(`change ${p.id}: cannot record state ${state}`, err))
  const approvedBy = p.confirmedBy && who.user !== p.confirmedBy ? `, approved by ${who.user}` : ''
  let now: string | null
  try {
    const admin = await ctx.admin(p.cluster)
    const before = await adminCall(`Topic ${p.topic} on ${p.cluster}`, () => admin.topicConfig(p.topic))
    now = Object.hasOwn(before, p.key) ? (before[p.key].value ?? null) : null
    if (now !== p.before) {
      await settle('refused')
      await audit(ctx, { ...record, before: now ?? undefined, after: p.value, outcome: 'denied', detail: `value moved from ${p.before} since the request` })
      throw new UserError(`\`${escapeMrkdwn(p.key)}\` of topic ${escapeMrkdwn(p.topic)} changed since this was requested (it is now \`${escapeMrkdwn(String(now))}\`, was \`${escapeMrkdwn(String(p.before))}\`). Nothing was changed; ask again.`)
    }
    // No audit record, no change: when the store refuses this write, Kafka is never touched.
    await auditFirst(ctx, { ...record, before: now ?? undefined, after: p.value, outcome: 'approved', detail: `change ${p.id}: applying; requested by ${p.requestedBy}${approvedBy}` }, 'nothing was changed')
    try {
      if (p.op === 'set') await adminCall(`Topic ${p.topic}`, () => admin.setTopicConfig(p.topic, p.key, p.value!))
      else await adminCall(`Topic ${p.topic}`, () => admin.resetTopicConfig(p.topic, p.key))
    } catch (err) {
      await audit(ctx, { ...record, before: now ?? undefined, after: p.value, outcome: 'failed', detail: (err as Error).message.slice(0, 300) }).catch((e: unknown) => ctx.log.error(`change ${p.id}: failure not audited`, e))
      throw err
    }
  } catch (err) {
    // A refused change is already settled; anything else leaves it failed, never retried.
    await settle('failed')
    throw err
  }
  // From here the change is in Kafka: a failing store must not turn the reply into "nothing was changed".
  const after = await ctx
    .admin(p.cluster)
    .then((a) => a.topicConfig(p.topic))
    .then((c) => (Object.hasOwn(c, p.key) ? (c[p.key].value ?? null) : null))
    .catch(() => p.value ?? null)
  await settle('applied')
  let unaudited = false
  await audit(ctx, { ...record, before: now ?? undefined, after: after ?? undefined, outcome: 'applied', detail: `change ${p.id}: requested by ${p.requestedBy}${approvedBy}` }).catch((err: unknown) => {
    unaudited = true
    ctx.log.error(`change ${p.id}: applied, but the outcome record was not written`, err)
  })
  return {
    text: `Applied: ${p.key} of topic ${p.topic} on ${p.cluster}: ${now} → ${after}`,
    parts: [
      {
        kind: 'section',
        text: `:white_check_mark: Applied \`${escapeMrkdwn(p.key)}\` of topic \`${escapeMrkdwn(p.topic)}\` on ${escapeMrkdwn(p.cluster)}: \`${escapeMrkdwn(now ?? '(none)')}\` → \`${escapeMrkdwn(after ?? '(default)')}\`\nRequested by <@${p.requestedBy}>${p.risky ? `, approved by <@${who.user}>` : ''}.${unaudited ? '\n:warning: The outcome could not be written to the audit trail (its approval record is there); tell the operator.' : ''}`,
      },
    ],
    visibility: 'channel',
    replaceOriginal: true,
  }
}
