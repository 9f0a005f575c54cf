import { runLagScenario, LAG_GROUP } from '../consumer-lag-scenario.js'
import type { Scenario } from '../scenario.js'

/**
 * A healthy consumer that processes 300 records/s under a steady 200/s meets a producer burst of
 * 1500/s for 40 s: its lag grows while it consumes at full speed. Burrow's WARNING, nothing broken.
 */
export const scenario: Scenario = {
  name: 'consumer-slow-burst',
  summary: `a consumer of group ${LAG_GROUP} that keeps up with 200 records/s falls behind a 40 s producer burst of 1500 records/s`,
  needs: { seconds: 150, memoryMb: 1_100, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runLagScenario(ctx, {
      slug: 'lab-consumer-slow-burst',
      title: 'a producer burst outruns a healthy consumer: lag grows, nothing is broken',
      consumerRate: 300,
      settleMs: 40_000,
      async act(_consumer, env) {
        env.burst(1_500, 40)
      },
      observeMs: 60_000,
      whatWasDone: 'a second `kafka-producer-perf-test` wrote 1500 records/s of 512 B for 40 s (60,000 records) beside the steady 200/s; the consumer went on at its 300 records/s.',
      expect: { topRule: 'consumer_group_falling_behind', absentRules: ['consumer_group_stalled', 'consumer_group_stopped'] },
    }),
}
