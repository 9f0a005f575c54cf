import { randomBytes } from 'node:crypto'
import type { ScheduledTask } from 'node-cron'
import type { AlertEvent } from '../engine/alerts.js'
import { openStore } from '../engine/store/open-store.js'
import { StoreUnavailableError, type Store } from '../engine/store/store.js'
import { alertFields } from '../logging/alert-fields.js'
import { childLog } from '../logging/logger.js'
import { redactingLog } from '../secrets/redact.js'
import { openAdminConnections, type ConnectAdmin } from './admin-connections.js'
import { notifyAlerts } from './alerts/notify-alerts.js'
import { createSlackBot, type SlackBot } from './app.js'
import { loadBotSettings, parseBotConfig, parseBotEnv } from './config.js'
import type { BotContext } from './context.js'
import { scheduleDigest } from './digest/schedule-digest.js'
import { diagnoseBroker, loadRuleSet } from './engine-bridge.js'
import { userFacingError } from './errors.js'
import { isSlackDown, type SlackLinkStatus } from './slack/slack-link.js'

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
  /**
   * Sends the engine's alert events to Slack, in order; while Slack or the store cannot take them
   * they are held and sent once both can. Never rejects for an outage.
   */
  notify(events: AlertEvent[]): Promise<void>
  /** Slack's state for /healthz, with the number of alert events held back. */
  slack(): SlackLinkStatus & { held: number }
  stop(): Promise<void>
}

export type StartBotOptions = {
  store?: Store
  log?: BotContext['log']
  /** The bot's settings as text, when they come from a larger file (serve's kafka-why.yaml); messages name `file`. */
  settings?: { text: string; file: string }
  /** Opens a cluster's admin client; serve passes one carrying the cluster's TLS/SASL settings. */
  connectAdmin?: ConnectAdmin
  /** First delay between Slack retries (and the outbox's retry tick); tests shorten it. */
  slackRetryMs?: number
}

/** Alerts held while Slack or the store cannot take them; beyond this the oldest are dropped (and counted in the log). */
export const OUTBOX_CAP = 10_000

/** Starts everything `serve` needs from the bot; throws ConfigError before listening when settings are bad. */
export async function startBot(env: NodeJS.ProcessEnv = process.env, opts: StartBotOptions = {}): Promise<RunningBot> {
  const { env: settingsEnv, config } = opts.settings
    ? { env: parseBotEnv(env), config: parseBotConfig(opts.settings.text, opts.settings.file) }
    : await loadBotSettings(env)
  // The file's `listen:` is the explicit address; HOST/PORT (loopback by default) only without it.
  const botEnv = config.listen ? { ...settingsEnv, host: config.listen.host, port: config.listen.port } : settingsEnv
  const store = opts.store ?? openStore(env)
  const rules = await loadRuleSet(config.rules)
  const log = redactingLog(opts.log)
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

  // Alert events wait here, in order, while Slack or the store cannot take them; sent when both can.
  const outbox: AlertEvent[] = []
  let flushing: Promise<void> | undefined
  let dropped = 0
  const hold = (ev: AlertEvent) => {
    outbox.push(ev)
    if (outbox.length > OUTBOX_CAP) {
      outbox.shift()
      if (dropped++ % 1000 === 0) log.error(`alerts: outbox over ${OUTBOX_CAP} events; ${dropped} oldest dropped so far`)
    }
  }
  const flush = (): Promise<void> => {
    flushing ??= (async () => {
      while (outbox.length && bot.link.up) {
        const ev = outbox[0]
        const alertLog = childLog(log, alertFields(ev))
        try {
          const sent = await notifyAlerts({ store, poster: bot.poster, config, now: () => Date.now(), rules: rules.rules }, [ev])
          outbox.shift()
          alertLog.info(`alert ${ev.type}: ${sent.posted ? 'sent to Slack' : 'silenced, not posted'}`)
        } catch (err) {
          if (isSlackDown(err) || err instanceof StoreUnavailableError) {
            if (isSlackDown(err)) bot.link.markDown(err)
            return
          }
          const { id } = userFacingError(err, alertLog)
          alertLog.error(`alerts: event for ${ev.alert.fingerprint} dropped after error ${id}`)
          outbox.shift()
        }
      }
    })().finally(() => {
      flushing = undefined
    })
    return flushing
  }
  const bot = createSlackBot(botEnv, ctx, { onUp: flush, retryMs: opts.slackRetryMs })
  const retry = setInterval(() => void flush(), opts.slackRetryMs ?? 5000)
  retry.unref()
  const port = await bot.start()
  log.info(botEnv.mode === 'http' ? `slack: requests on http://${botEnv.host ?? '127.0.0.1'}:${port}/slack/events` : 'slack: socket mode')
  const owner = `bot-${randomBytes(4).toString('hex')}`
  const task: ScheduledTask | undefined = scheduleDigest({ ctx: bot.ctx, poster: bot.poster, owner }, (runs) => log.info({ runs }, 'digest'))
  return {
    bot,
    store,
    port,
    slack: () => ({ ...bot.link.status(), held: outbox.length }),
    notify: async (events) => {
      for (const ev of events) hold(ev)
      // The first auth.test may still be in flight; an alert raised at start-up need not wait a retry tick.
      if (bot.link.status().slack === 'starting') await bot.link.identify().catch(() => undefined)
      await flush()
    },
    stop: async () => {
      clearInterval(retry)
      await task?.destroy()
      await bot.stop()
      await bot.poster.drain()
      await admins.closeAll()
      if (!opts.store) await store.close()
    },
  }
}
