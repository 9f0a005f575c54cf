import { runLagScenario, LAG_GROUP } from '../consumer-lag-scenario.js'
import type { Scenario } from '../scenario.js'

/** The group's only consumer shuts down cleanly (LeaveGroup): the group is empty, nobody commits, lag grows. */
export const scenario: Scenario = {
  name: 'consumer-stopped',
  summary: `the only consumer of group ${LAG_GROUP} is stopped (SIGTERM, it leaves the group): commits stop while the producer writes on`,
  needs: { seconds: 140, memoryMb: 900, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runLagScenario(ctx, {
      slug: 'lab-consumer-stopped',
      title: 'a consumer stopped: its group is empty and lag grows',
      consumerRate: 400,
      settleMs: 40_000,
      async act(consumer) {
        await consumer.stop(5_000)
      },
      observeMs: 70_000,
      whatWasDone: 'the consumer was sent SIGTERM: it left the group (LeaveGroup) and exited; nothing consumed the topic afterwards.',
      expect: { topRule: 'consumer_group_stopped', absentRules: ['consumer_group_stalled', 'consumer_group_falling_behind'] },
    }),
}
