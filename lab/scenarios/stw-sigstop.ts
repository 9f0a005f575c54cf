import { runSessionStall } from '../session-stall.js'
import { incidentSlug } from '../kafka-versions.js'
import type { Scenario } from '../scenario.js'

/** The STW scenario's negative control: the same freeze by SIGSTOP leaves no safepoint evidence. */
export const scenario: Scenario = {
  name: 'stw-sigstop',
  summary: 'SIGSTOP of one of 3 ZooKeeper-mode brokers for 9 s under producer load: a session expiry that is not a JVM pause',
  needs: { seconds: 80, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  watchable: true,
  run: (ctx) => runSessionStall(ctx, 'sigstop', incidentSlug('stw-sigstop', ctx.runtime.version)),
}
