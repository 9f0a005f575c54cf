import { runSessionStall } from '../session-stall.js'
import { incidentSlug } from '../kafka-versions.js'
import type { Scenario } from '../scenario.js'

/** Seed 000 for real: a multi-second safepoint-synchronisation stall expires a broker's ZooKeeper session. */
export const scenario: Scenario = {
  name: 'stw',
  summary: 'safepoint stall of 9 s on one of 3 ZooKeeper-mode brokers under producer load (6 s session)',
  needs: { seconds: 80, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  watchable: true,
  run: (ctx) => runSessionStall(ctx, 'safepoint', incidentSlug('stw', ctx.runtime.version)),
}
