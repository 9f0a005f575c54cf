import cron, { type ScheduledTask } from 'node-cron'
import { digestFor } from '../commands/digest.js'
import type { BotContext } from '../context.js'
import { formatTime } from '../render/time.js'
import type { SlackPoster } from '../slack/slack-poster.js'

/**
 * The digest's trigger. node-cron only decides *when*; `postDigests` is the job, and a store lock
 * named after the cluster and the scheduled local minute decides *who*: with several bot replicas on
 * one Redis, exactly one posts each cluster's digest for each scheduled time.
 */

/** What a replica needs to post digests. */
export type DigestJobDeps = { ctx: BotContext; poster: SlackPoster; /** This replica's id. */ owner: string }

/** Long enough that a replica starting its run late still finds the lock held. */
export const DIGEST_LOCK_TTL_MS = 20 * 3_600_000

/** What one replica did for one cluster, for logs and tests. */
export type DigestRun = { cluster: string; posted: boolean; reason?: string }

/** Posts every cluster's digest this replica wins the lock for. */
export async function postDigests(deps: DigestJobDeps, now: number): Promise<DigestRun[]> {
  const { ctx, poster } = deps
  const local = formatTime(now, ctx.config.timeZone, true)
  const day = local.slice(0, 10)
  // Every replica's cron fires at the same local minute, so the minute names the run.
  const slot = local.slice(0, 16).replace(' ', 'T')
  const runs: DigestRun[] = []
  for (const cluster of ctx.config.clusters) {
    const lock = `digest:${cluster.name}:${slot}`
    if (!(await ctx.store.acquireLock(lock, deps.owner, DIGEST_LOCK_TTL_MS))) {
      runs.push({ cluster: cluster.name, posted: false, reason: 'another replica holds the lock' })
      continue
    }
    try {
      const out = await digestFor(ctx, cluster.name, now)
      const { ts } = await poster.postMessage(cluster.channel, out.message)
      await poster.uploadFile(cluster.channel, { filename: `kafka-digest-${cluster.name}-${day}.png`, title: `Kafka digest ${cluster.name} ${day}`, data: out.chart }, { threadTs: ts })
      runs.push({ cluster: cluster.name, posted: true })
    } catch (err) {
      // Let a later trigger (or another replica) try again rather than skip the day.
      await ctx.store.releaseLock(lock, deps.owner)
      ctx.log.error(`digest for ${cluster.name} failed`, err)
      runs.push({ cluster: cluster.name, posted: false, reason: 'failed' })
    }
  }
  return runs
}

/** Schedules the digest from config (cron expression and time zone); returns the task to stop it. */
export function scheduleDigest(deps: DigestJobDeps, onRun?: (runs: DigestRun[]) => void): ScheduledTask | undefined {
  const { config } = deps.ctx
  if (!config.digest.enabled) return undefined
  return cron.schedule(
    config.digest.schedule,
    async () => {
      const runs = await postDigests(deps, deps.ctx.now())
      onRun?.(runs)
    },
    { timezone: config.timeZone, name: 'kafka-why-digest', noOverlap: true },
  )
}
