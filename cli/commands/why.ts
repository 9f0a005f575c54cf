import { looksHealthy } from '../../engine/abnormal.js'
import { diagnose } from '../../engine/diagnose.js'
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
import path from 'node:path'
import { checkZone, describeIngest, ingestSources, readBrokerId, readBrokerPaths, type IngestResult } from './replay.js'

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
  if (asked === undefined && replay.length === 0) throw new UsageError('why needs a broker, e.g. kafka-why why 3 (or logs to read: kafka-why why --replay /var/log/kafka)')
  return withRulesAndStore(options.rules, async (rules, store) => {
    let window: { from: number; to: number } | undefined
    let broker = asked
    let ingest: IngestResult | undefined
    if (replay.length) {
      ingest = await ingestSources(store, replay, options.cluster, {
        defaultBroker: asked,
        fallbackBroker: asked === undefined ? fallbackBrokerName(replay[0]) : undefined,
        brokers: perPath,
        timeZone: options.tz,
      })
      if (!options.json) console.error(describeIngest(ingest))
      // A loop, not Math.min(...all): a replay of a few hundred thousand signals overflows the stack.
      for (const times of ingest.times.values()) {
        for (const t of times) window = window ? { from: Math.min(window.from, t), to: Math.max(window.to, t) } : { from: t, to: t }
      }
      if (broker === undefined) {
        const found = [...ingest.brokers].flatMap(([c, set]) => [...set].map((b) => ({ cluster: c, broker: b })))
        if (found.length === 0) return reportNothingAbnormal(ingest, window, options.json)
        if (found.length > 1) {
          throw new UsageError(`the logs hold ${found.length} brokers (${found.map((f) => f.broker).join(', ')}): name one, e.g. kafka-why why ${found[0].broker} --replay ${replay.join(' --replay ')}`)
        }
        broker = found[0].broker
        if (!options.json) console.error(`diagnosing broker ${broker}, the one broker in these logs`)
      } else if (ingest.brokers.size === 0 && !(await store.brokers()).some((r) => r.broker === broker)) {
        // Nothing in the logs became a broker's signal: healthy input, not an error.
        return reportNothingAbnormal(ingest, window, options.json)
      }
    }
    const cluster = await resolveCluster(store, broker!, options.cluster)
    const now = at ?? window?.to ?? Date.now()
    const from = sinceMs !== undefined ? now - sinceMs : window && at === undefined ? window.from : now - 3_600_000
    const diagnosis = await diagnose(rules, store, { cluster, broker: broker!, from, to: now, now })
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

/** A broker name for records that name none when no broker was asked: the directory's or file's name. */
function fallbackBrokerName(p: string): string {
  const base = path.basename(path.resolve(p)).replace(/\.(log|out|txt|gz|zip|tgz|tar)(\.gz)?$/i, '')
  return base.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'logs'
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
