import { randomBytes } from 'node:crypto'
import { audit, auditFirst } from '../audit.js'
import type { PendingChange } from '../../engine/store/store.js'
import type { BotContext, CommandRequest } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage, MessagePart } from '../message.js'
import { closest, type ConfigChange } from '../parse-command.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { adminCall, isAllowed, resolveCluster } from './shared.js'

/**
 * `/kafka config topic|broker <x>` shows configuration to everyone; `… set key=value` and
 * `… reset key` only prepare a change: the reply shows current and new value with Confirm and
 * Cancel, and nothing is written until someone allowed presses Confirm (and, for risky keys, a
 * second person presses Approve). See bot/actions/config-change.ts.
 */

/** How long a prompt can be confirmed or approved; after that the change must be asked for again. */
export const PENDING_CHANGE_TTL_MS = 15 * 60_000
/** How long the store keeps a used or expired change, so a late click is told what happened to it. */
export const PENDING_CHANGE_KEEP_MS = 24 * 3_600_000

/** Shows configuration, or prepares a change for Confirm. */
export async function config(
  ctx: BotContext,
  req: CommandRequest,
  args: { kind: 'topic' | 'broker'; cluster?: string; name: string; change?: ConfigChange },
): Promise<BotMessage> {
  const cluster = resolveCluster(ctx, req.channel, args.cluster)
  if (args.change) return requestChange(ctx, req, cluster.name, args.name, args.change)
  const admin = await ctx.admin(cluster.name)
  const configs =
    args.kind === 'topic'
      ? await adminCall(`Topic ${args.name} on ${cluster.name}`, () => admin.topicConfig(args.name))
      : await adminCall(`Broker ${args.name} on ${cluster.name}`, () => admin.brokerConfig(Number(args.name)))
  const entries = Object.entries(configs).sort(([a, x], [b, y]) => Number(x.isDefault) - Number(y.isDefault) || a.localeCompare(b))
  const overrides = entries.filter(([, c]) => !c.isDefault)
  const lines = overrides.map(([k, c]) => `${k} = ${c.value ?? '(sensitive)'}   [${c.source}]`)
  const parts: MessagePart[] = [
    { kind: 'header', text: `Config of ${args.kind} ${args.name} (${cluster.name})` },
    { kind: 'section', text: overrides.length ? `\`\`\`\n${escapeMrkdwn(lines.join('\n'))}\n\`\`\`` : 'Every key has its default value.' },
    { kind: 'context', text: `${overrides.length} non-default of ${entries.length} keys.${args.kind === 'topic' ? ` Change one with \`/kafka config topic ${args.name} set key=value\`.` : ''}` },
  ]
  return { text: `${args.kind} ${args.name}: ${overrides.length} non-default configs`, parts, visibility: 'channel' }
}

async function requestChange(ctx: BotContext, req: CommandRequest, cluster: string, topic: string, change: ConfigChange): Promise<BotMessage> {
  const target = `${cluster}:topic/${topic}:${change.key}`
  if (!isAllowed(ctx, req.user, req.channel)) {
    await audit(ctx, { user: req.user, channel: req.channel, action: `config ${change.op}`, target, after: change.op === 'set' ? change.value : undefined, outcome: 'denied', detail: 'user or channel not allowed' })
    throw new UserError('You may not change configuration here: changes need a user listed in `allowed.users`, asking in a channel listed in `allowed.channels`. Nothing was changed.')
  }
  const admin = await ctx.admin(cluster)
  const configs = await adminCall(`Topic ${topic} on ${cluster}`, () => admin.topicConfig(topic))
  // Own keys only: the key is user text, and a plain object answers `constructor` from its prototype.
  const current = Object.hasOwn(configs, change.key) ? configs[change.key] : undefined
  if (!current) {
    const guess = closest(change.key, Object.keys(configs))
    throw new UserError(`Topic ${topic} has no config key '${change.key}'.${guess ? ` Did you mean \`${guess}\`?` : ''} Nothing was changed.`)
  }
  if (change.op === 'reset' && current.isDefault) throw new UserError(`\`${change.key}\` of topic ${topic} already has its default value (${current.value}). Nothing to reset.`)
  if (change.op === 'set' && current.value === change.value) throw new UserError(`\`${change.key}\` of topic ${topic} is already ${change.value}. Nothing to change.`)
  const risky = ctx.config.riskyKeys.includes(change.key)
  const now = ctx.now()
  const pending: PendingChange = {
    id: randomBytes(12).toString('base64url'),
    cluster,
    topic,
    op: change.op,
    key: change.key,
    value: change.op === 'set' ? change.value : undefined,
    before: current.value,
    requestedBy: req.user,
    channel: req.channel,
    risky,
    state: 'requested',
    createdAt: now,
    expiresAt: now + PENDING_CHANGE_TTL_MS,
  }
  await auditFirst(ctx, { user: req.user, channel: req.channel, action: `config ${change.op}`, target, before: current.value ?? undefined, after: pending.value, outcome: 'requested', detail: `change ${pending.id}` }, 'nothing was requested')
  if (!(await ctx.store.transitionPendingChange(undefined, pending, PENDING_CHANGE_KEEP_MS))) throw new Error(`pending change id ${pending.id} already taken`)
  return changePrompt(pending)
}

/**
 * The Confirm/Cancel prompt (and, after a risky confirm, the Approve prompt). Its buttons carry only
 * the change's id: what is applied, by whom and with which risk is read back from the store.
 */
export function changePrompt(p: PendingChange): BotMessage {
  const after = p.op === 'set' ? `\`${escapeMrkdwn(p.value!)}\`` : '_the broker default_'
  const stage = p.confirmedBy
    ? `:hourglass: <@${p.confirmedBy}> confirmed. \`${p.key}\` is a risky key: a *second* allowed person must approve before it is applied.`
    : p.risky
      ? `:warning: \`${p.key}\` is a risky key: after Confirm, a second allowed person must approve.`
      : 'Nothing changes until you press Confirm.'
  const value = p.id
  const action = p.confirmedBy
    ? { kind: 'button' as const, label: 'Approve', action: 'kafka_config_approve' as const, value, style: 'danger' as const, confirm: { title: 'Approve this change?', text: `${p.key} of ${p.topic} will be changed on ${p.cluster}.`, yes: 'Approve', no: 'Back' } }
    : { kind: 'button' as const, label: 'Confirm', action: 'kafka_config_confirm' as const, value, style: 'primary' as const, confirm: { title: 'Apply this change?', text: `${p.key} of ${p.topic} will be changed on ${p.cluster}.`, yes: 'Apply', no: 'Back' } }
  return {
    text: `Change ${p.key} of topic ${p.topic} on ${p.cluster}: ${p.before ?? '(none)'} → ${p.op === 'set' ? p.value : 'default'}`,
    parts: [
      { kind: 'section', text: `*Change \`${escapeMrkdwn(p.key)}\` of topic \`${escapeMrkdwn(p.topic)}\`* on ${escapeMrkdwn(p.cluster)}, requested by <@${p.requestedBy}>`, fields: [`*Current*\n\`${escapeMrkdwn(p.before ?? '(none)')}\``, `*New*\n${after}`] },
      { kind: 'context', text: stage },
      { kind: 'actions', elements: [action, { kind: 'button', label: 'Cancel', action: 'kafka_config_cancel', value }] },
    ],
    visibility: 'channel',
    replaceOriginal: Boolean(p.confirmedBy),
  }
}
