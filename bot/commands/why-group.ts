import { diagnoseGroup } from '../../engine/consumer-lag-explain.js'
import type { BotContext, CommandRequest } from '../context.js'
import type { BotMessage } from '../message.js'
import { renderGroupDiagnosis } from '../render/group-diagnosis.js'
import { resolveCluster } from './shared.js'

/** Window of commit history a group's answer reads when no `since` is given: an hour holds many windows of commits. */
export const DEFAULT_GROUP_WINDOW_MS = 3_600_000
/** The longest `since` a group's answer takes: every commit and log end of the cluster in it is read. */
const MAX_GROUP_WINDOW_MS = 24 * 3_600_000

/** `/kafka why group <group> [since]`: the group's status by Burrow's rules and the ranked cause of its lag. */
export async function whyGroup(ctx: BotContext, req: CommandRequest, args: { cluster?: string; group: string; sinceMs?: number }): Promise<BotMessage> {
  const cluster = resolveCluster(ctx, req.channel, args.cluster)
  const now = ctx.now()
  const window = Math.min(args.sinceMs ?? DEFAULT_GROUP_WINDOW_MS, MAX_GROUP_WINDOW_MS)
  const d = await diagnoseGroup(ctx.rules.rules, ctx.store, { cluster: cluster.name, group: args.group, from: now - window, to: now, now })
  return renderGroupDiagnosis(d, { timeZone: ctx.config.timeZone })
}
