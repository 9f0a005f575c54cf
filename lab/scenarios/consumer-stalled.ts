import { runLagScenario, LAG_GROUP } from '../consumer-lag-scenario.js'
import type { Scenario } from '../scenario.js'

/**
 * The consumer pauses its partitions (as one does when its downstream is stuck) and stays in the
 * group: it heartbeats and commits its unchanged position every 2 s. Burrow's STALLED (WARNING first,
 * while the window still holds the last commits that moved).
 */
export const scenario: Scenario = {
  name: 'consumer-stalled',
  summary: `the consumer of group ${LAG_GROUP} stops processing but stays in the group and keeps committing the same offsets for 70 s`,
  needs: { seconds: 140, memoryMb: 900, ports: 'ZooKeeper 1, broker 1, exporter 1 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runLagScenario(ctx, {
      slug: 'lab-consumer-stalled',
      title: 'a consumer stalled: it commits the same offsets while lag grows',
      consumerRate: 400,
      settleMs: 40_000,
      async act(consumer) {
        consumer.signal('SIGUSR1')
      },
      observeMs: 70_000,
      whatWasDone: 'the consumer was sent SIGUSR1: it paused its partitions (kafkajs `pause`), stayed in the group heartbeating, and went on committing its unchanged position every 2 s.',
      expect: { topRule: 'consumer_group_stalled', absentRules: ['consumer_group_stopped'] },
    }),
}
