import type { KafkaAdminOps } from '../adapters/admin/ops.js'
import type { Store } from '../engine/store/store.js'
import type { BotConfig } from './config.js'
import type { DiagnoseFn, RuleSet } from './engine-bridge.js'
import type { ErrorLog } from './errors.js'
import type { BotMessage } from './message.js'

/**
 * Everything a command handler may use, passed in rather than imported, so the same handlers run
 * under Bolt, in the console and in tests with a real store and a fixed clock.
 */
export type BotContext = {
  config: BotConfig
  store: Store
  rules: RuleSet
  /** The admin client of a cluster; throws UserError when the cluster has none. */
  admin(cluster: string): Promise<KafkaAdminOps>
  diagnose: DiagnoseFn
  /** Wall clock in production, the incident's end in console replays, fixed in tests. */
  now(): number
  log: ErrorLog & { info(...args: unknown[]): void; warn(...args: unknown[]): void }
  /** Posts outside the current reply (audit channel, chart uploads); absent in the console. */
  post?(channel: string, msg: BotMessage): Promise<void>
}

/** Who asked and where: the basis of every permission check. */
export type CommandRequest = { user: string; channel: string; text: string }
