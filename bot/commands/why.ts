import { joinDiagnoses, type ClusterDiagnosis } from '../../engine/diagnose-cluster.js'
import type { Diagnosis } from '../../engine/diagnosis.js'
import type { DataEnds } from '../../engine/data-span.js'
import type { Store } from '../../engine/store/store.js'
import type { BotContext, CommandRequest } from '../context.js'
import { UserError } from '../errors.js'
import type { BotMessage } from '../message.js'
import { usageError } from '../parse-command.js'
import { renderClusterDiagnosis } from '../render/cluster-diagnosis.js'
import { renderDiagnosis } from '../render/diagnosis.js'
import { knownBrokers, resolveCluster } from './shared.js'
import { whyGroup } from './why-group.js'

/** Window `why` looks back over when no `since` is given: a day covers any incident still being worked. */
export const DEFAULT_WHY_WINDOW_MS = 24 * 3_600_000

/**
 * `/kafka why <broker> [since]`: the engine's ranked diagnosis, rendered. With no broker, in a
 * cluster's channel, the cluster's answer: an incident is a cluster event, and the channel's first
 * question is which broker is the sick one.
 */
export async function why(ctx: BotContext, req: CommandRequest, args: { cluster?: string; broker?: string; group?: string; sinceMs?: number }): Promise<BotMessage> {
  if (args.group !== undefined) return whyGroup(ctx, req, { cluster: args.cluster, group: args.group, sinceMs: args.sinceMs })
  if (args.broker === undefined) {
    const mapped = ctx.config.clusters.find((c) => c.channel === req.channel)
    // Outside a cluster's channel there is no cluster to assume: the usage line, as before.
    if (!mapped) throw usageError('why', 'missing arguments')
    return whyCluster(ctx, mapped.name, args.sinceMs)
  }
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

/** `/kafka why` in a cluster's channel: every broker with signals, diagnosed over one window and joined. */
async function whyCluster(ctx: BotContext, cluster: string, sinceMs: number | undefined): Promise<BotMessage> {
  const brokers = await knownBrokers(ctx, cluster)
  // Nothing stored for it yet: the cluster has no answer, so ask as before (a shared log is read first, in listeners).
  if (!brokers.length) throw usageError('why', `no broker of cluster ${cluster} has reported yet, so there is no cluster answer`)
  const now = ctx.now()
  const answer = await diagnoseClusterWith(ctx, ctx.store, { cluster, brokers, from: now - (sinceMs ?? DEFAULT_WHY_WINDOW_MS), to: now, now })
  return renderClusterDiagnosis(answer, { timeZone: ctx.config.timeZone })
}

/**
 * The cluster's answer through the context's diagnose (so the bot's one diagnose path, and a test's
 * failing one, are used for every broker), joined by the engine's joinDiagnoses.
 */
export async function diagnoseClusterWith(ctx: BotContext, store: Store, w: { cluster: string; brokers: readonly string[]; from: number; to: number; now: number; dataEnds?: DataEnds }): Promise<ClusterDiagnosis> {
  const diagnoses: Diagnosis[] = []
  for (const broker of w.brokers) {
    // Shared logs have an end: a broker whose own logs stop earlier is answered at its last record.
    const to = w.dataEnds?.clamp(w.cluster, broker, w.to) ?? w.to
    diagnoses.push(await ctx.diagnose(ctx.rules.rules, store, { cluster: w.cluster, broker, from: Math.min(w.from, to), to, now: Math.min(w.now, to), dataEnds: w.dataEnds }))
  }
  return joinDiagnoses(ctx.rules.rules, diagnoses, w)
}
