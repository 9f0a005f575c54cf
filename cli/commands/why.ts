import { looksHealthy } from '../../engine/abnormal.js'
import { diagnose } from '../../engine/diagnose.js'
import { diagnoseCluster, type ClusterDiagnoseOptions } from '../../engine/diagnose-cluster.js'
import { renderClusterDiagnosis } from '../render-cluster.js'
import { describeUnread } from '../../engine/unread-input.js'
import { unreadInput } from '../../adapters/unread-input.js'
import type { Store } from '../../engine/store/store.js'
import { parseAt } from '../../signals/jsonl.js'
import { isoStamp, renderDiagnosis } from '../render-text.js'
import { readDuration, withRulesAndStore } from '../command-setup.js'
import { CommandError, UsageError } from '../usage-error.js'
import type { WHY_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { checkZone, describeIngest, REPLAY_HELD_ENV, replayHeldLimit, ingestSources, readBrokerId, readBrokerPaths, type IngestResult } from './replay.js'
import { MemoryStore } from '../../engine/store/memory-store.js'
import { answerGroup } from './why-group.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('why', argv)

/** `kafka-why why <broker>`: the ranked diagnosis of one broker. */
export async function execute({ args, options }: CommandInput<typeof WHY_OPTIONS>): Promise<number> {
  let asked: string | undefined
  if (args.length === 1) {
    asked = readBrokerId(args[0])
    if (!asked) throw new UsageError(`'${args[0]}' is not a broker id (expected 3 or broker-3)`)
  }
  const sinceMs = options.since === undefined ? undefined : readDuration(options.since, '--since')
  if (sinceMs !== undefined && sinceMs <= 0) throw new UsageError(`--since: expected a positive duration, got '${options.since}'`)
  const at = options.at === undefined ? undefined : readTime(options.at)
  const perPath = readBrokerPaths(options.broker)
  checkZone(options.tz)
  const replay = [...options.replay.flatMap((p) => p.split(',')).filter(Boolean), ...perPath.keys()]
  if (asked !== undefined && options.group !== undefined) throw new UsageError('why takes a broker or --group, not both')
  if (asked === undefined && replay.length === 0 && options.cluster === undefined && options.group === undefined) {
    throw new UsageError('why needs a broker, e.g. kafka-why why 3, a cluster (kafka-why why --cluster prod), a consumer group (kafka-why why --group billing), or logs to read (kafka-why why --replay /var/log/kafka)')
  }
  const maxHeld = replayHeldLimit(process.env)
  return withRulesAndStore(options.rules, async (rules, store) => {
    let window: { from: number; to: number } | undefined
    let broker = asked
    let ingest: IngestResult | undefined
    if (replay.length) {
      ingest = await ingestSources(store, replay, options.cluster, {
        defaultBroker: asked,
        brokers: perPath,
        timeZone: options.tz,
        // A private in-memory replay keeps its newest signals within a bound (those up to --at when
        // given, since nothing later is read); a store asked for keeps all.
        ...(store instanceof MemoryStore ? { maxHeld, ...(at !== undefined ? { until: at } : {}) } : {}),
        progress: (line) => console.error(line),
      })
      if (!options.json) console.error(describeIngest(ingest))
      if (ingest.keptFrom !== undefined) {
        console.error(`kafka-why: these logs hold more than the ${maxHeld.toLocaleString('en-US')} signals one replay keeps in memory: diagnosing from ${isoStamp(ingest.keptFrom)} on (${ingest.dropped.toLocaleString('en-US')} older signals not kept; --at picks an earlier moment, ${REPLAY_HELD_ENV} raises the bound)`)
      }
      // A loop, not Math.min(...all): a replay of a few hundred thousand signals overflows the stack.
      for (const times of ingest.times.values()) {
        for (const t of times) window = window ? { from: Math.min(window.from, t), to: Math.max(window.to, t) } : { from: t, to: t }
      }
      // With --at, what came after it was read but not kept: the window still ends where the logs do.
      if (window && ingest.newest > window.to) window = { from: window.from, to: ingest.newest }
      if (options.group !== undefined) {
        const to = at !== undefined && window ? Math.min(at, window.to) : (window?.to ?? Date.now())
        return answerGroup(rules, store, { group: options.group, cluster: options.cluster, from: window?.from, to, sinceMs, json: options.json, verbose: options.verbose })
      }
      if (broker === undefined) {
        const found = [...ingest.brokers].flatMap(([c, set]) => [...set].map((b) => ({ cluster: c, broker: b })))
        if (found.length === 0) return reportNothingAbnormal(ingest, window, options.json)
        if (found.length > 1) {
          // Several brokers' logs are a cluster event: answer for the cluster, origin first.
          const clusters = [...new Set(found.map((f) => f.cluster))]
          if (clusters.length > 1) throw new UsageError(`the logs hold ${clusters.length} clusters (${clusters.join(', ')}): pass --cluster NAME, or name a broker`)
          const to = at !== undefined && window ? Math.min(at, window.to) : window!.to
          const from = sinceMs !== undefined ? to - sinceMs : window!.from
          return answerCluster(rules, store, { cluster: clusters[0], from, to, now: to, dataEnds: ingest.ends }, options, ingest)
        }
        broker = found[0].broker
        if (!options.json) console.error(`diagnosing broker ${broker}, the one broker in these logs`)
      } else if (ingest.brokers.size === 0 && !(await store.brokers()).some((r) => r.broker === broker)) {
        // Nothing in the logs became a broker's signal: healthy input, not an error.
        return reportNothingAbnormal(ingest, window, options.json)
      }
    }
    if (options.group !== undefined) return answerGroup(rules, store, { group: options.group, cluster: options.cluster, to: at ?? Date.now(), sinceMs, json: options.json, verbose: options.verbose })
    if (broker === undefined) {
      // --cluster without a broker: the cluster's answer over the store.
      const to = at ?? Date.now()
      return answerCluster(rules, store, { cluster: options.cluster!, from: to - (sinceMs ?? 3_600_000), to, now: to }, options, undefined)
    }
    const cluster = await resolveCluster(store, broker!, options.cluster)
    // A replay is answered inside its data: --at past the last record evaluates no window beyond it.
    const now = at !== undefined && window ? Math.min(at, window.to) : (at ?? window?.to ?? Date.now())
    const from = sinceMs !== undefined ? now - sinceMs : window && at === undefined ? window.from : now - 3_600_000
    // ... and inside the broker's own data: logs that stop before the rest are answered at their end.
    const end = ingest ? ingest.ends.clamp(cluster, broker!, now) : now
    const diagnosis = await diagnose(rules, store, { cluster, broker: broker!, from: Math.min(from, end), to: end, now: end, dataEnds: ingest?.ends })
    const unread = ingest && unreadInput(ingest.stats)
    if (unread) diagnosis.unread = unread
    if (options.json) console.log(JSON.stringify(diagnosis, null, 2))
    else {
      console.log(renderDiagnosis(diagnosis, { verbose: options.verbose, color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }))
      if (ingest && looksHealthy(diagnosis)) console.log(nothingAbnormal(ingest, window))
    }
    return 0
  }, replay.length ? { store: options.store } : undefined)
}

/** The cluster's answer: origin brokers first with their whole diagnosis, the others as consequences. */
async function answerCluster(
  rules: Parameters<typeof diagnoseCluster>[0],
  store: Store,
  w: ClusterDiagnoseOptions,
  options: { json: boolean; verbose: boolean },
  ingest: IngestResult | undefined,
): Promise<number> {
  const answer = await diagnoseCluster(rules, store, w)
  if (answer.brokers.length === 0) throw new CommandError(`no broker of cluster '${w.cluster}' has signals in the store`)
  const unread = ingest && unreadInput(ingest.stats)
  if (unread) for (const part of answer.brokers) part.diagnosis.unread = unread
  if (options.json) console.log(JSON.stringify(answer, null, 2))
  else {
    console.log(renderClusterDiagnosis(answer, { verbose: options.verbose, color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }))
    if (ingest && answer.brokers.every((b) => looksHealthy(b.diagnosis))) console.log(nothingAbnormal(ingest, { from: w.from, to: w.to }))
  }
  return 0
}

/**
 * "nothing abnormal in 509 lines from 2 files (span 10:00:00 → 10:42:13)": a healthy answer, given only
 * when every line and file was read; otherwise what went unread comes first and nothing is called healthy.
 */
function nothingAbnormal(ingest: IngestResult, window: { from: number; to: number } | undefined): string {
  const files = ingest.stats.files.length
  const span = window ? `span ${isoStamp(window.from)} → ${isoStamp(window.to)}` : 'no timestamps read'
  const unread = unreadInput(ingest.stats)
  const lines = ingest.stats.logs.lines - (unread?.lines ?? 0)
  const read = `${lines} lines from ${files} file${files === 1 ? '' : 's'} (${span})`
  if (unread) return `${describeUnread(unread)}; no problem found in the other ${read}, which says nothing about the rest`
  return `nothing abnormal in ${read}`
}

/** Healthy logs are an answer, not an error: exit 0 with what was read. */
function reportNothingAbnormal(ingest: IngestResult, window: { from: number; to: number } | undefined, json: boolean): number {
  if (ingest.stats.files.length === 0) throw new CommandError(`nothing read: ${ingest.stats.skipped.map((s) => `${s.file} (${s.reason})`).join(', ') || 'no log files in the given paths'}`)
  const text = nothingAbnormal(ingest, window)
  const unread = unreadInput(ingest.stats)
  const summary = { healthy: unread === undefined, summary: text, lines: ingest.stats.logs.lines, files: ingest.stats.files.length, window, ...(unread ? { unread } : {}) }
  console.log(json ? JSON.stringify(summary) : text)
  return 0
}



function readTime(text: string): number {
  const t = /^\d+$/.test(text.trim()) ? Number(text.trim()) : parseAt(text)
  if (t === undefined || !Number.isFinite(t)) throw new UsageError(`--at: expected an ISO-8601 time with an offset (2018-08-14T02:16:00Z) or epoch ms, got '${text}'`)
  return t
}

/** The broker's cluster: as given, or the only cluster that has this broker. */
async function resolveCluster(store: Store, broker: string, given: string | undefined): Promise<string> {
  const refs = await store.brokers()
  if (given !== undefined) {
    if (!refs.some((r) => r.cluster === given && r.broker === broker)) {
      const known = refs.filter((r) => r.cluster === given).map((r) => r.broker)
      throw new CommandError(`no signals stored for broker ${broker} of cluster ${given}${known.length ? ` (its brokers: ${known.join(', ')})` : ''}`)
    }
    return given
  }
  const clusters = refs.filter((r) => r.broker === broker).map((r) => r.cluster)
  if (clusters.length === 1) return clusters[0]
  if (clusters.length > 1) throw new UsageError(`broker ${broker} exists in clusters ${clusters.join(', ')}; pass --cluster`)
  if (refs.length === 0) throw new CommandError('no signals stored yet: pass --replay <incident dir or files>, or set REDIS_URL (or REDIS_CLUSTER_NODES) to a store the adapters write to')
  throw new CommandError(`no signals stored for broker ${broker} (known brokers: ${refs.map((r) => `${r.cluster}/${r.broker}`).join(', ')})`)
}
