import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { awaitLogDirHalt, runFaultScenario } from '../fault-scenario.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
const PARTITION = 'orders-0'

/**
 * A partition's directory removed under a running broker, as a careless cleanup script or an operator
 * "freeing space" does: the broker's open segment keeps working until it has to create a file there
 * (a roll, a checkpoint, a snapshot), then the I/O fails, the whole log dir is marked offline and,
 * being the only one, takes the broker down.
 */
export const scenario: Scenario = {
  name: 'partition-dir-removed',
  summary: `broker ${BROKER}'s directory of ${PARTITION} deleted (rm -rf) under load: the next file it creates there fails and the log dir goes offline`,
  needs: { seconds: 110, memoryMb: 1_000, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) =>
    runFaultScenario(ctx, {
      slug: 'lab-partition-dir-removed',
      title: 'a partition directory removed under a running broker',
      brokers: 3,
      // Small segments, so a roll (a new file in the removed directory) comes within seconds.
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2', 'segment.bytes': String(1024 * 1024) } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 10_000,
      pickTarget: () => BROKER,
      async inject(env) {
        rmSync(join(env.target.dataDir, PARTITION), { recursive: true, force: true })
      },
      aftermath: (env) => awaitLogDirHalt(env, `${PARTITION} was removed`),
      measure(env) {
        const log = env.target.serverLog
        return {
          'directory removed': `${PARTITION} (rm -rf, while the broker held its files open)`,
          '"NoSuchFileException" / "No such file or directory" lines': countLines(log, /NoSuchFileException|No such file or directory/),
          'LogDirFailureChannel errors': countLines(log, /\(org\.apache\.kafka\.storage\.internals\.log\.LogDirFailureChannel\)/),
          '"Shutdown broker because all log dirs" lines': countLines(log, /Shutdown broker because all log dirs in .* have failed/),
          'broker exited': env.target.process.alive() ? 'no' : 'yes',
        }
      },
      whatWasDone: () =>
        `broker ${BROKER}'s directory of partition \`${PARTITION}\` (its segments, indexes and checkpoints) was deleted with \`rm -rf\` while the broker ran; the topic's 1 MiB segments made the next roll, a new file in that directory, come within seconds.`,
      expect: { topRule: 'log_dir_failure', absentRules: ['disk_full', 'log_dir_permission_denied'] },
    }),
}
