import { redactText } from '../../secrets/redact.js'
import { Cluster, Redis, ReplyError, type ChainableCommander } from 'ioredis'
import { checkBrokerId } from '../broker-id.js'
import { lookupSignal } from '../../signals/catalogue.js'
import { validateSignal } from '../../signals/jsonl.js'
import type { Signal } from '../../signals/signal.js'
import { keySlot } from './cluster-slot.js'
import { BOTH_STORES_SET, displayClusterNodes, parseClusterNodes } from './cluster-nodes.js'
import { brokerMember, byTime, createKeys, decodeMember, factField, signalMember, type Keys } from './keys.js'
import { defineScripts, type ScriptCommands } from './lua-scripts.js'
import { DEFAULT_AUDIT_CAP, DEFAULT_BROKERS_PER_CLUSTER, DEFAULT_DIAGNOSES_CAP, DEFAULT_NEW_BROKERS_PER_APPEND, DEFAULT_NEW_CLUSTERS_PER_APPEND, compareBrokerRefs, withoutUndefined, type StoreCaps } from './memory-store.js'
import { StoreUnavailableError } from './store-unavailable-error.js'
import type {
  AlertRecord,
  AlertState,
  AppendOptions,
  AppendResult,
  AuditRecord,
  BrokerRef,
  PendingChange,
  PendingChangeState,
  SeriesCheck,
  SeriesCheckResult,
  SignalQuery,
  Silence,
  Store,
  StoredDiagnosis,
} from './store.js'

/** How to reach Redis and how hard to try before telling the user it is down. */
export type RedisStoreOptions = StoreCaps & {
  /** One Redis: redis://[user:password@]host:port[/db] (REDIS_URL). */
  url?: string
  /**
   * A Redis Cluster instead: its seed nodes, `host:port[,host:port…]` or redis[s]:// URLs carrying
   * the login (REDIS_CLUSTER_NODES; see cluster-nodes.ts). Giving both is a configuration error.
   */
  clusterNodes?: string
  /** Key prefix shared by this deployment's keys; default "kafka-why:". */
  prefix?: string
  /** Longest wait for a connection before a call fails. Default 1000 ms. */
  connectTimeoutMs?: number
  /** Longest wait for one command or pipeline. Default 5000 ms. */
  commandTimeoutMs?: number
  /** Signals per pipeline when appending. Default 5000. */
  batchSize?: number
  /** Most members one script call reads from one series (the alert loop's reads). Default SERIES_PAGE. */
  seriesPage?: number
}

/**
 * Members a script reads from one series per call: a window holding more (a sender flooding one
 * signal) is read in several short calls instead of one script that holds Redis for all of it.
 */
export const SERIES_PAGE = 2000

/** Times a paged read starts over when retention removes what it had read, before it gives up. */
const SERIES_RESTARTS = 5

/** Used when neither the options nor KAFKA_WHY_REDIS_PREFIX name a prefix. */
export const DEFAULT_PREFIX = 'kafka-why:'

type Scripted = (Redis | Cluster) & ScriptCommands
type ScriptedPipeline = ChainableCommander & { [K in keyof ScriptCommands]: (...args: Parameters<ScriptCommands[K]>) => ScriptedPipeline }

/** The URL as shown to people: the password is never printed. */
export function displayRedisUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString().replace(/\/$/, '')
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@')
  }
}

/** Why a REDIS_URL cannot be used, or undefined when it can. */
export function checkRedisUrl(url: string): string | undefined {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'not a URL; expected redis://host:port'
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return `unsupported scheme '${u.protocol}'; expected redis:// or rediss://`
  if (!u.hostname) return 'no host; expected redis://host:port'
  if (u.pathname && u.pathname !== '/' && !/^\/\d+$/.test(u.pathname)) return `database '${u.pathname.slice(1)}' is not a number`
  return undefined
}

/** Turns a driver error into the few words an operator can act on. */
function describeFailure(err: unknown): string {
  const e = err as { code?: string; message?: string } | undefined
  switch (e?.code) {
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found'
    case 'ETIMEDOUT':
      return 'connection timed out'
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset'
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable'
  }
  const message = e?.message ?? String(err)
  if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(message)) return 'authentication failed'
  if (/None of startup nodes is available|Failed to refresh slots cache/i.test(message)) return 'no cluster node answered'
  if (/^CLUSTERDOWN/.test(message)) return 'the cluster is down (a shard has no master)'
  if (/timed out/i.test(message)) return 'no answer in time'
  if (/Connection is closed/.test(message)) return 'connection closed'
  return message
}

/** Outages become StoreUnavailableError; Redis replies and our own bugs keep their identity. */
function isConnectionFailure(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return false
  // A cluster mid-failover answers these until a replica has taken over: an outage, not a bug.
  if (err instanceof ReplyError) return /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|MOVED|ASK) /.test((err as Error).message)
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | undefined
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return true
  // A command in flight when the connection dropped: ioredis rejects it with the command attached.
  if (e?.name === 'MaxRetriesPerRequestError' || e?.name === 'AbortError') return true
  return typeof e?.message === 'string' && /Connection is closed|Stream isn't writeable|timed out|ECONN|EPIPE|Cluster isn't ready|startup nodes|slots cache|Too many Cluster redirections/.test(e.message)
}

const encodeAlert = (record: AlertRecord): string[] => {
  const out: string[] = []
  for (const [k, v] of Object.entries(withoutUndefined(record))) out.push(k, k === 'state' ? String(v) : JSON.stringify(v))
  return out
}

const decodeAlert = (hash: Record<string, string>): AlertRecord | undefined => {
  if (!hash.state) return undefined
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(hash)) out[k] = k === 'state' ? v : JSON.parse(v)
  return out as AlertRecord
}

/**
 * Deletes exactly the keys under one prefix (SCAN + UNLINK, never FLUSHDB: a Redis may be shared by
 * several stores, benches and test runs); gives how many went. On a Cluster every master is scanned,
 * and keys are unlinked one slot at a time, since one UNLINK may not span slots.
 */
export async function deleteKeysWithPrefix(redis: Redis | Cluster, prefix: string): Promise<number> {
  if (redis instanceof Cluster) {
    // Which nodes are masters is known only once the client has read the slot map.
    if (redis.status === 'wait') await redis.connect()
    else if (redis.status === 'end') throw new Error('the Redis Cluster client is closed')
    else if (redis.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        redis.once('ready', () => resolve())
        redis.once('end', () => reject(new Error('the Redis Cluster client closed before it was ready')))
      })
    }
    const counts = await Promise.all(redis.nodes('master').map((node) => deleteOnNode(node, prefix, true)))
    return counts.reduce((a, b) => a + b, 0)
  }
  return deleteOnNode(redis, prefix, false)
}

async function deleteOnNode(redis: Redis, prefix: string, bySlot: boolean): Promise<number> {
  let cursor = '0'
  let deleted = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
    cursor = next
    if (keys.length === 0) continue
    if (!bySlot) {
      deleted += await redis.unlink(...keys)
      continue
    }
    const slots = new Map<number, string[]>()
    for (const key of keys) {
      const slot = keySlot(key)
      const list = slots.get(slot)
      if (list) list.push(key)
      else slots.set(slot, [key])
    }
    const pipe = redis.pipeline()
    for (const list of slots.values()) pipe.unlink(...list)
    for (const [err, n] of (await pipe.exec()) ?? []) {
      if (err) throw err
      deleted += n as number
    }
  } while (cursor !== '0')
  return deleted
}

/**
 * A pipeline over a Cluster, used exactly like a single Redis's: each command is routed by its first
 * key (every command RedisStore pipelines names its key first) to the node serving that key's slot,
 * one real pipeline per node, all sent at once; exec answers in the order the commands were added.
 * Commands of one pipeline may thus span shards; each command (and each Lua script) still touches one
 * slot only, which keys.ts guarantees by hash tags.
 */
function routedPipeline(cluster: Cluster): ChainableCommander {
  const calls: { name: string; args: unknown[] }[] = []
  const exec = async (): Promise<[Error | null, unknown][]> => {
    const groups = new Map<string, { pipe: ChainableCommander; positions: number[] }>()
    calls.forEach(({ name, args }, i) => {
      const slot = keySlot(String(args[0]))
      // ioredis accepts a pipeline whose keys all map to one node; before the slot map is known
      // (or for a slot it has not seen) a group per slot is always accepted.
      const node = cluster.slots[slot]?.join(';') ?? `slot ${slot}`
      let group = groups.get(node)
      if (!group) groups.set(node, (group = { pipe: cluster.pipeline(), positions: [] }))
      ;(group.pipe as unknown as Record<string, (...a: unknown[]) => unknown>)[name](...args)
      group.positions.push(i)
    })
    const out: [Error | null, unknown][] = new Array(calls.length)
    await Promise.all(
      [...groups.values()].map(async ({ pipe, positions }) => {
        const results = (await pipe.exec()) ?? []
        positions.forEach((at, j) => (out[at] = results[j] as [Error | null, unknown]))
      }),
    )
    return out
  }
  const proxy: ChainableCommander = new Proxy({} as ChainableCommander, {
    get(_, prop) {
      if (prop === 'exec') return exec
      if (typeof prop !== 'string' || prop === 'then') return undefined
      return (...args: unknown[]) => {
        calls.push({ name: prop, args })
        return proxy
      }
    },
  })
  return proxy
}

/** Brokers per broker-admit call. */
const ADMIT_CHUNK = 200

/** Members one time-trim call removes at most. */
const TRIM_CHUNK = 1000

/**
 * Member characters per ZADD: one command of 1,000 members at their size bounds was a 70 MB ZADD
 * that held Redis for a second (bench/store-hostile.ts); split, each stays a few milliseconds.
 */
const ZADD_CHARS = 128 * 1024

/** A ZADD's score/member pairs cut into parts of at most ZADD_CHARS member characters. */
function zaddParts(args: (string | number)[]): (string | number)[][] {
  let chars = 0
  for (let i = 1; i < args.length; i += 2) chars += (args[i] as string).length
  if (chars <= ZADD_CHARS) return [args]
  const parts: (string | number)[][] = []
  let part: (string | number)[] = []
  chars = 0
  for (let i = 0; i < args.length; i += 2) {
    const len = (args[i + 1] as string).length
    if (part.length > 0 && chars + len > ZADD_CHARS) {
      parts.push(part)
      part = []
      chars = 0
    }
    part.push(args[i], args[i + 1])
    chars += len
  }
  if (part.length > 0) parts.push(part)
  return parts
}

/**
 * The store a team deploys: signals, facts, alerts, silences, diagnoses and audit in Redis (layout in
 * keys.ts). Appends are pipelined in batches; the steps that must be atomic run as Lua scripts. When
 * Redis cannot be reached every call rejects within the configured timeouts with a
 * StoreUnavailableError: there is no unbounded offline queue behind it.
 */
export class RedisStore implements Store {
  private readonly redis: Scripted
  private readonly keys: Keys
  /** "Redis at redis://…" or "Redis Cluster at host:port,…", passwords hidden: what error messages name. */
  private readonly where: string
  private readonly connectTimeoutMs: number
  private readonly commandTimeoutMs: number
  private readonly batchSize: number
  private readonly diagnosesCap: number
  private readonly auditCap: number
  private readonly brokersPerCluster: number
  /** `P brokers` members this process saw admitted: only brokers not in it go through broker-admit. */
  private readonly admitted = new Set<string>()
  /** Clusters this process stored a signal of: any other counts against newClustersPerAppend. */
  private readonly knownClusters = new Set<string>()
  private readonly newClustersPerAppend: number
  private readonly newBrokersPerAppend: number
  private readonly seriesPage: number
  /** Whether `P cluster-brokers:*` were seeded from `P brokers` (once per store, checked once per process). */
  private seeded?: Promise<void>
  private lastError: unknown
  /** Why the configuration cannot be used (told by every call), or undefined. */
  private readonly problem: string | undefined
  private connecting?: Promise<void>
  private closed = false

  constructor(options: RedisStoreOptions) {
    this.keys = createKeys(options.prefix ?? DEFAULT_PREFIX)
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000
    this.commandTimeoutMs = options.commandTimeoutMs ?? 5000
    this.batchSize = options.batchSize ?? 5000
    this.seriesPage = Math.max(1, options.seriesPage ?? SERIES_PAGE)
    this.diagnosesCap = options.diagnosesCap ?? DEFAULT_DIAGNOSES_CAP
    this.auditCap = options.auditCap ?? DEFAULT_AUDIT_CAP
    this.brokersPerCluster = options.brokersPerCluster ?? DEFAULT_BROKERS_PER_CLUSTER
    this.newClustersPerAppend = options.newClustersPerAppend ?? DEFAULT_NEW_CLUSTERS_PER_APPEND
    this.newBrokersPerAppend = options.newBrokersPerAppend ?? DEFAULT_NEW_BROKERS_PER_APPEND
    // A configuration we cannot use still yields a store object; every call then reports the problem.
    const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1000)
    let redis: Redis | Cluster
    if (options.clusterNodes !== undefined) {
      this.where = `Redis Cluster at ${displayClusterNodes(options.clusterNodes)}`
      const target = parseClusterNodes(options.clusterNodes)
      if (options.url !== undefined) this.problem = BOTH_STORES_SET
      else if (typeof target === 'string') this.problem = `cannot use REDIS_CLUSTER_NODES '${displayClusterNodes(options.clusterNodes)}': ${target}`
      const usable = typeof target === 'string' ? { nodes: [{ host: '127.0.0.1', port: 6379 }], tls: false } : target
      redis = new Cluster(usable.nodes, {
        lazyConnect: true,
        enableOfflineQueue: false,
        clusterRetryStrategy: retryStrategy,
        slotsRefreshTimeout: this.connectTimeoutMs,
        redisOptions: {
          maxRetriesPerRequest: 0,
          connectTimeout: this.connectTimeoutMs,
          commandTimeout: this.commandTimeoutMs,
          username: usable.username,
          password: usable.password,
          tls: usable.tls ? {} : undefined,
        },
      })
    } else {
      const url = options.url ?? ''
      this.where = `Redis at ${displayRedisUrl(url)}`
      const urlProblem = checkRedisUrl(url)
      if (urlProblem) this.problem = `cannot use Redis URL '${displayRedisUrl(url)}': ${urlProblem}`
      redis = new Redis(urlProblem ? 'redis://127.0.0.1:6379' : url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: this.connectTimeoutMs,
        commandTimeout: this.commandTimeoutMs,
        retryStrategy,
      })
    }
    redis.on('error', (err) => {
      this.lastError = err
    })
    defineScripts(redis)
    this.redis = redis as Scripted
  }

  /** The prefix this store writes under (tests and the bench clean up exactly this). */
  get prefix(): string {
    return this.keys.prefix
  }

  private unavailable(err: unknown): StoreUnavailableError {
    // The cause keeps the driver's name and message only: ioredis attaches the aborted command and its
    // arguments (signal data) to the error, which a printed cause would otherwise dump.
    const cause = err instanceof Error && 'command' in err ? Object.assign(new Error(err.message), { name: err.name }) : err
    return new StoreUnavailableError(`cannot reach ${this.where}: ${describeFailure(err ?? this.lastError)}`, { cause })
  }

  /** Waits for a usable connection, never longer than connectTimeoutMs. */
  private async ready(): Promise<void> {
    if (this.problem) throw new StoreUnavailableError(this.problem)
    if (this.closed) throw new StoreUnavailableError(`the store for ${this.where} is closed`)
    const redis = this.redis
    if (redis.status === 'ready') return
    if (redis.status === 'wait') {
      this.connecting ??= redis.connect().finally(() => {
        this.connecting = undefined
      })
      try {
        await this.connecting
      } catch (err) {
        throw this.unavailable(this.lastError ?? err)
      }
      return
    }
    if (redis.status === 'end') throw this.unavailable(this.lastError ?? new Error('connection closed'))
    await new Promise<void>((resolve, reject) => {
      const done = (err?: unknown) => {
        clearTimeout(timer)
        redis.off('ready', onReady)
        redis.off('error', onError)
        redis.off('end', onEnd)
        if (err === undefined) resolve()
        else reject(this.unavailable(err))
      }
      const onReady = () => done()
      const onError = (err: unknown) => done(err)
      const onEnd = () => done(this.lastError ?? new Error('connection closed'))
      const timer = setTimeout(() => done(this.lastError ?? { code: 'ETIMEDOUT' }), this.connectTimeoutMs)
      redis.once('ready', onReady)
      redis.once('error', onError)
      redis.once('end', onEnd)
    })
  }

  /** Runs one store operation: connection check, a hard deadline, and outage errors made readable. */
  private async run<T>(op: () => Promise<T>): Promise<T> {
    await this.ready()
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.unavailable(new Error('timed out'))), this.commandTimeoutMs + 100)
    })
    try {
      return await Promise.race([op(), deadline])
    } catch (err) {
      if (isConnectionFailure(err)) throw this.unavailable(err)
      throw err
    } finally {
      clearTimeout(timer)
    }
  }

  /** Executes a pipeline and fails as a whole if any command failed (the caller may retry it whole). */
  private async exec(pipe: ChainableCommander): Promise<unknown[]> {
    const results = (await pipe.exec()) ?? []
    const out: unknown[] = []
    for (const [err, value] of results) {
      if (err) throw err
      out.push(value)
    }
    return out
  }

  private pipeline(): ScriptedPipeline {
    return (this.redis instanceof Cluster ? routedPipeline(this.redis) : this.redis.pipeline()) as ScriptedPipeline
  }

  async append(signals: Signal[], opts: AppendOptions = {}): Promise<AppendResult> {
    const rejected: Record<string, number> = {}
    const refusals: { index: number; reason: string }[] = []
    const refuse = (index: number, reason: string) => {
      rejected[reason] = (rejected[reason] ?? 0) + 1
      if (opts.listRefused) refusals.push({ index, reason })
    }
    let valid: Signal[] = []
    // Each valid signal's index in `signals`, kept beside it through every step that refuses some.
    let indexOf: number[] = []
    signals.forEach((raw, i) => {
      const v = validateSignal(raw)
      if (v.ok && v.signal.broker !== undefined && checkBrokerId(v.signal.broker)) refuse(i, 'invalid broker')
      else if (v.ok) {
        valid.push(v.signal)
        indexOf.push(i)
      } else refuse(i, v.reason)
    })
    ;({ valid, indexOf } = this.limitNew(valid, indexOf, refuse))
    const refused = await this.admitBrokers(valid)
    if (refused.size > 0) {
      const kept: Signal[] = []
      const keptIndex: number[] = []
      valid.forEach((s, k) => {
        if (s.broker !== undefined && refused.has(brokerMember(s.cluster, s.broker))) refuse(indexOf[k], 'too many brokers')
        else {
          kept.push(s)
          keptIndex.push(indexOf[k])
        }
      })
      valid = kept
      indexOf = keptIndex
    }
    if (this.knownClusters.size > 100_000) this.knownClusters.clear()
    for (const s of valid) this.knownClusters.add(s.cluster)
    // Each batch is its own pipeline with its own deadline, two in flight, so a large append is
    // bounded per batch rather than failing as a whole on a slow but healthy Redis.
    let next = 0
    const worker = async () => {
      while (next < valid.length) {
        const batch = valid.slice(next, (next += this.batchSize))
        await this.run(() => this.exec(this.appendPipeline(batch)))
      }
    }
    // Both workers are waited for: with Promise.all the second one's failure, once Redis is gone,
    // was a rejection nobody awaited (an unhandled AbortError printing its pipeline's arguments).
    if (valid.length > 0) {
      const outcomes = await Promise.allSettled([worker(), worker()])
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
      if (failed) throw failed.reason
    }
    return opts.listRefused ? { accepted: valid.length, rejected, refusals } : { accepted: valid.length, rejected }
  }

  /**
   * The per-append bounds: signals of clusters this process has not stored before, beyond
   * newClustersPerAppend of them, and of brokers not yet admitted, beyond newBrokersPerAppend, are
   * refused and counted. Linear in the append, no Redis call.
   */
  private limitNew(valid: Signal[], indexOf: number[], refuse: (index: number, reason: string) => void): { valid: Signal[]; indexOf: number[] } {
    const newClusters = new Set<string>()
    const newBrokers = new Set<string>()
    const kept: Signal[] = []
    const keptIndex: number[] = []
    for (const [k, s] of valid.entries()) {
      if (!this.knownClusters.has(s.cluster) && !newClusters.has(s.cluster)) {
        if (newClusters.size >= this.newClustersPerAppend) {
          refuse(indexOf[k], 'too many new clusters')
          continue
        }
        newClusters.add(s.cluster)
      }
      if (s.broker !== undefined) {
        const member = brokerMember(s.cluster, s.broker)
        if (!this.admitted.has(member) && !newBrokers.has(member)) {
          if (newBrokers.size >= this.newBrokersPerAppend) {
            refuse(indexOf[k], 'too many new brokers')
            continue
          }
          newBrokers.add(member)
        }
      }
      kept.push(s)
      keptIndex.push(indexOf[k])
    }
    return { valid: kept, indexOf: keptIndex }
  }

  /**
   * Brokers this process has not seen admitted go through broker-admit (the per-cluster cap), one
   * call per cluster; returns the members refused. Known brokers cost nothing, so a steady stream
   * never calls Redis for this.
   */
  private async admitBrokers(valid: Signal[]): Promise<Set<string>> {
    const fresh = new Map<string, Map<string, string>>()
    for (const s of valid) {
      if (s.broker === undefined) continue
      const member = brokerMember(s.cluster, s.broker)
      if (this.admitted.has(member)) continue
      let byCluster = fresh.get(s.cluster)
      if (!byCluster) fresh.set(s.cluster, (byCluster = new Map()))
      byCluster.set(s.broker, member)
    }
    const refused = new Set<string>()
    if (fresh.size === 0) return refused
    await (this.seeded ??= this.seedClusterBrokers().catch((err: unknown) => {
      this.seeded = undefined
      throw err
    }))
    const pipe = this.pipeline()
    // At most ADMIT_CHUNK brokers per script call: each call stays short whatever one append holds.
    const calls: string[][] = []
    for (const [cluster, brokers] of fresh) {
      const ids = [...brokers.keys()]
      for (let i = 0; i < ids.length; i += ADMIT_CHUNK) {
        const chunk = ids.slice(i, i + ADMIT_CHUNK)
        pipe.brokerAdmit(this.keys.clusterBrokers(cluster), this.brokersPerCluster, ...chunk)
        calls.push(chunk.map((b) => brokers.get(b)!))
      }
    }
    const answers = (await this.run(() => this.exec(pipe))) as number[][]
    if (this.admitted.size > 100_000) this.admitted.clear()
    calls.forEach((members, i) =>
      members.forEach((member, j) => {
        if (answers[i][j] === 1) this.admitted.add(member)
        else refused.add(member)
      }),
    )
    return refused
  }

  /**
   * A store written before the per-cluster broker sets existed lists its brokers only in
   * `P brokers`: they are copied into `P cluster-brokers:*` once (idempotent, so replicas racing
   * here do no harm), then a marker key says so and later processes skip it.
   */
  private async seedClusterBrokers(): Promise<void> {
    const k = this.keys
    await this.run(async () => {
      if ((await this.redis.exists(k.clusterBrokersSeeded())) === 1) return
      const byCluster = new Map<string, string[]>()
      for (const m of await this.redis.smembers(k.brokers())) {
        const [cluster, broker] = JSON.parse(m) as [string, string]
        const list = byCluster.get(cluster)
        if (list) list.push(broker)
        else byCluster.set(cluster, [broker])
      }
      if (byCluster.size > 0) {
        const pipe = this.pipeline()
        for (const [cluster, brokers] of byCluster) pipe.sadd(k.clusterBrokers(cluster), ...brokers)
        await this.exec(pipe)
      }
      await this.redis.set(k.clusterBrokersSeeded(), '1')
    })
  }

  /** One pipeline for a batch: one variadic ZADD per key, index and broker-set updates once per batch. */
  private appendPipeline(batch: Signal[]): ScriptedPipeline {
    const k = this.keys
    const pipe = this.pipeline()
    // cluster -> broker -> name -> ZADD arguments; keys are built once per group, not per signal.
    const groups = new Map<string, Map<string | undefined, Map<string, (string | number)[]>>>()
    for (const s of batch) {
      const isFact = lookupSignal(s.name)?.kind === 'fact'
      if (isFact) pipe.factSet(k.facts(s.cluster, s.broker), factField(s), s.at, `${s.at} ${signalMember(s)}`)
      let byBroker = groups.get(s.cluster)
      if (!byBroker) groups.set(s.cluster, (byBroker = new Map()))
      let byName = byBroker.get(s.broker)
      if (!byName) byBroker.set(s.broker, (byName = new Map()))
      if (isFact) continue
      const member = signalMember(s)
      const args = byName.get(s.name)
      if (args) args.push(s.at, member)
      else byName.set(s.name, [s.at, member])
    }
    // Indexes before and after the data: if the connection drops mid-pipeline an index may name an
    // empty key (harmless), and if a concurrent trim unindexes an emptied name between the two, the
    // second SADD restores it; a stored signal is never left where no query would find it. Each
    // signal is one member of one ZADD, so it is stored whole or not at all.
    const brokers: string[] = []
    const clusters: string[] = []
    const zadds: [string, (string | number)[]][] = []
    for (const [cluster, byBroker] of groups) {
      for (const [broker, byName] of byBroker) {
        if (broker === undefined) clusters.push(cluster)
        else brokers.push(JSON.stringify([cluster, broker]))
        if (byName.size === 0) continue
        pipe.sadd(k.names(cluster, broker), ...byName.keys())
        for (const [name, args] of byName) for (const part of zaddParts(args)) zadds.push([k.signal(cluster, broker, name), part])
      }
    }
    if (brokers.length > 0) pipe.sadd(k.brokers(), ...brokers)
    if (clusters.length > 0) pipe.sadd(k.clusters(), ...clusters)
    for (const [key, args] of zadds) pipe.zadd(key, ...args)
    for (const [cluster, byBroker] of groups) {
      for (const [broker, byName] of byBroker) if (byName.size > 0) pipe.sadd(k.names(cluster, broker), ...byName.keys())
    }
    return pipe
  }

  async query(q: SignalQuery): Promise<Signal[]> {
    // Each list is already ordered by (at, member); concatenated in name order, a stable sort on
    // time alone gives the shared order (at, name, member) in close to linear time.
    const out: Signal[] = []
    for (const list of (await this.querySeries(q)).values()) for (const s of list) out.push(s)
    return out.sort(byTime)
  }

  async querySeries(q: SignalQuery): Promise<Map<string, Signal[]>> {
    if (q.from > q.to) return new Map()
    return this.run(async () => {
      const names = q.names ? [...new Set(q.names)] : await this.redis.smembers(this.keys.names(q.cluster, q.broker))
      const out = new Map<string, Signal[]>()
      if (names.length === 0) return out
      names.sort()
      const pipe = this.pipeline()
      for (const name of names) pipe.zrangebyscore(this.keys.signal(q.cluster, q.broker, name), q.from, q.to)
      const results = (await this.exec(pipe)) as string[][]
      for (let i = 0; i < names.length; i++) {
        const members = results[i]
        if (members.length === 0) continue
        const list: Signal[] = new Array(members.length)
        // Read for one evaluation and dropped: strings sliced from the members (see MemberStrings).
        for (let j = 0; j < members.length; j++) list[j] = decodeMember(members[j], names[i], q.cluster, q.broker, 'slice')
        out.set(names[i], list)
      }
      return out
    })
  }

  async readSeriesChanges(scope: { cluster: string; broker?: string }, parts: readonly SeriesCheck[]): Promise<SeriesCheckResult[]> {
    if (parts.length === 0) return []
    const keys = parts.map((p) => this.keys.signal(scope.cluster, scope.broker, p.name))
    const replies = await this.run(async () => {
      // One script call for the whole scope (its keys share one hash tag, so one slot on a Cluster).
      const args: (string | number)[] = [...keys]
      for (const p of parts) args.push(p.check?.from ?? '', p.check?.to ?? '', p.read.from, p.read.to)
      return this.redis.seriesChanges(parts.length, ...args, this.seriesPage)
    })
    // A full page means more may follow: the rest is read a page per call, each call short.
    for (const [i, reply] of replies.entries()) if (reply[2].length >= this.seriesPage) reply[2] = await this.readRestOfRange(keys[i], parts[i].read, reply[2])
    return replies.map(([count, first, members], i): SeriesCheckResult => {
      const { name, check } = parts[i]
      const signals: Signal[] = new Array(members.length)
      // Kept across ticks by the series cache: strings of their own (see MemberStrings).
      for (let j = 0; j < members.length; j++) signals[j] = decodeMember(members[j], name, scope.cluster, scope.broker, 'copy')
      // The first member is compared as stored: the caller's signal encodes to it when it is the same one.
      const firstSame = count > 0 && check?.first !== undefined && signalMember(check.first) === first
      return { count, firstSame, signals }
    })
  }

  /**
   * Pages after a full first page, each from the last member read (series-page-1). When retention
   * removed that member meanwhile, the range is read again from its start, a few times at most.
   */
  private async readRestOfRange(key: string, range: { from: number; to: number }, firstPage: string[]): Promise<string[]> {
    let members = firstPage
    for (let restarts = 0; ; ) {
      const [found, page] = await this.run(() => this.redis.seriesPage(key, members[members.length - 1], range.to, this.seriesPage))
      if (found === 1) {
        for (const m of page) members.push(m)
        if (page.length < this.seriesPage) return members
        continue
      }
      if (++restarts > SERIES_RESTARTS) throw new Error(`the series ${key} kept losing its oldest signals while it was read (${SERIES_RESTARTS} tries)`)
      const [[, , again]] = await this.run(() => this.redis.seriesChanges(1, key, '', '', range.from, range.to, this.seriesPage))
      members = again
      if (members.length < this.seriesPage) return members
    }
  }

  async facts(cluster: string, broker?: string): Promise<Signal[]> {
    return this.run(async () => {
      const hash = await this.redis.hgetall(this.keys.facts(cluster, broker))
      return Object.keys(hash)
        .sort()
        .map((field) => {
          const [name] = JSON.parse(field) as [string]
          const value = hash[field]
          return decodeMember(value.slice(value.indexOf(' ') + 1), name, cluster, broker)
        })
    })
  }

  async brokers(): Promise<BrokerRef[]> {
    return this.run(async () => {
      const members = await this.redis.smembers(this.keys.brokers())
      return members.map((m) => {
        const [cluster, broker] = JSON.parse(m) as [string, string]
        return { cluster, broker }
      }).sort(compareBrokerRefs)
    })
  }

  /**
   * Gives every key of the named scopes (each signal's sorted set, the names set, the facts hash) an
   * expiry of `ttlMs` (and, for a cluster-wide scope, the cluster's broker list): a replay written into a team's store on request (`why --replay --store`) is
   * gone a day later instead of kept forever. The scopes' entries in brokers() go at the next trim
   * after that. Returns how many keys were given the expiry.
   */
  async expireScopes(scopes: readonly { cluster: string; broker?: string }[], ttlMs: number): Promise<number> {
    if (scopes.length === 0) return 0
    return this.run(async () => {
      const k = this.keys
      const listing = this.pipeline()
      for (const s of scopes) listing.smembers(k.names(s.cluster, s.broker))
      const names = (await this.exec(listing)) as string[][]
      const pipe = this.pipeline()
      let calls = 0
      scopes.forEach((s, i) => {
        const own = [...names[i].map((n) => k.signal(s.cluster, s.broker, n)), k.names(s.cluster, s.broker), k.facts(s.cluster, s.broker)]
        // A cluster-wide scope is named only for a cluster the replay created: its broker list goes too.
        for (const key of s.broker === undefined ? [...own, k.clusterBrokers(s.cluster)] : own) {
          pipe.pexpire(key, ttlMs)
          calls++
        }
      })
      const set = (await this.exec(pipe)) as number[]
      return calls ? set.filter((n) => n === 1).length : 0
    })
  }

  async trim(before: number, perSignal: Readonly<Record<string, number>> = {}): Promise<number> {
    return this.run(async () => {
      const k = this.keys
      const [brokers, clusters] = await Promise.all([this.redis.smembers(k.brokers()), this.redis.smembers(k.clusters())])
      const scopes: [string, string | undefined][] = [
        ...brokers.map((m) => JSON.parse(m) as [string, string]),
        ...clusters.map((c): [string, undefined] => [c, undefined]),
      ]
      const listing = this.pipeline()
      for (const [cluster, broker] of scopes) listing.smembers(k.names(cluster, broker))
      const names = (await this.exec(listing)) as string[][]
      let todo: [string, string, number, string][] = []
      scopes.forEach(([cluster, broker], i) => {
        for (const name of names[i]) todo.push([k.signal(cluster, broker, name), k.names(cluster, broker), Object.hasOwn(perSignal, name) ? perSignal[name] : before, name])
      })
      // Each call removes at most TRIM_CHUNK members; keys that used their whole allowance go again.
      let removed = 0
      while (todo.length > 0) {
        const pipe = this.pipeline()
        for (const [key, namesKey, cut, name] of todo) pipe.timeTrim(key, namesKey, cut, name, TRIM_CHUNK)
        const counts = (await this.exec(pipe)) as number[]
        removed += counts.reduce((a, b) => a + b, 0)
        todo = todo.filter((_, i) => counts[i] === TRIM_CHUNK)
      }
      // Facts age out like events, page by page so no script reads a whole hash; live sources
      // re-send every fact periodically, so a value still true is never older than the retention.
      for (const [cluster, broker] of scopes) await this.expireFacts(k.facts(cluster, broker), before, perSignal)
      // Scopes left empty (a broker quiet for the whole retention) lose their listing.
      const drops = this.pipeline()
      for (const [cluster, broker] of scopes) drops.scopeDrop(k.names(cluster, broker), k.facts(cluster, broker))
      const dropped = scopes.length ? ((await this.exec(drops)) as number[]) : []
      const unlist = this.pipeline()
      let unlisted = 0
      scopes.forEach(([cluster, broker], i) => {
        if (dropped[i] !== 1) return
        unlisted++
        if (broker === undefined) unlist.srem(k.clusters(), cluster)
        else {
          unlist.srem(k.brokers(), brokerMember(cluster, broker))
          unlist.srem(k.clusterBrokers(cluster), broker)
          this.admitted.delete(brokerMember(cluster, broker))
        }
      })
      if (unlisted > 0) await this.exec(unlist)
      return removed
    })
  }

  /** Deletes the facts of one hash older than their signal's cut, reading it in HSCAN pages of about 200. */
  private async expireFacts(factsKey: string, before: number, perSignal: Readonly<Record<string, number>>): Promise<void> {
    let cursor = '0'
    do {
      const [next, flat] = await this.redis.hscan(factsKey, cursor, 'COUNT', 200)
      cursor = next
      const byCut = new Map<number, string[]>()
      for (let i = 0; i < flat.length; i += 2) {
        const name = (JSON.parse(flat[i]) as [string, unknown])[0]
        const at = Number(flat[i + 1].slice(0, flat[i + 1].indexOf(' ')))
        const cut = Object.hasOwn(perSignal, name) ? perSignal[name] : before
        if (!(at < cut)) continue
        const fields = byCut.get(cut)
        if (fields) fields.push(flat[i])
        else byCut.set(cut, [flat[i]])
      }
      for (const [cut, fields] of byCut) await this.redis.factExpire(factsKey, cut, ...fields)
    } while (cursor !== '0')
  }

  async getAlert(fingerprint: string): Promise<AlertRecord | undefined> {
    return this.run(async () => decodeAlert(await this.redis.hgetall(this.keys.alert(fingerprint))))
  }

  async listAlerts(options: { open?: boolean } = {}): Promise<AlertRecord[]> {
    return this.run(async () => {
      const fingerprints = (await this.redis.smembers(options.open ? this.keys.openAlerts() : this.keys.alerts())).sort()
      if (fingerprints.length === 0) return []
      const pipe = this.pipeline()
      for (const fp of fingerprints) pipe.hgetall(this.keys.alert(fp))
      const hashes = (await this.exec(pipe)) as Record<string, string>[]
      return hashes.map(decodeAlert).filter((a): a is AlertRecord => a !== undefined)
    })
  }

  async transitionAlert(expected: AlertState | undefined, next: AlertRecord): Promise<boolean> {
    return this.run(async () => {
      const k = this.keys
      const won = await this.redis.alertTransition(k.alert(next.fingerprint), k.alerts(), k.openAlerts(), expected ?? '', next.fingerprint, ...encodeAlert(next))
      return won === 1
    })
  }

  async pruneAlerts(resolvedBefore: number): Promise<number> {
    return this.run(async () => {
      const k = this.keys
      const closed = await this.redis.sdiff(k.alerts(), k.openAlerts())
      if (closed.length === 0) return 0
      const pipe = this.pipeline()
      for (const fp of closed) pipe.alertPrune(k.alert(fp), k.alerts(), k.openAlerts(), resolvedBefore, fp)
      return ((await this.exec(pipe)) as number[]).reduce((a, b) => a + b, 0)
    })
  }

  async updateAlert(fingerprint: string, patch: Partial<Omit<AlertRecord, 'fingerprint' | 'state'>>): Promise<void> {
    const fields: string[] = []
    for (const [key, v] of Object.entries(withoutUndefined(patch))) if (key !== 'fingerprint' && key !== 'state') fields.push(key, JSON.stringify(v))
    if (fields.length === 0) return
    await this.run(() => this.redis.alertUpdate(this.keys.alert(fingerprint), ...fields))
  }

  async addSilence(s: Silence): Promise<void> {
    await this.run(async () => {
      const k = this.keys
      await this.exec(this.redis.multi().hset(k.silences(), s.id, JSON.stringify(withoutUndefined(s))).zadd(k.silenceExpiry(), s.expiresAt, s.id))
    })
  }

  async removeSilence(id: string): Promise<boolean> {
    return this.run(async () => {
      const k = this.keys
      const [removed] = (await this.exec(this.redis.multi().hdel(k.silences(), id).zrem(k.silenceExpiry(), id))) as number[]
      return removed === 1
    })
  }

  async listSilences(now: number): Promise<Silence[]> {
    return this.run(async () => {
      const rows = await this.redis.silencesActive(this.keys.silences(), this.keys.silenceExpiry(), now)
      return rows.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as Silence)
    })
  }

  async recordDiagnosis(d: StoredDiagnosis): Promise<void> {
    await this.run(() => this.redis.xadd(this.keys.diagnoses(), 'MAXLEN', '~', this.diagnosesCap, '*', 'd', redactText(JSON.stringify(d))))
  }

  async recentDiagnoses(since: number): Promise<StoredDiagnosis[]> {
    return this.run(async () => {
      const entries = await this.redis.xrange(this.keys.diagnoses(), '-', '+')
      return entries
        .map(([, fields]) => JSON.parse(fields[1]) as StoredDiagnosis)
        .filter((d) => d.at >= since)
        .sort((a, b) => a.at - b.at)
    })
  }

  async appendAudit(r: AuditRecord): Promise<void> {
    await this.run(() => this.redis.xadd(this.keys.audit(), 'MAXLEN', '~', this.auditCap, '*', 'r', redactText(JSON.stringify(withoutUndefined(r)))))
  }

  async listAudit(limit: number): Promise<AuditRecord[]> {
    if (limit <= 0) return []
    return this.run(async () => {
      const entries = await this.redis.xrevrange(this.keys.audit(), '+', '-', 'COUNT', limit)
      return entries.map(([, fields]) => JSON.parse(fields[1]) as AuditRecord)
    })
  }

  async transitionPendingChange(expected: PendingChangeState | undefined, next: PendingChange, ttlMs: number): Promise<boolean> {
    return this.run(async () => {
      const won = await this.redis.pendingTransition(this.keys.pending(next.id), expected ?? '', next.state, JSON.stringify(withoutUndefined(next)), Math.max(1, Math.round(ttlMs)))
      return won === 1
    })
  }

  async getPendingChange(id: string): Promise<PendingChange | undefined> {
    return this.run(async () => {
      const record = await this.redis.hget(this.keys.pending(id), 'record')
      return record === null ? undefined : (JSON.parse(record) as PendingChange)
    })
  }

  async claimOnce(token: string, ttlMs: number): Promise<boolean> {
    return this.run(async () => (await this.redis.set(this.keys.once(token), '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK')
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.run(async () => (await this.redis.lockAcquire(this.keys.lock(name), owner, Math.max(1, Math.round(ttlMs)))) === 1)
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await this.run(() => this.redis.lockRelease(this.keys.lock(name), owner))
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit()
        return
      } catch {
        // fall through: a connection that fails while quitting is closed hard below
      }
    }
    this.redis.disconnect()
  }
}
