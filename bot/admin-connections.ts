import type { KafkaAdminOps } from '../adapters/admin/ops.js'
import type { BotConfig } from './config.js'
import { connectKafkaAdmin } from './engine-bridge.js'
import { UserError } from './errors.js'

/**
 * Kafka admin clients per configured cluster, connected on first use so a bot that never runs an
 * admin command opens no connection, and closed together when the bot or console stops.
 */
export type AdminConnections = {
  /** The cluster's admin client; an unknown cluster is a UserError. */
  admin(cluster: string): Promise<KafkaAdminOps>
  /** Closes every client opened so far; a failed connection or close is ignored. */
  closeAll(): Promise<void>
}

/** Opens one cluster's admin client from its name and bootstrap brokers. */
export type ConnectAdmin = (cluster: string, brokers: string[]) => Promise<KafkaAdminOps>

/** One lazily connected admin client per cluster of `config`. */
export function openAdminConnections(config: BotConfig, connect: ConnectAdmin = connectKafkaAdmin): AdminConnections {
  const admins = new Map<string, Promise<KafkaAdminOps>>()
  return {
    admin: (cluster) => {
      const c = config.clusters.find((x) => x.name === cluster)
      if (!c) return Promise.reject(new UserError(`Unknown cluster '${cluster}'.`))
      let admin = admins.get(cluster)
      if (!admin) {
        admin = connect(cluster, c.brokers)
        admins.set(cluster, admin)
      }
      return admin
    },
    closeAll: async () => {
      for (const a of admins.values()) await a.then((x) => x.close()).catch(() => undefined)
    },
  }
}
