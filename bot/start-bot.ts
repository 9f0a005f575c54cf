import { randomBytes } from 'node:crypto'
import type { ScheduledTask } from 'node-cron'
import type { AlertEvent } from '../engine/alerts.js'
import { openStore } from '../engine/store/open-store.js'
import type { Store } from '../engine/store/store.js'
import { openAdminConnections, type ConnectAdmin } from './admin-connections.js'
import { notifyAlerts } from './alerts/notify-alerts.js'
import { createSlackBot, type SlackBot } from './app.js'
import { loadBotSettings, parseBotConfig, parseBotEnv } from './config.js'
import type { BotContext } from './context.js'
import { scheduleDigest } from './digest/schedule-digest.js'
import { diagnoseBroker, loadRuleSet } from './engine-bridge.js'

/**
 * The whole bot as one call for `kafka-why serve`: settings validated, store and rules opened, the
 * Bolt app listening (HTTP or Socket Mode), the digest scheduled, and a `notify` the alert loop
 * hands its events to. Stopping it closes everything it opened.
 */
export type RunningBot = {
  bot: SlackBot
  store: Store
  /** The HTTP port listened on (HTTP mode). */
  port?: number
  /** Sends the engine's alert events to Slack. */
  notify(events: AlertEvent[]): Promise<void>
  stop(): Promise<void>
}

export type StartBotOptions = {
  store?: Store
  log?: BotContext['log']
  /** The bot's settings as text, when they come from a larger file (serve's kafka-why.yaml); messages name `file`. */
  settings?: { text: string; file: string }
  /** Opens a cluster's admin client; serve passes one carrying the cluster's TLS/SASL settings. */
  connectAdmin?: ConnectAdmin
}

/** Starts everything `serve` needs from the bot; throws ConfigError before listening when settings are bad. */
export async function startBot(env: NodeJS.ProcessEnv = process.env, opts: StartBotOptions = {}): Promise<RunningBot> {
  const { env: botEnv, config } = opts.settings
    ? { env: parseBotEnv(env), config: parseBotConfig(opts.settings.text, opts.settings.file) }
    : await loadBotSettings(env)
  const store = opts.store ?? openStore(env)
  const rules = await loadRuleSet(config.rules)
  const log = opts.log ?? { error: (...a: unknown[]) => console.error(...a), warn: (...a: unknown[]) => console.warn(...a), info: (...a: unknown[]) => console.log(...a) }
  if (rules.problems.length) log.warn(`${rules.problems.length} rule errors; the rules that parsed are loaded:\n${rules.problems.join('\n')}`)
  const admins = openAdminConnections(config, opts.connectAdmin)
  const ctx: BotContext = {
    config,
    store,
    rules,
    diagnose: diagnoseBroker,
    now: () => Date.now(),
    log,
    admin: (cluster) => admins.admin(cluster),
  }
  const bot = createSlackBot(botEnv, ctx)
  let port: number | undefined
  if (botEnv.mode === 'http') {
    const server = (await bot.app.start(botEnv.host ? { port: botEnv.port, host: botEnv.host } : botEnv.port)) as { address(): unknown }
    port = (server.address() as { port: number }).port
  } else await bot.app.start()
  const owner = `bot-${randomBytes(4).toString('hex')}`
  const task: ScheduledTask | undefined = scheduleDigest({ ctx: bot.ctx, poster: bot.poster, owner }, (runs) => log.info(`digest: ${JSON.stringify(runs)}`))
  return {
    bot,
    store,
    port,
    notify: async (events) => void (await notifyAlerts({ store, poster: bot.poster, config, now: () => Date.now() }, events)),
    stop: async () => {
      await task?.destroy()
      await bot.app.stop()
      await bot.poster.drain()
      await admins.closeAll()
      if (!opts.store) await store.close()
    },
  }
}
