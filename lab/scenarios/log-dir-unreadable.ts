import { join } from 'node:path'
import { awaitLogDirHalt, runFaultScenario } from '../fault-scenario.js'
import { firstReason, needsCommand, needsRoot, UNPRIVILEGED } from '../faults/requirements.js'
import { makeUnreadable } from '../faults/volumes.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'

const BROKER = 3
/** nobody:nogroup, present on every Debian-like system. */

/**
 * A log dir made unreadable under a broker that runs as an unprivileged user: chmod 000 on its data
 * dir, as a mistaken chmod or an ownership change by a tool run as another user does. The next
 * checkpoint or segment file it creates fails with AccessDeniedException, the dir goes offline and,
 * being the only one, takes the broker down.
 */
export const scenario: Scenario = {
  name: 'log-dir-unreadable',
  summary: `broker ${BROKER} runs as nobody; its log dir is chmod 000 under load: AccessDeniedException, the log dir fails and the broker shuts down`,
  needs: { seconds: 85, memoryMb: 1_300, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  requires: 'root (to run a broker as another user: setpriv)',
  unavailable: () => firstReason(needsRoot('running a broker as an unprivileged user'), needsCommand('setpriv', 'util-linux')),
  run: (ctx) =>
    runFaultScenario(ctx, {
      slug: 'lab-log-dir-unreadable',
      title: 'a log dir made unreadable (Permission denied) takes the broker down',
      brokers: 3,
      cluster: { runAsById: { [BROKER]: UNPRIVILEGED } },
      topic: { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', recordsPerSec: 1_000, recordBytes: 1_024 },
      warmupMs: 10_000,
      pickTarget: () => BROKER,
      async inject(env) {
        return makeUnreadable(env.target.dataDir)
      },
      aftermath: (env) => awaitLogDirHalt(env, 'its log dir became unreadable'),
      measure(env) {
        const log = env.target.serverLog
        return {
          'broker user': `uid ${UNPRIVILEGED.uid} (nobody)`,
          '"AccessDeniedException" / "Permission denied" lines': countLines(log, /AccessDeniedException|Permission denied/),
          'LogDirFailureChannel errors': countLines(log, /\(org\.apache\.kafka\.storage\.internals\.log\.LogDirFailureChannel\)/),
          '"Shutdown broker because all log dirs" lines': countLines(log, /Shutdown broker because all log dirs in .* have failed/),
          'broker exited': env.target.process.alive() ? 'no' : 'yes',
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `broker ${BROKER}, running as \`nobody\` (uid ${UNPRIVILEGED.uid}, through \`setpriv\`) with its directories owned by that user, had its log dir's mode set to 000 (\`chmod 000\`), so it could no longer list it nor create files in it.`,
      expect: { topRule: 'log_dir_permission_denied', absentRules: ['disk_full'] },
    }),
}
