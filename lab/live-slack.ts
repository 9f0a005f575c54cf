import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { observedSignalsOfRule } from '../dsl/signals-of-rule.js'
import { RedisStore } from '../engine/store/redis-store.js'
import { loadRules } from '../rule-files/load-rules.js'
import type { LabCluster } from './cluster.js'
import { freePort } from './free-port.js'
import { REPO_DIR } from './kafka-runtime.js'
import { deleteStoreKeys, labServeConfig, median, startServe, StoreWatcher, type ServeChild, type ServeEngineSettings } from './live-serve.js'
import { runScenario, SCENARIOS } from './run-scenario.js'
import type { ScenarioExpectation, ScenarioOutcome } from './scenario.js'
import { SlackStandIn, type RecordedCall } from './slack-stand-in.js'

/**
 * Fault → Slack on the path users live on: `lab <scenario> --live` starts `serve` on the scenario's
 * cluster before the fault (every broker's server.log and gc.log followed from their end, exporters
 * scraped, the admin API polled, the alert loop with serve's defaults, the Slack bot posting to a
 * local Slack Web API stand-in), then times the fault to the first message whose text or blocks name
 * the scenario's expected cause, leg by leg: fault → evidence (the broker's own timestamp), evidence
 * → stored (tail poll, parse, write), stored → alert (lag, settle, tick, evaluation), alert → posted.
 */

/** The channel the lab cluster's alerts go to. */
export const LIVE_CHANNEL = 'CLAB00001'
/**
 * The rules that name a broker from outside (rules/outside.rules) before its own evidence names the
 * mechanism: a message naming one is the run's first message, and the message naming the scenario's
 * cause (an edit of it, or a post) is timed as the mechanism named.
 */
export const OUTSIDE_RULES = ['broker_stopped_responding', 'broker_fenced_not_responding', 'broker_process_stopped', 'broker_process_gone'] as const

/** serve's defaults, stated so the table says what it measured. */
export const SERVE_ENGINE_DEFAULTS = 'tick 1s, lag 0s, settle 2s'

export type LiveSlackOptions = {
  /** Longest wait from the fault to a message naming the cause. Default 60 s. */
  timeoutMs?: number
  /** `live.engine` of serve's config; omitted keys keep serve's defaults. */
  engine?: ServeEngineSettings
  redisUrl?: string
  kafkaVersion?: string
  /** Keep each run's directory (serve.log, the generated config, alerts.jsonl, slack.jsonl). */
  keepDir?: boolean
  log?: (line: string) => void
}

/** One live run of one scenario. Times are epoch ms; undefined when it did not happen. */
export type LiveSlackResult = {
  scenario: string
  run: number
  faultAt?: number
  /** The rule ids a message had to name: the expected top rule, the ones allowed instead and the early warnings. */
  expected: string[]
  rule?: string
  broker?: string
  /** The newest signal of the match when the alert first fired, by the broker's own clock. */
  evidenceAt?: number
  /** When the line of that signal was in the broker's log file (its size sampled every 100 ms), for a log signal. */
  writtenAt?: number
  /** When that signal was first seen in serve's store. */
  storedAt?: number
  /** When the alert was first seen firing in the store. */
  alertAt?: number
  /** When the Slack stand-in received the message naming the cause. */
  postedAt?: number
  /** chat.postMessage or chat.update. */
  method?: string
  /** When the cause was first named by an early warning: when a message named the failure itself. */
  failurePostedAt?: number
  /** The rule that named the failure (the mechanism), and the newest signal of its match by the broker's own clock. */
  failureRule?: string
  failureEvidenceAt?: number
  /** Slack Web API calls the bot made during the run, and what the stand-in found wrong in any of them. */
  calls: number
  problems: string[]
  /** Why there is no measurement (a scenario failure, no message within the timeout). */
  note?: string
  /** The run's directory, when kept. */
  dir?: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** True when a message's text or blocks name one of `ruleIds` (the alert message says rule `id`). */
export function namesCause(call: RecordedCall, ruleIds: readonly string[]): boolean {
  const text = `${typeof call.args.text === 'string' ? call.args.text : ''}\n${JSON.stringify(call.args.blocks ?? '')}`
  return ruleIds.some((id) => new RegExp(`(^|[^A-Za-z0-9_])${id}($|[^A-Za-z0-9_])`).test(text))
}

/**
 * Everything one live run starts beside the scenario's cluster: the Slack stand-in, serve (bot
 * included) on a Redis key prefix of its own, and a poller on that prefix. `watch` is the scenario's
 * ctx.watch; `awaitMessage` runs after the scenario; `close` stops everything, whatever happened.
 */
export class LiveSlackWatch {
  readonly dir = mkdtempSync(join(tmpdir(), 'kafka-why-live-'))
  readonly slack = new SlackStandIn()
  private readonly prefix = `kafka-why-live-${randomUUID()}:`
  private readonly redisUrl: string
  private readonly store: RedisStore
  private serve?: ServeChild
  private watcher?: StoreWatcher
  private expected: string[] = []
  /** The early warnings among `expected` (the scenario's `warnsFirst`). */
  private warnings: string[] = []
  /** Rule id → the signals its match rests on, for the evidence → stored leg. */
  private observed = new Map<string, string[]>()
  /** Each followed log file's size over time (a sample whenever it changed), to tell when a line was written. */
  private readonly growth = new Map<string, { at: number; size: number }[]>()
  private sampler?: NodeJS.Timeout
  /** The pid last written to each broker's pid file. */
  private readonly pids = new Map<number, number>()

  constructor(private readonly opts: LiveSlackOptions = {}) {
    this.redisUrl = opts.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
    this.store = new RedisStore({ url: this.redisUrl, prefix: this.prefix })
  }

  /** The scenario's ctx.watch: starts the stand-in and serve on the running cluster. */
  readonly watch = async (cluster: LabCluster, expect: ScenarioExpectation): Promise<void> => {
    if (!expect.topRule) throw new Error('a healthy control names no cause: nothing for --live to wait for')
    const named = [expect.topRule, ...(expect.alsoTop ?? [])]
    this.warnings = [...(expect.warnsFirst ?? []), ...OUTSIDE_RULES.filter((id) => !named.includes(id))]
    this.expected = [...named, ...this.warnings]
    const build = resolve(REPO_DIR)
    const { rules } = await loadRules([join(build, 'rules')])
    for (const r of rules) if (this.expected.includes(r.id)) this.observed.set(r.id, observedSignalsOfRule(r))
    const missing = this.expected.filter((id) => !this.observed.has(id))
    if (missing.length === this.expected.length) throw new Error(`no rule ${missing.join(', ')} in ${join(build, 'rules')}`)
    for (const b of cluster.brokers) for (const f of [b.serverLog, b.gcLog, join(b.logDir, 'controller.log')]) this.growth.set(f, [])
    // serve reads each broker's process through a pid file, kept current across a restart.
    const pidFiles = Object.fromEntries(cluster.brokers.map((b) => [b.id, join(this.dir, `broker-${b.id}.pid`)]))
    const writePids = () => {
      for (const b of cluster.brokers) if (b.pid > 0 && this.pids.get(b.id) !== b.pid) {
        writeFileSync(pidFiles[b.id], `${b.pid}\n`)
        this.pids.set(b.id, b.pid)
      }
    }
    writePids()
    this.sampler = setInterval(() => {
      this.sampleSizes()
      writePids()
    }, 100)
    await this.slack.start()
    const listenPort = await freePort()
    const botPort = await freePort()
    const config = join(this.dir, 'kafka-why.yaml')
    writeFileSync(config, labServeConfig({ cluster, listenPort, engine: this.opts.engine, build, bot: { channel: LIVE_CHANNEL, listenPort: botPort }, pidFiles }))
    this.serve = await startServe({
      build,
      config,
      logFile: join(this.dir, 'serve.log'),
      listenPort,
      env: {
        ...process.env,
        REDIS_URL: this.redisUrl,
        REDIS_CLUSTER_NODES: '',
        KAFKA_WHY_REDIS_PREFIX: this.prefix,
        SLACK_BOT_TOKEN: this.slack.botToken,
        SLACK_SIGNING_SECRET: 'lab-signing-secret',
        SLACK_SOCKET_MODE: '',
        SLACK_API_URL: this.slack.apiUrl,
      },
      ready: (h) => {
        if (!h.bot.running) throw new Error(`serve's bot did not start: ${h.bot.reason ?? 'no reason given'}`)
        return h.bot.slack === 'up'
      },
    })
    this.watcher = new StoreWatcher(this.store, {
      brokers: cluster.brokers.map((b) => String(b.id)),
      names: [...new Set([...this.observed.values()].flat())],
      alertsFile: join(this.dir, 'alerts.jsonl'),
    })
    this.watcher.start()
  }

  /** After the scenario: waits (up to the timeout from the fault) for a message naming the cause, and times it. */
  async awaitMessage(outcome: Pick<ScenarioOutcome, 'faultAt'>, result: LiveSlackResult): Promise<void> {
    const faultAt = outcome.faultAt
    result.faultAt = faultAt
    result.expected = this.expected
    const deadline = faultAt + (this.opts.timeoutMs ?? 60_000)
    const naming = (ids: string[]) => this.slack.calls.find((c) => (c.method === 'chat.postMessage' || c.method === 'chat.update') && c.status === 200 && c.at >= faultAt && namesCause(c, ids))
    const awaitNaming = async (ids: string[]) => {
      let call = naming(ids)
      while (!call && Date.now() < deadline) {
        await sleep(100)
        call = naming(ids)
      }
      return call
    }
    const call = await awaitNaming(this.expected)
    if (!call) {
      result.note = `no Slack message named ${this.expected.join(' or ')} within ${Math.round((deadline - faultAt) / 1000)} s of the fault`
      return
    }
    result.postedAt = call.at
    result.method = call.method
    const failure = this.expected.filter((id) => !this.warnings.includes(id))
    let failureCall = namesCause(call, failure) ? call : undefined
    if (this.warnings.length && !failureCall) {
      // Named early, by a warning: the failure's own message is timed too, up to the same deadline.
      failureCall = await awaitNaming(failure)
      result.failurePostedAt = failureCall?.at
    }
    if (failureCall) {
      // The alert that named the mechanism, and when its own evidence happened: the broker's line.
      const until = Date.now() + 2_000
      const named = () => [...(this.watcher?.alerts.values() ?? [])].filter((a) => failure.includes(a.first.ruleId)).sort((a, b) => a.at - b.at)[0]
      while (!named() && Date.now() < until) await sleep(100)
      result.failureRule = named()?.first.ruleId
      result.failureEvidenceAt = named()?.first.evidenceAt
    }
    // The poller samples the store every 100 ms: give it a moment to have seen the alert.
    const blob = JSON.stringify(call.args)
    const alertOf = () =>
      [...(this.watcher?.alerts ?? [])].map(([fp, v]) => ({ fp, ...v })).filter((a) => this.expected.includes(a.first.ruleId) && blob.includes(a.fp)).sort((a, b) => a.at - b.at)[0]
    const until = Date.now() + 2_000
    while (!alertOf() && Date.now() < until) await sleep(100)
    const alert = alertOf()
    if (!alert) return
    const r = alert.first
    result.rule = r.ruleId
    result.broker = r.broker
    result.evidenceAt = r.evidenceAt
    // Seen by a 100 ms poll, it can look later than the post it caused: the post bounds it.
    result.alertAt = Math.min(alert.at, call.at)
    const stored = this.watcher!.firstStored(this.observed.get(r.ruleId) ?? [], r.evidenceAt, r.broker)
    result.storedAt = stored?.[1]
    result.writtenAt = this.writtenAt(stored?.[2])
  }

  private sampleSizes(): void {
    const now = Date.now()
    for (const [file, samples] of this.growth) {
      try {
        const size = statSync(file).size
        if (samples.at(-1)?.size !== size) samples.push({ at: now, size })
      } catch {
        // not there yet, or gone with its broker
      }
    }
  }

  /** When the file held all of line N of a `log:<path>:<N>` source: the first size sample past the line's end. */
  private writtenAt(source: string | undefined): number | undefined {
    const m = source ? /^log:(.+):(\d+)$/.exec(source) : null
    const samples = m ? this.growth.get(m[1]) : undefined
    if (!m || !samples) return undefined
    try {
      const text = readFileSync(m[1])
      let end = -1
      for (let line = 0; line < Number(m[2]); line++) {
        end = text.indexOf(10, end + 1)
        if (end < 0) return undefined
      }
      return samples.find((s) => s.size > end)?.at
    } catch {
      return undefined
    }
  }

  /** The Slack calls and their problems, into the result. */
  account(result: LiveSlackResult): void {
    result.calls = this.slack.calls.length
    result.problems = this.slack.allProblems()
  }

  /** Stops serve, the poller and the stand-in; removes the run's keys, and its directory unless kept. */
  async close(keep: boolean): Promise<void> {
    clearInterval(this.sampler)
    await this.watcher?.stop()
    await this.serve?.stop()
    writeFileSync(join(this.dir, 'slack.jsonl'), this.slack.calls.map((c) => JSON.stringify(c)).join('\n') + '\n')
    await this.slack.stop()
    await this.store.close()
    await deleteStoreKeys(this.redisUrl, this.prefix)
    if (!keep) rmSync(this.dir, { recursive: true, force: true })
  }
}

/** Scenario names `--live` can time: those that start serve before their fault. */
export async function watchableScenarios(): Promise<string[]> {
  const out: string[] = []
  for (const [name, load] of Object.entries(SCENARIOS)) if ((await load()).scenario.watchable) out.push(name)
  return out
}

/**
 * Runs `scenario` `runs` times with serve and the bot watching, each on a fresh cluster; the
 * recording goes to a scratch directory (removed afterwards) unless `outDir` says where. A run that
 * fails (the scenario refused to record, serve did not start) is a result with its note.
 */
export async function measureLiveSlack(scenario: string, runs: number, opts: LiveSlackOptions & { outDir?: string } = {}): Promise<LiveSlackResult[]> {
  const log = opts.log ?? (() => undefined)
  const results: LiveSlackResult[] = []
  for (let run = 1; run <= runs; run++) {
    const result: LiveSlackResult = { scenario, run, expected: [], calls: 0, problems: [] }
    const live = new LiveSlackWatch(opts)
    const outDir = opts.outDir ?? mkdtempSync(join(tmpdir(), 'kafka-why-live-rec-'))
    try {
      await runScenario(scenario, {
        outDir,
        kafkaVersion: opts.kafkaVersion,
        diagnose: false,
        watch: live.watch,
        afterRun: (outcome) => live.awaitMessage(outcome, result),
        log: (m) => log(`[${scenario} ${run}/${runs}] ${m}`),
      })
    } catch (err) {
      result.note = (err as Error).message.split('\n')[0]
    } finally {
      live.account(result)
      const keep = opts.keepDir === true || result.postedAt === undefined
      await live.close(keep)
      if (keep) result.dir = live.dir
      if (!opts.outDir) rmSync(outDir, { recursive: true, force: true })
    }
    log(`[${scenario} ${run}/${runs}] ${describeLiveResult(result)}`)
    results.push(result)
  }
  return results
}

/** When a message named the mechanism: the failure's own message, or the first one when it named it. */
const mechanismPostedAt = (r: LiveSlackResult) => r.failurePostedAt ?? (r.failureRule !== undefined ? r.postedAt : undefined)

const sec = (ms: number | undefined) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`)
const leg = (to: number | undefined, from: number | undefined) => (to === undefined || from === undefined ? undefined : to - from)

/** One line: the cause named, the total and each leg, or why not. */
export function describeLiveResult(r: LiveSlackResult): string {
  if (r.postedAt === undefined) return r.note ?? 'no message'
  const failure = r.failurePostedAt === undefined ? '' : `; the failure itself named ${sec(leg(r.failurePostedAt, r.faultAt))} after the fault`
  const mechanism = r.failureRule === undefined ? '' : `; mechanism ${r.failureRule} named ${sec(leg(mechanismPostedAt(r), r.failureEvidenceAt))} after its own evidence`
  return `${r.rule ?? '?'} on broker ${r.broker ?? '-'}: fault → Slack ${sec(leg(r.postedAt, r.faultAt))}${failure} (evidence ${sec(leg(r.evidenceAt, r.faultAt))}, stored ${sec(leg(r.storedAt, r.evidenceAt))} of which in the file ${sec(leg(r.writtenAt, r.evidenceAt))}, alert ${sec(leg(r.alertAt, r.storedAt))}, posted ${sec(leg(r.postedAt, r.alertAt))})${mechanism}; ${r.calls} Slack calls, ${r.problems.length} invalid`
}

/** The table `lab <scenario> --live` prints: one row per run, then p50 and worst of fault → Slack per scenario. */
export function liveSlackTable(results: LiveSlackResult[]): string {
  const head = ['scenario', 'run', 'cause named', 'fault→evidence', 'evidence→stored', '(→in file)', 'stored→alert', 'alert→posted', 'fault→Slack', 'failure named', 'mechanism', 'its evidence→Slack', 'invalid']
  const rows = results.map((r) => [
    r.scenario,
    String(r.run),
    r.postedAt === undefined ? `none: ${r.note ?? ''}` : `${r.rule} (broker ${r.broker ?? '-'})`,
    sec(leg(r.evidenceAt, r.faultAt)),
    sec(leg(r.storedAt, r.evidenceAt)),
    sec(leg(r.writtenAt, r.evidenceAt)),
    sec(leg(r.alertAt, r.storedAt)),
    sec(leg(r.postedAt, r.alertAt)),
    sec(leg(r.postedAt, r.faultAt)),
    sec(leg(r.failurePostedAt, r.faultAt)),
    r.failureRule ?? '–',
    sec(leg(mechanismPostedAt(r), r.failureEvidenceAt)),
    String(r.problems.length),
  ])
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (i === 2 ? Math.min(row[i].length, 40) : row[i].length))))
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join('  ').trimEnd()
  const out = [line(head), ...rows.map(line)]
  for (const name of [...new Set(results.map((r) => r.scenario))]) {
    const rs = results.filter((r) => r.scenario === name)
    const totals = rs.map((r) => leg(r.postedAt, r.faultAt)).filter((x): x is number => x !== undefined)
    const p50 = (f: (r: LiveSlackResult) => number | undefined) => sec(median(rs.map(f)))
    const failures = rs.map((r) => leg(mechanismPostedAt(r), r.faultAt)).filter((x): x is number => x !== undefined)
    const ownLag = rs.map((r) => leg(mechanismPostedAt(r), r.failureEvidenceAt)).filter((x): x is number => x !== undefined)
    const failure = failures.length
      ? `; the mechanism named p50 ${sec(median(failures))}, worst ${sec(Math.max(...failures))} after the fault, p50 ${sec(median(ownLag))}, worst ${sec(ownLag.length ? Math.max(...ownLag) : undefined)} after the broker's own evidence`
      : ''
    out.push(
      `${name}: ${totals.length} of ${rs.length} runs named the cause; fault → first Slack message p50 ${sec(median(totals))}, worst ${sec(totals.length ? Math.max(...totals) : undefined)}${failure}` +
        ` (p50 legs: evidence ${p50((r) => leg(r.evidenceAt, r.faultAt))}, stored ${p50((r) => leg(r.storedAt, r.evidenceAt))}, alert ${p50((r) => leg(r.alertAt, r.storedAt))}, posted ${p50((r) => leg(r.postedAt, r.alertAt))}); serve ${SERVE_ENGINE_DEFAULTS} unless told otherwise`,
    )
  }
  return out.join('\n')
}
