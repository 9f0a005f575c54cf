import { fileURLToPath } from 'node:url'
import type { KafkaAdminOps } from '../../../adapters/admin/ops.js'
import { MemoryStore } from '../../../engine/store/memory-store.js'
import type { Store } from '../../../engine/store/store.js'
import { parseBotConfig } from '../../../bot/config.js'
import type { BotContext } from '../../../bot/context.js'
import { diagnoseBroker, loadIncident, loadRuleSet } from '../../../bot/engine-bridge.js'
import { UserError } from '../../../bot/errors.js'

/**
 * A real bot context for tests: the shipped rules, the seed-000 incident in a MemoryStore (or the
 * store given), the engine's diagnose, a clock fixed just after the incident, and whatever admin
 * client the test passes. `adminCalls` counts every admin method call, so "nothing ran" is checked.
 */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const SEED_000 = `${ROOT}test/incidents/seed-000-stw-session-expiry`

export const TEST_CONFIG = `
clusters:
  perf-lab:
    brokers: [127.0.0.1:9092]
    channel: C0PERF
time_zone: America/New_York
digest: { schedule: "0 9 * * *" }
allowed: { users: [U0ALICE, U0BOB], channels: [C0OPS] }
silencers: [U0CAROL]
risky_keys: [retention.ms]
audit_channel: C0AUDIT
rules: [${ROOT}rules]
`

export type TestContext = { ctx: BotContext; store: Store; adminCalls: string[]; errors: unknown[][] }

export async function testContext(opts: { store?: Store; admin?: KafkaAdminOps; config?: string; replay?: boolean; now?: number } = {}): Promise<TestContext> {
  const store = opts.store ?? new MemoryStore()
  const loaded = opts.replay === false ? undefined : await loadIncident(store, SEED_000)
  const config = parseBotConfig(opts.config ?? TEST_CONFIG, 'test config')
  const rules = await loadRuleSet(config.rules)
  const now = opts.now ?? (loaded?.lastAt ?? 0) + 1000
  const adminCalls: string[] = []
  const errors: unknown[][] = []
  const admin = opts.admin
  const counted: KafkaAdminOps | undefined = admin
    ? (new Proxy(admin, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver)
          return typeof v === 'function'
            ? (...args: unknown[]) => {
                adminCalls.push(`${String(prop)}(${args.join(', ')})`)
                return (v as (...a: unknown[]) => unknown).apply(target, args)
              }
            : v
        },
      }) as KafkaAdminOps)
    : undefined
  const ctx: BotContext = {
    config,
    store,
    rules,
    diagnose: diagnoseBroker,
    now: () => now,
    log: { error: (...a: unknown[]) => void errors.push(a), info: () => undefined, warn: () => undefined },
    admin: async () => {
      adminCalls.push('connect')
      if (!counted) throw new UserError('No Kafka admin connection in this test.')
      return counted
    },
  }
  return { ctx, store, adminCalls, errors }
}
