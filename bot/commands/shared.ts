import type { ClusterConfig } from '../config.js'
import { clusterForChannel } from '../config.js'
import type { BotContext } from '../context.js'
import { UserError } from '../errors.js'
import { closest } from '../parse-command.js'
import type { Rule } from '../../dsl/ast.js'
import { unreachableError } from '../../adapters/admin/unreachable.js'

/**
 * Lookups every handler needs, each failing with a UserError that tells the asker what exists.
 */

/** The cluster named in the command, else the one the channel belongs to. */
export function resolveCluster(ctx: BotContext, channel: string, explicit: string | undefined): ClusterConfig {
  if (explicit === undefined) return clusterForChannel(ctx.config, channel)
  const found = ctx.config.clusters.find((c) => c.name === explicit)
  if (!found) throw new UserError(`Unknown cluster '${explicit}'. Known clusters: ${ctx.config.clusters.map((c) => c.name).join(', ')}.`)
  return found
}

/** Broker ids with stored signals in a cluster, in numeric order. */
export async function knownBrokers(ctx: BotContext, cluster: string): Promise<string[]> {
  const refs = await ctx.store.brokers()
  return [...new Set(refs.filter((r) => r.cluster === cluster && r.broker !== '').map((r) => r.broker))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
}

/** A rule by id or name, with a did-you-mean when absent. */
export function findRule(ctx: BotContext, name: string): Rule {
  const rule = ctx.rules.rules.find((r) => r.id === name || r.name === name)
  if (rule) return rule
  const names = ctx.rules.rules.map((r) => r.name ?? r.id)
  const guess = closest(name, names)
  throw new UserError(`No rule named '${name}'.${guess ? ` Did you mean \`${guess}\`?` : ''} \`/kafka rules\` lists the ${names.length} loaded rules.`)
}

/** Only listed users in listed channels may change anything; empty lists allow no one. */
export function isAllowed(ctx: BotContext, user: string, channel: string): boolean {
  return ctx.config.allowed.users.includes(user) && ctx.config.allowed.channels.includes(channel)
}

/**
 * Runs an admin call, turning Kafka's "does not exist" answers and an unreachable cluster (named by
 * endpoint and cause: a wrong address or a firewall is the operator's to fix) into a UserError; every
 * other failure stays internal (logged with an id).
 */
export async function adminCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof UserError) throw err
    const unreachable = unreachableError(err, ['the configured brokers'])
    if (unreachable) throw new UserError(`Cannot reach Kafka at ${unreachable.endpoint}: ${unreachable.reason}. Check the cluster's brokers in kafka-why.yaml and that this host can connect to them.`)
    const e = err as { name?: string; type?: string; message?: string }
    const text = `${e.type ?? ''} ${e.message ?? ''}`
    if (/UNKNOWN_TOPIC_OR_PARTITION|does not host this topic|does not exist|not found|GROUP_ID_NOT_FOUND|unknown (topic|broker|group)/i.test(text)) {
      throw new UserError(`${what} does not exist.`)
    }
    // Kafka's own refusals (invalid value, policy) are about the request, so the asker may read them.
    if (e.name === 'AdminRequestError' || /INVALID_CONFIG|INVALID_REQUEST|POLICY_VIOLATION|Unknown topic config|not a valid/i.test(text)) {
      throw new UserError(`Kafka refused it: ${(e.message ?? '').split('\n')[0].slice(0, 300)}`)
    }
    throw err
  }
}
