import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { openStore } from '../../engine/store/open-store.js'
import type { Store } from '../../engine/store/store.js'
import { openAdminConnections } from '../admin-connections.js'
import { parseBotConfig, type BotConfig } from '../config.js'
import type { BotContext } from '../context.js'
import { diagnoseBroker, diagnoseInsideData, loadIncident, loadRuleSet, replayIncidentAlerts } from '../engine-bridge.js'
import { UserError } from '../errors.js'

/**
 * The bot without Slack: the same context the Slack app uses, over the embedded store (or Redis when
 * REDIS_URL or REDIS_CLUSTER_NODES is set) with a recorded incident loaded, so `kafka-why console`
 * and `kafka-why digest` show exactly what the channel would see.
 */

/** The incident replayed when none is named. */
export const DEFAULT_INCIDENT = fileURLToPath(new URL('../../test/incidents/seed-000-stw-session-expiry', import.meta.url))

/** The user and channel the console speaks as; list them under `allowed` to try changing commands. */
export const CONSOLE_USER = 'UCONSOLE'
/** The channel the console speaks in. */
export const CONSOLE_CHANNEL = 'CCONSOLE'

/** Who the console speaks as and where: a Slack user id and a channel id. */
export type ConsoleIdentity = { user: string; channel: string }

/**
 * The console's identity. By default the console user in the console channel; with `as` (a Slack user
 * id from the configuration's allowed.users) that user, in the first allowed channel that is a
 * cluster's channel (else the first allowed channel), so the change and admin flows an allowed user
 * has can be tried from a terminal exactly as the bot would check them. Anyone else is refused.
 */
export function consoleIdentity(config: BotConfig, as?: string, configPath?: string): ConsoleIdentity {
  if (as === undefined) return { user: CONSOLE_USER, channel: CONSOLE_CHANNEL }
  if (!configPath) throw new UserError(`--as ${as} needs --config with a file whose allowed.users lists ${as}`)
  if (!config.allowed.users.includes(as)) {
    const users = config.allowed.users.length ? config.allowed.users.join(', ') : 'nobody'
    throw new UserError(`--as ${as}: not in allowed.users of ${configPath} (allowed: ${users})`)
  }
  const channels = config.allowed.channels
  const channel = channels.find((c) => config.clusters.some((k) => k.channel === c)) ?? channels[0] ?? CONSOLE_CHANNEL
  return { user: as, channel }
}

/** How the console session is set up. */
export type ConsoleOptions = {
  /** Incident directory to load; null for none (use what the store already holds). */
  replay: string | null
  configPath?: string
  rulesPaths?: string[]
  /** Fixed evaluation time; default the incident's last signal, else the wall clock. */
  now?: number
  env?: NodeJS.ProcessEnv
  log?: BotContext['log']
}

/** An open console session; close() releases the store and admin clients. */
export type ConsoleSession = { ctx: BotContext; store: Store; loaded?: { accepted: number; rejected: number }; close(): Promise<void> }

/** Builds the context; the caller closes it. */
export async function openConsole(opts: ConsoleOptions): Promise<ConsoleSession> {
  const env = opts.env ?? process.env
  // A replayed incident (the demo by default) lives in memory: it must never land in the team's Redis.
  const store = opts.replay ? new MemoryStore() : openStore(env)
  const log = opts.log ?? { error: (...a: unknown[]) => console.error(...a), info: () => undefined, warn: (...a: unknown[]) => console.error(...a) }
  let loaded: Awaited<ReturnType<typeof loadIncident>> | undefined
  try {
    if (opts.replay) loaded = await loadIncident(store, opts.replay)
  } catch (err) {
    // An unreachable Redis must not keep the process alive reconnecting after the error is told.
    await store.close().catch(() => undefined)
    throw err
  }

  let config: BotConfig
  if (opts.configPath) config = parseBotConfig(await readFile(opts.configPath, 'utf8'), opts.configPath)
  else {
    // The first read of a shared store: unreachable, it is closed before the error goes on (as above).
    const brokers = await store.brokers().catch(async (err: unknown) => {
      await store.close().catch(() => undefined)
      throw err
    })
    const clusters = [...new Set(brokers.map((b) => b.cluster))]
    config = parseBotConfig(
      JSON.stringify({ clusters: Object.fromEntries((clusters.length ? clusters : ['local']).map((c) => [c, { brokers: ['127.0.0.1:9092'], channel: CONSOLE_CHANNEL }])), time_zone: 'UTC', silencers: [CONSOLE_USER] }),
      'console defaults',
    )
  }
  const rules = await loadRuleSet(opts.rulesPaths ?? config.rules)
  const fixedNow = opts.now ?? (loaded?.lastAt !== undefined ? loaded.lastAt + 1000 : undefined)
  if (loaded && fixedNow !== undefined && loaded.times.size) await replayIncidentAlerts(store, rules.rules, loaded.times, fixedNow, loaded.ends)
  const admins = openAdminConnections(config)
  const ctx: BotContext = {
    config,
    store,
    rules,
    // A replayed incident has an end: each broker is answered inside its own data, as why --replay.
    diagnose: loaded ? diagnoseInsideData(loaded.ends) : diagnoseBroker,
    now: () => fixedNow ?? Date.now(),
    log,
    admin: (cluster) => {
      if (!opts.configPath) return Promise.reject(new UserError('The console has no Kafka admin connection: pass --config with a file naming the cluster\'s brokers.'))
      return admins.admin(cluster)
    },
  }
  return {
    ctx,
    store,
    loaded,
    close: async () => {
      await admins.closeAll()
      await store.close()
    },
  }
}
