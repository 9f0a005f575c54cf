import { runSessionStall } from '../session-stall.js'
import { incidentSlug } from '../kafka-versions.js'
import type { Scenario } from '../scenario.js'

/** The STW scenario in KRaft mode: the stalled broker misses its heartbeats and the controller fences it. */
export const scenario: Scenario = {
  name: 'stw-kraft',
  summary: 'safepoint stall of 12 s on one of 3 KRaft nodes under producer load (9 s broker session): the controller fences it',
  needs: { seconds: 85, memoryMb: 1_300, ports: 'nodes 3 (+3 controller listeners), exporters 3 (dynamic, 127.0.0.1)' },
  watchable: true,
  run: (ctx) => runSessionStall(ctx, 'safepoint', incidentSlug('stw-kraft', ctx.runtime.version), 'kraft'),
}
