import type { BotContext, CommandRequest } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { renderDiagnosis } from '../render/diagnosis.js'
import { knownBrokers, resolveCluster } from './shared.js'

/** Window `why` looks back over when no `since` is given: a day covers any incident still being worked. */
export const DEFAULT_WHY_WINDOW_MS = 24 * 3_600_000

/** `/kafka why <broker> [since]`: the engine's ranked diagnosis, rendered. */
export async function why(ctx: BotContext, req: CommandRequest, args: { cluster?: string; broker: string; sinceMs?: number }): Promise<BotMessage> {
  const cluster = resolveCluster(ctx, req.channel, args.cluster)
  const brokers = await knownBrokers(ctx, cluster.name)
  if (!brokers.includes(args.broker)) {
    throw new UserError(
      `Broker ${args.broker} is unknown in cluster ${cluster.name}: no signals are stored for it. ${brokers.length ? `Known brokers: ${brokers.join(', ')}.` : 'No broker of this cluster has reported yet.'}`,
    )
  }
  const now = ctx.now()
  const from = now - (args.sinceMs ?? DEFAULT_WHY_WINDOW_MS)
  const diagnosis = await ctx.diagnose(ctx.rules.rules, ctx.store, { cluster: cluster.name, broker: args.broker, from, to: now, now })
  return renderDiagnosis(diagnosis, { timeZone: ctx.config.timeZone, otherBrokers: brokers })
}
