import { join } from 'node:path'
import { ConsumerLagSource } from '../adapters/consumer-lag/consumer-lag-source.js'
import type { Signal } from '../signals/signal.js'
import { pause, runFaultScenario, type FaultEnv } from './fault-scenario.js'
import { startJavaTool } from './java-tool.js'
import { LAB_CLUSTER_NAME } from './incident-recorder.js'
import { REPO_DIR } from './kafka-runtime.js'
import { spawnManaged, type ManagedProcess } from './managed-process.js'
import type { ScenarioContext, ScenarioExpectation, ScenarioOutcome } from './scenario.js'
import { countLines } from './session-stall.js'

/** Group, topic and load every consumer-lag scenario shares: one broker, a light steady producer. */
export const LAG_GROUP = 'payments-ledger'
export const LAG_TOPIC = 'payments'
const LAG_LOAD = {
  topic: { name: LAG_TOPIC, partitions: 3, replicationFactor: 1 },
  producer: { acks: '1' as const, recordsPerSec: 200, recordBytes: 512 },
  warmupMs: 10_000,
}
/** How often the consumer-lag adapter polls log ends during a run (30 s in production; short here so a 2-minute run has a window of commits). */
export const LAG_POLL_MS = 5_000

/** What a consumer-lag scenario does to its consumer, and when. */
export type LagFault = {
  slug: string
  title: string
  /** Records a second the consumer processes. */
  consumerRate: number
  /** Steady consumption before the fault. */
  settleMs: number
  /** Does the fault to the consumer process (or the load); returns its undo. */
  act(consumer: ManagedProcess, env: FaultEnv & { burst: (recordsPerSec: number, seconds: number) => ManagedProcess }): Promise<(() => void) | void>
  observeMs: number
  whatWasDone: string
  expect: ScenarioExpectation
}

/**
 * Runs one consumer-lag scenario: a one-broker cluster, the producer's steady load, the lab's
 * kafkajs consumer (lab/lag-consumer.ts) in group LAG_GROUP, and kafka-why's consumer-lag adapter
 * reading __consumer_offsets and the log ends every LAG_POLL_MS for the whole run; its signals go
 * into the recording beside the brokers' logs and scrapes.
 */
export function runLagScenario(ctx: ScenarioContext, f: LagFault): Promise<ScenarioOutcome> {
  const collected: Signal[] = []
  let source: ConsumerLagSource | undefined
  let timer: NodeJS.Timeout | undefined
  let consumer: ManagedProcess | undefined
  const others: ManagedProcess[] = []
  let polls = 0
  let failedPolls = 0
  let mode = ''
  return runFaultScenario(ctx, {
    slug: f.slug,
    title: f.title,
    brokers: 1,
    ...LAG_LOAD,
    pickTarget: () => 1,
    async inject(env) {
      consumer = spawnManaged(process.execPath, ['--import', 'tsx', join(REPO_DIR, 'lab', 'lag-consumer.ts'), env.cluster.bootstrap, LAG_TOPIC, LAG_GROUP, String(f.consumerRate)], {
        cwd: REPO_DIR,
        stdoutFile: join(env.clientsDir, 'lag-consumer.out'),
        stderrFile: join(env.clientsDir, 'lag-consumer.err'),
      })
      // The adapter starts once the group exists: __consumer_offsets is created by the group's first request.
      await pause(5_000)
      source = new ConsumerLagSource({
        cluster: LAB_CLUSTER_NAME,
        kafka: { brokers: [env.cluster.bootstrap], clientId: 'kafka-why-lag' },
        sink: (s) => void collected.push(...s),
        onWarning: (m) => ctx.log(m),
      })
      await source.start()
      mode = source.offsetsMode
      const poll = () => {
        timer = setTimeout(() => {
          void source!.pollOnce().then((o) => {
            polls++
            if (!o.ok) failedPolls++
            poll()
          })
        }, LAG_POLL_MS)
      }
      poll()
      await pause(f.settleMs - 5_000)
      env.faultAt = Date.now()
      const burst = (recordsPerSec: number, seconds: number) => {
        const p = startJavaTool(
          env.ctx.runtime,
          'org.apache.kafka.tools.ProducerPerformance',
          ['--topic', LAG_TOPIC, '--num-records', String(recordsPerSec * seconds), '--record-size', '512', '--throughput', String(recordsPerSec),
            '--producer-props', `bootstrap.servers=${env.cluster.bootstrap}`, 'acks=1', 'client.id=perf-burst', 'linger.ms=5'],
          { stdoutFile: join(env.clientsDir, 'producer-burst.out'), logFile: join(env.clientsDir, 'producer-burst.log') },
        )
        others.push(p)
        return p
      }
      const undo = await f.act(consumer, { ...env, burst })
      return () => {
        if (undo) undo()
        consumer?.signal('SIGCONT')
        consumer?.signal('SIGKILL')
        for (const p of others) p.signal('SIGKILL')
        if (timer) clearTimeout(timer)
      }
    },
    async aftermath() {
      await pause(f.observeMs)
      if (timer) clearTimeout(timer)
      await source?.pollOnce()
      mode = source?.offsetsMode ?? mode
      await source?.stop()
      consumer?.signal('SIGCONT')
      await consumer?.stop(3_000)
      await Promise.all(others.map((p) => p.stop(3_000)))
    },
    extraSignals: () => collected,
    extraFiles: (env) => [
      { from: join(env.clientsDir, 'lag-consumer.out'), to: 'clients/lag-consumer.out', listed: false },
      ...(others.length ? [{ from: join(env.clientsDir, 'producer-burst.log'), to: 'clients/producer-burst.log', format: 'client' as const }] : []),
    ],
    measure(env) {
      const logs = env.cluster.brokers.map((b) => b.serverLog)
      const all = (re: RegExp) => logs.reduce((n, file) => n + countLines(file, re), 0)
      const byName = (n: string) => collected.filter((s) => s.name === n).length
      const lags = collected.filter((s) => s.name === 'group.lag' && s.labels?.group === LAG_GROUP)
      const maxLag = lags.reduce((m, s) => Math.max(m, s.value ?? 0), 0)
      return {
        'consumer-lag adapter': `${polls} polls every ${LAG_POLL_MS / 1000} s (${failedPolls} failed), offsets read from ${mode === 'topic' ? '__consumer_offsets' : 'the admin API'}`,
        'group.commit signals': byName('group.commit'),
        'partition.log_end signals': byName('partition.log_end'),
        [`largest lag of ${LAG_GROUP} on a partition (messages)`]: maxLag,
        [`"Preparing to rebalance group ${LAG_GROUP}" lines`]: all(new RegExp(`Preparing to rebalance group ${LAG_GROUP}\\b`)),
        'heartbeat expirations': all(/on heartbeat expiration/),
      }
    },
    whatWasDone: () =>
      `${f.whatWasDone} By then the lab's kafkajs consumer (\`lab/lag-consumer.ts\`, group \`${LAG_GROUP}\`, up to ${f.consumerRate} records/s, committing its position every 2 s as the Java consumer's auto-commit does with auto.commit.interval.ms=2000) had consumed \`${LAG_TOPIC}\` for ${f.settleMs / 1000} s, and kafka-why's consumer-lag adapter read \`__consumer_offsets\` and polled the log ends every ${LAG_POLL_MS / 1000} s from 5 s after the consumer started to the end (its signals are in \`signals.jsonl\`). The run was observed for ${f.observeMs / 1000} s after the fault.`,
    expect: f.expect,
  })
}
