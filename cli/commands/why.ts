import { diagnose } from '../../engine/diagnose.js'
import type { Store } from '../../engine/store/store.js'
import { parseAt } from '../../signals/jsonl.js'
import { renderDiagnosis } from '../render-text.js'
import { CommandError, parseCommandArgs, readDuration, usageError, UsageError, withRulesAndStore } from '../command-setup.js'
import { describeIngest, ingestSources } from './replay.js'

const USAGE = `usage: kafka-why why <broker> [--since 1h] [--at TIME] [--replay paths] [--rules dir] [--cluster name] [--json]

Prints the ranked diagnosis of one broker: causes with their evidence timelines, near misses, and what
is abnormal when no rule matched. Reads Redis when REDIS_URL is set, else the embedded store.

  <broker>          3 or broker-3
  --since 1h        how far back to look (default 1h; with --replay, the whole recording)
  --at TIME         diagnose as of TIME (ISO-8601 with offset, or epoch ms); default now, or with
                    --replay the last replayed signal
  --replay paths    ingest these files/dirs first (comma-separated or repeated): incident
                    directories, .jsonl recordings, raw logs
  --rules dir       rule files (*.rules), default ./rules
  --cluster name    the broker's cluster, when the store knows several
  --json            the Diagnosis as JSON`

/** `kafka-why why <broker>`: the ranked diagnosis of one broker. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, USAGE, {
    since: { type: 'string' },
    at: { type: 'string' },
    replay: { type: 'string', multiple: true },
    rules: { type: 'string', default: 'rules' },
    cluster: { type: 'string' },
    json: { type: 'boolean', default: false },
  })
  if (typeof args === 'number') return args
  if (args.positionals.length !== 1) return usageError(args.positionals.length ? `why takes one broker, got ${args.positionals.join(' ')}` : 'why needs a broker, e.g. kafka-why why 3')
  const broker = readBroker(args.positionals[0])
  if (!broker) return usageError(`'${args.positionals[0]}' is not a broker id (expected 3 or broker-3)`)
  let sinceMs: number | undefined
  let at: number | undefined
  try {
    if (args.values.since !== undefined) sinceMs = readDuration(args.values.since, '--since')
    if (sinceMs !== undefined && sinceMs <= 0) throw new UsageError(`--since: expected a positive duration, got '${args.values.since}'`)
    if (args.values.at !== undefined) at = readTime(args.values.at)
  } catch (err) {
    return usageError((err as Error).message)
  }
  const replay = (args.values.replay ?? []).flatMap((p) => p.split(',')).filter(Boolean)
  return withRulesAndStore(args.values.rules!, async (rules, store) => {
    let window: { from: number; to: number } | undefined
    if (replay.length) {
      const ingest = await ingestSources(store, replay, args.values.cluster)
      if (!args.values.json) console.error(describeIngest(ingest))
      // A loop, not Math.min(...all): a replay of a few hundred thousand signals overflows the stack.
      for (const times of ingest.times.values()) {
        for (const t of times) window = window ? { from: Math.min(window.from, t), to: Math.max(window.to, t) } : { from: t, to: t }
      }
    }
    const cluster = await resolveCluster(store, broker, args.values.cluster)
    const now = at ?? window?.to ?? Date.now()
    const from = sinceMs !== undefined ? now - sinceMs : window && at === undefined ? window.from : now - 3_600_000
    const diagnosis = await diagnose(rules, store, { cluster, broker, from, to: now, now })
    console.log(args.values.json ? JSON.stringify(diagnosis, null, 2) : renderDiagnosis(diagnosis))
    return 0
  })
}

/** "3", "broker-3", "broker3" → "3". */
export function readBroker(text: string): string | undefined {
  const m = /^(?:broker-?)?([A-Za-z0-9_.-]+)$/i.exec(text.trim())
  return m && m[1] !== '' ? m[1] : undefined
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
  if (refs.length === 0) throw new CommandError('no signals stored yet: pass --replay <incident dir or files>, or set REDIS_URL to a store the adapters write to')
  throw new CommandError(`no signals stored for broker ${broker} (known brokers: ${refs.map((r) => `${r.cluster}/${r.broker}`).join(', ')})`)
}
