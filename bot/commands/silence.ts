import { randomUUID } from 'node:crypto'
import { audit, auditFirst } from '../audit.js'
import type { BotContext, CommandRequest } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { formatDuration, formatTime } from '../render/time.js'
import { closest } from '../parse-command.js'
import { isAllowed } from './shared.js'

/**
 * Active silences one person may hold: a silence mutes alerts for everyone, so a script or a stuck
 * key repeating `silence` must not be able to mute a whole rule set (200 were accepted before).
 */
export const MAX_SILENCES_PER_USER = 20

/** A listed silencer anywhere, else the same users and channels that may change configuration. */
export function maySilence(ctx: BotContext, user: string, channel: string): boolean {
  return ctx.config.silencers.includes(user) || isAllowed(ctx, user, channel)
}

/**
 * `/kafka silence <rule|fingerprint> <duration>` and the Silence 1h button. The matcher must name a
 * loaded rule or a known alert, so a typo cannot create a silence that mutes nothing.
 */
export async function silence(ctx: BotContext, req: CommandRequest, args: { matcher: string; durationMs: number }): Promise<BotMessage> {
  if (!maySilence(ctx, req.user, req.channel)) {
    await audit(ctx, { user: req.user, channel: req.channel, action: 'silence', target: args.matcher.slice(0, 200), outcome: 'denied', detail: 'user not allowed to silence' })
    throw new UserError('You may not silence alerts: silencing needs a user listed in `silencers`, or an allowed user in an allowed channel. Nothing was silenced.')
  }
  const rule = ctx.rules.rules.find((r) => r.id === args.matcher || r.name === args.matcher)
  const alert = rule ? undefined : await ctx.store.getAlert(args.matcher)
  if (!rule && !alert) {
    const guess = closest(args.matcher, ctx.rules.rules.map((r) => r.name ?? r.id))
    throw new UserError(`'${args.matcher}' is neither a loaded rule nor a known alert fingerprint.${guess ? ` Did you mean \`${guess}\`?` : ''} Nothing was silenced.`)
  }
  const now = ctx.now()
  const matcher = rule ? rule.id : alert!.fingerprint
  const mine = (await ctx.store.listSilences(now)).filter((x) => x.createdBy === req.user)
  if (mine.length >= MAX_SILENCES_PER_USER) {
    throw new UserError(`You already hold ${mine.length} active silences (at most ${MAX_SILENCES_PER_USER} per person). Lift one with \`unsilence <rule|fingerprint>\` first. Nothing was silenced.`)
  }
  const s = { id: randomUUID(), matcher, createdBy: req.user, createdAt: now, expiresAt: now + args.durationMs, comment: `from ${req.channel}` }
  await auditFirst(ctx, { user: req.user, channel: req.channel, action: 'silence', target: matcher, after: `until ${new Date(s.expiresAt).toISOString()}`, outcome: 'applied' }, 'nothing was silenced')
  try {
    await ctx.store.addSilence(s)
  } catch (err) {
    await audit(ctx, { user: req.user, channel: req.channel, action: 'silence', target: matcher, outcome: 'failed', detail: 'the silence could not be stored' }).catch(() => undefined)
    throw err
  }
  const text = `:mute: Silenced \`${escapeMrkdwn(matcher)}\` for ${formatDuration(args.durationMs)}, until ${formatTime(s.expiresAt, ctx.config.timeZone, true)} ${ctx.config.timeZone}.`
  return { text: `Silenced ${matcher} for ${formatDuration(args.durationMs)}`, parts: [{ kind: 'section', text }], visibility: 'channel' }
}

/**
 * `/kafka unsilence <rule|fingerprint>`: lifts the active silences on that matcher before they
 * expire. The same people who may silence may lift; the audit record comes first.
 */
export async function unsilence(ctx: BotContext, req: CommandRequest, args: { matcher: string }): Promise<BotMessage> {
  if (!maySilence(ctx, req.user, req.channel)) {
    await audit(ctx, { user: req.user, channel: req.channel, action: 'unsilence', target: args.matcher.slice(0, 200), outcome: 'denied', detail: 'user not allowed to silence' })
    throw new UserError('You may not lift silences: that needs a user listed in `silencers`, or an allowed user in an allowed channel. Nothing was changed.')
  }
  const rule = ctx.rules.rules.find((r) => r.id === args.matcher || r.name === args.matcher)
  const matcher = rule ? rule.id : args.matcher
  const active = (await ctx.store.listSilences(ctx.now())).filter((x) => x.matcher === matcher || x.id === matcher)
  if (active.length === 0) throw new UserError(`There is no active silence on \`${escapeMrkdwn(matcher)}\`. \`status\` lists the active ones.`)
  await auditFirst(ctx, { user: req.user, channel: req.channel, action: 'unsilence', target: matcher, detail: `${active.length} silence${active.length === 1 ? '' : 's'}`, outcome: 'applied' }, 'nothing was unsilenced')
  for (const x of active) await ctx.store.removeSilence(x.id)
  const text = `:loud_sound: Unsilenced \`${escapeMrkdwn(matcher)}\` (${active.length} silence${active.length === 1 ? '' : 's'} lifted); its alerts are posted again.`
  return { text: `Unsilenced ${matcher}`, parts: [{ kind: 'section', text }], visibility: 'channel' }
}
