import { runLagScenario, LAG_GROUP } from '../consumer-lag-scenario.js'
import type { Scenario } from '../scenario.js'

/**
 * The group's only consumer process is SIGSTOPped: it neither commits nor heartbeats. Burrow's
 * STOPPED (commits stop while lag grows); after its session timeout (10 s) the coordinator removes
 * the member on heartbeat expiration and the group is left empty.
 */
export const scenario: Scenario = {
  name: 'consumer-paused',
  summary: `the only consumer of group ${LAG_GROUP} is SIGSTOPped for 70 s: commits stop while the producer writes on`,
  needs: { seconds: 140, memoryMb: 900, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runLagScenario(ctx, {
      slug: 'lab-consumer-paused',
      title: 'a consumer process paused (SIGSTOP): its group stops committing while lag grows',
      consumerRate: 400,
      settleMs: 40_000,
      async act(consumer) {
        consumer.signal('SIGSTOP')
      },
      observeMs: 70_000,
      whatWasDone: 'the consumer process was SIGSTOPped (session.timeout.ms 10 s) and left stopped.',
      expect: { topRule: 'consumer_group_stopped', absentRules: ['consumer_group_stalled', 'consumer_group_falling_behind'] },
    }),
}
