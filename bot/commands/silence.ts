import { randomUUID } from 'node:crypto'
import { audit } from '../audit.js'
import type { BotContext, CommandRequest } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { formatDuration, formatTime } from '../render/time.js'
import { closest } from '../parse-command.js'
import { isAllowed } from './shared.js'

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
  const s = { id: randomUUID(), matcher, createdBy: req.user, createdAt: now, expiresAt: now + args.durationMs, comment: `from ${req.channel}` }
  await ctx.store.addSilence(s)
  await audit(ctx, { user: req.user, channel: req.channel, action: 'silence', target: matcher, after: `until ${new Date(s.expiresAt).toISOString()}`, outcome: 'applied' })
  const text = `:mute: Silenced \`${escapeMrkdwn(matcher)}\` for ${formatDuration(args.durationMs)}, until ${formatTime(s.expiresAt, ctx.config.timeZone, true)} ${ctx.config.timeZone}.`
  return { text: `Silenced ${matcher} for ${formatDuration(args.durationMs)}`, parts: [{ kind: 'section', text }], visibility: 'channel' }
}
