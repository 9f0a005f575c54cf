import { SignalsTopicProducer } from '../../adapters/admin/signals-topic.js'
import { HostAgent } from '../../adapters/agent/host-agent.js'
import { parseInterval } from '../../adapters/agent/parse-interval.js'
import { SignalWriter, type WriteOutcome } from '../../engine/ingest.js'
import { openStore, sharedStoreSource } from '../../engine/store/open-store.js'
import { createLogger, logSettingsFrom, type Logger } from '../../logging/logger.js'
import type { Signal } from '../../signals/signal.js'
import type { AGENT_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('agent', argv)

/** `kafka-why agent`: the host agent for one broker. */
export async function execute({ options: args }: CommandInput<typeof AGENT_OPTIONS>): Promise<number> {
  const intervalMs = parseInterval(args.interval)
  if (intervalMs === undefined) {
    console.error(`kafka-why agent: --interval '${args.interval}' is not a duration (e.g. 15s, 500ms, 1m)`)
    return 2
  }

  if (Boolean(args.topic) !== Boolean(args.bootstrap)) {
    console.error('kafka-why agent: --topic and --bootstrap go together')
    return 2
  }
  const logSettings = logSettingsFrom(process.env, args.logLevel)
  if ('error' in logSettings) {
    console.error(`kafka-why agent: ${logSettings.error}`)
    return 2
  }
  const log = createLogger({ ...logSettings, bindings: { cmd: 'agent', cluster: args.cluster, broker: args.broker } })
  const print = args.print || args.once
  if (args.topic) return runToTopic(args.topic, args.bootstrap!.split(','), { cluster: args.cluster, broker: args.broker, pid: args.pid, logDirs: splitDirs(args.logDirs), intervalMs, once: args.once, print, log })
  const store = openStore(process.env)
  if (!sharedStoreSource(process.env) && !print) {
    log.warn('neither REDIS_URL nor REDIS_CLUSTER_NODES is set, so readings stay in this process; set one to ship them (or use --print)')
  }
  // Buffered writes: a store outage holds readings (up to the writer's bound) instead of losing them.
  const writer = new SignalWriter(store, {
    onEvent: (e) => {
      if (e.kind === 'store-down' && e.attempt === 1) log.error(`store unavailable, holding readings: ${e.message}`)
      if (e.kind === 'store-up') log.info(`store back, ${e.buffered} readings still to write`)
    },
  })
  const report = (o: WriteOutcome) => {
    const rejected = Object.entries(o.rejected)
    if (rejected.length) log.warn(`not stored: ${rejected.map(([k, n]) => `${n} (${k})`).join(', ')}`)
    return rejected.length === 0
  }
  let lastWrite: Promise<boolean> = Promise.resolve(true)
  const sink = (signals: Signal[]) => {
    if (print) for (const s of signals) process.stdout.write(JSON.stringify(s) + '\n')
    lastWrite = writer.write(signals).then(report)
  }
  const agent = new HostAgent({ cluster: args.cluster!, broker: args.broker, pid: args.pid, logDirs: splitDirs(args.logDirs), sink })

  try {
    if (args.once) {
      const o = await agent.sampleOnce()
      if (!o.ok) log.error(o.error)
      const stored = await Promise.race([lastWrite, new Promise<boolean>((r) => setTimeout(() => r(false), 5000).unref())])
      if (!stored) log.error('the reading could not be stored')
      return o.ok && stored ? 0 : 1
    }
    const sleeper = intervalSleeper()
    do {
      const o = await agent.sampleOnce().catch((err: Error) => ({ ok: false as const, error: err.message, signals: [] }))
      if (!o.ok) log.error(o.error)
    } while (await sleeper.sleep(intervalMs))
    return 0
  } finally {
    await writer.close(args.once ? 0 : 5000)
    await store.close()
  }
}

/** `--log-dirs a,b` as a list; undefined when not given. */
function splitDirs(text: string | undefined): string[] | undefined {
  const dirs = text?.split(',').map((d) => d.trim()).filter(Boolean)
  return dirs?.length ? dirs : undefined
}

/** Waits for SIGTERM/SIGINT between readings; resolves false once asked to stop. */
function intervalSleeper(): { sleep(ms: number): Promise<boolean> } {
  let stopping = false
  let wake: () => void = () => {}
  const stop = () => {
    stopping = true
    wake()
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  return {
    sleep: (ms) =>
      new Promise<boolean>((resolve) => {
        if (stopping) return resolve(false)
        const t = setTimeout(() => resolve(!stopping), ms)
        wake = () => {
          clearTimeout(t)
          resolve(false)
        }
      }),
  }
}

/** The agent shipping to the signals topic: each reading is acknowledged by the brokers (acks=all). */
async function runToTopic(
  topic: string,
  brokers: string[],
  o: { cluster: string; broker: string; pid: string; logDirs?: string[]; intervalMs: number; once: boolean; print: boolean; log: Logger },
): Promise<number> {
  const producer = new SignalsTopicProducer({ brokers, topic, clientId: `kafka-why-agent-${o.broker}` })
  let lastSend: Promise<boolean> = Promise.resolve(true)
  const sink = (signals: Signal[]) => {
    if (o.print) for (const s of signals) process.stdout.write(JSON.stringify(s) + '\n')
    lastSend = producer.send(signals).then(
      () => true,
      (err: Error) => {
        o.log.error({ topic }, `cannot send to ${topic}: ${err.message}`)
        return false
      },
    )
  }
  const agent = new HostAgent({ cluster: o.cluster, broker: o.broker, pid: o.pid, logDirs: o.logDirs, sink })
  try {
    if (o.once) {
      const r = await agent.sampleOnce()
      if (!r.ok) o.log.error(r.error)
      const sent = await lastSend
      return r.ok && sent ? 0 : 1
    }
    const sleeper = intervalSleeper()
    do {
      const r = await agent.sampleOnce()
      if (!r.ok) o.log.error(r.error)
      await lastSend
    } while (await sleeper.sleep(o.intervalMs))
    return 0
  } finally {
    await producer.close().catch(() => undefined)
  }
}
