import type { BotContext, CommandRequest } from '../context.js'
import type { BotMessage, MessagePart } from '../message.js'
import { escapeMrkdwn } from '../render/block-kit.js'
import { formatTime } from '../render/time.js'
import { knownBrokers, resolveCluster } from './shared.js'

/** `/kafka status [cluster]`: what is firing, what is silenced, which brokers report. */
export async function status(ctx: BotContext, req: CommandRequest, args: { cluster?: string }): Promise<BotMessage> {
  const cluster = resolveCluster(ctx, req.channel, args.cluster)
  const now = ctx.now()
  const tz = ctx.config.timeZone
  const alerts = (await ctx.store.listAlerts()).filter((a) => a.cluster === cluster.name && a.state !== 'resolved')
  const silences = await ctx.store.listSilences(now)
  const brokers = await knownBrokers(ctx, cluster.name)
  const firing = alerts.filter((a) => a.state === 'firing')
  const parts: MessagePart[] = [
    { kind: 'header', text: `Status of ${cluster.name}` },
    {
      kind: 'section',
      text: firing.length
        ? `*${firing.length} firing:*\n${firing.map((a) => `• \`${escapeMrkdwn(a.ruleId)}\`${a.broker !== undefined ? ` broker ${escapeMrkdwn(a.broker)}` : ''} since ${formatTime(a.firedAt ?? a.activeAt, tz, true)}${a.summary ? `: ${escapeMrkdwn(a.summary)}` : ''}`).join('\n')}`
        : ':white_check_mark: Nothing firing.',
    },
  ]
  const pending = alerts.length - firing.length
  if (pending) parts.push({ kind: 'context', text: `${pending} pending (condition holds, not yet firing).` })
  if (silences.length) {
    parts.push({ kind: 'section', text: `*Silences:*\n${silences.map((s) => `• \`${escapeMrkdwn(s.matcher)}\` until ${formatTime(s.expiresAt, tz, true)} (by <@${escapeMrkdwn(s.createdBy)}>)`).join('\n')}` })
  }
  parts.push({
    kind: 'context',
    text: `Brokers reporting: ${escapeMrkdwn(brokers.join(', ')) || 'none'} · ${ctx.rules.rules.length} rules loaded${ctx.rules.problems.length ? ` · ${ctx.rules.problems.length} rule errors` : ''}`,
  })
  return { text: `${cluster.name}: ${firing.length} firing, ${silences.length} silences, ${brokers.length} brokers reporting`, parts, visibility: 'ephemeral' }
}
