import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pause, runFaultScenario, ORDERS_LOAD, startOrdersConsumer } from '../fault-scenario.js'
import { javaToolCommand } from '../java-tool.js'
import { spawnManaged, type ManagedProcess } from '../managed-process.js'
import type { Scenario } from '../scenario.js'
import { countLines } from '../session-stall.js'
import { waitFor } from '../wait-for.js'

const GROUP = 'billing'
const POLL_INTERVAL_MS = 20_000
const SETTLE_MS = 20_000
const STUCK_MS = 60_000

/**
 * A consumer whose processing blocks: two members of group billing, a `kafka-consumer-perf-test` and a
 * `kafka-console-consumer` whose output goes through a pipe to a reader. The reader is SIGSTOPped, so
 * once the pipe is full the console consumer's poll loop blocks writing a record while its heartbeat
 * thread keeps the membership alive; after `max.poll.interval.ms` (lowered to 20 s) the client gives the
 * group up ("consumer poll timeout has expired") and the coordinator rebalances without it. Its
 * partitions' lag grows meanwhile; the producer keeps writing.
 */
export const scenario: Scenario = {
  name: 'stuck-consumer',
  summary: `a consumer of group ${GROUP} whose poll loop blocks (its output pipe stops being read) for ${STUCK_MS / 1000} s, max.poll.interval.ms=${POLL_INTERVAL_MS / 1000} s: the client leaves the group on its poll timeout`,
  needs: { seconds: 150, memoryMb: 1_500, ports: 'ZooKeeper 1, brokers 3, exporters 3 (dynamic, 127.0.0.1)' },
  run: (ctx) => {
    const consumers: ManagedProcess[] = []
    let readerPid = 0
    let stoppedAt = 0
    return runFaultScenario(ctx, {
      slug: 'lab-stuck-consumer',
      title: 'a consumer whose processing blocks: the group removes it on its poll timeout',
      brokers: 3,
      ...ORDERS_LOAD,
      // The group's coordinator is not known before the run; broker 1 is asked, and the rule test checks every broker.
      pickTarget: () => 1,
      async inject(env) {
        const bootstrap = env.cluster.bootstrap
        consumers.push(startOrdersConsumer(env, GROUP, 1))
        const pidFile = join(env.clientsDir, 'reader.pid')
        const java = javaToolCommand(
          env.ctx.runtime,
          'org.apache.kafka.tools.consumer.ConsoleConsumer',
          ['--bootstrap-server', bootstrap, '--topic', 'orders', '--group', GROUP, '--consumer-property', `max.poll.interval.ms=${POLL_INTERVAL_MS}`, '--consumer-property', 'client.id=billing-worker'],
          128,
        )
        // The reader writes its pid and becomes `cat`: stopping it leaves the consumer's stdout pipe unread.
        consumers.push(
          spawnManaged('bash', ['-c', `"$@" | { echo $BASHPID > ${pidFile}; exec cat > /dev/null; }`, 'stuck-consumer', ...java], {
            stderrFile: join(env.clientsDir, 'consumer-2.log'),
          }),
        )
        await waitFor(() => { try { return Number(readFileSync(pidFile, 'utf8').trim()) > 0 } catch { return false } }, { timeoutMs: 10_000, what: 'the reader\'s pid' })
        readerPid = Number(readFileSync(pidFile, 'utf8').trim())
        await pause(SETTLE_MS)
        env.faultAt = Date.now()
        stoppedAt = env.faultAt
        process.kill(readerPid, 'SIGSTOP')
        return () => {
          try { process.kill(readerPid, 'SIGCONT') } catch { /* gone */ }
          for (const c of consumers) c.signal('SIGKILL')
        }
      },
      async aftermath() {
        await pause(STUCK_MS)
        await Promise.all(consumers.map((c) => c.stop(3_000)))
      },
      extraFiles: () => [1, 2].map((n) => ({ from: join(ctx.workDir, 'clients', `consumer-${n}.log`), to: `clients/consumer-${n}.log`, format: 'client' as const })),
      measure(env) {
        const logs = env.cluster.brokers.map((b) => b.serverLog)
        const all = (re: RegExp) => logs.reduce((n, f) => n + countLines(f, re), 0)
        return {
          'reader stopped': `${STUCK_MS / 1000} s, from ${new Date(stoppedAt).toISOString()}`,
          '"consumer poll timeout has expired" lines (stuck consumer\'s log)': countLines(join(env.clientsDir, 'consumer-2.log'), /consumer poll timeout has expired/),
          '"consumer poll timeout has expired" lines (all brokers)': all(/consumer poll timeout has expired/),
          '"Preparing to rebalance group billing" lines (all brokers)': all(new RegExp(`Preparing to rebalance group ${GROUP}\\b`)),
          '"Stabilized group billing" lines (all brokers)': all(new RegExp(`Stabilized group ${GROUP}\\b`)),
          'heartbeat expirations (all brokers)': all(/on heartbeat expiration/),
          'producer error lines': countLines(join(env.clientsDir, 'producer.log'), / (?:WARN|ERROR) /),
        }
      },
      whatWasDone: () =>
        `two members of group \`${GROUP}\` consumed topic orders: \`kafka-consumer-perf-test\` and \`kafka-console-consumer\` (client id \`billing-worker\`, \`max.poll.interval.ms=${POLL_INTERVAL_MS}\`) whose output went through a pipe to a reader (\`cat\`). After ${SETTLE_MS / 1000} s, at the time below, the reader was SIGSTOPped: once the pipe's buffer was full the console consumer's poll loop blocked writing a record, its heartbeat thread still running, and it stayed so for ${STUCK_MS / 1000} s while the producer kept writing. Both consumers were then stopped.`,
      expect: { topRule: 'group_member_stuck', absentRules: ['group_rebalance_storm', 'group_member_heartbeat_expired'] },
    })
  },
}
