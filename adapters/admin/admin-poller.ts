import type { Signal } from '../../signals/signal.js'
import { configFacts } from './config-facts.js'
import type { ClusterSnapshot, GroupState, KafkaAdmin, PartitionState } from './kafka-admin.js'

/**
 * Polls a cluster through the admin API and turns what it sees, and what changed since the last
 * poll, into signals: partition gauges per broker, config facts, and events for controller moves,
 * leader moves, ISR shrinks/expands and consumer group rebalances. A cluster that stops answering is
 * reported once as `source.stale`.
 */
export type AdminPollerOptions = {
  cluster: string
  sink: (signals: Signal[]) => Promise<void> | void
  /** Epoch ms; the adapter's only clock. */
  now?: () => number
  /** Topics to watch; default all (internal topics included, they matter to groups). */
  topics?: string[]
  /** Watch consumer groups; default true. */
  groups?: boolean
  /** Read topic and broker configs every this many polls (they change rarely and cost most). Default 4. */
  configEveryPolls?: number
  /** Re-send every fact this often (in polls) even when unchanged, so a fresh store learns them. Default 20. */
  refreshFactsEveryPolls?: number
  /** A whole poll's deadline; kafkajs can wait long on a broker that went away. Default 30 000. */
  pollTimeoutMs?: number
}

/** Rejects when `work` has not settled within `ms`; the work itself is left to finish or fail alone. */
function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms}ms`)), ms)
  })
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}

/** What one poll did. */
export type PollOutcome = { ok: boolean; at: number; signals: number; error?: string; partitions?: number; groups?: number }

const csv = (ids: number[]) => ids.join(',')

/** The admin API poller for one cluster. */
export class AdminPoller {
  private previous: ClusterSnapshot | undefined
  private previousGroups = new Map<string, GroupState>()
  private minIsr = new Map<string, number>()
  private brokerMinIsr = new Map<number, number>()
  private factValues = new Map<string, number>()
  private polls = 0
  stale = false
  private readonly now: () => number
  private readonly source: string

  constructor(
    private readonly admin: KafkaAdmin,
    private readonly options: AdminPollerOptions,
  ) {
    this.now = options.now ?? Date.now
    this.source = `admin:${admin.options.brokers.join(',')}`
  }

  private signal(name: string, at: number, broker: number | undefined, value?: number, labels?: Record<string, string>, text?: string): Signal {
    const s: Signal = { name, at, cluster: this.options.cluster, source: this.source }
    if (broker !== undefined && broker >= 0) s.broker = String(broker)
    if (value !== undefined) s.value = value
    if (labels && Object.keys(labels).length) s.labels = labels
    if (text) s.text = text
    return s
  }

  /** One poll: metadata always, configs every few polls, groups when enabled. */
  async pollOnce(): Promise<PollOutcome> {
    const at = this.now()
    const out: Signal[] = []
    let snap: ClusterSnapshot | undefined
    let groups: GroupState[] = []
    try {
      const read = async () => {
        snap = await this.admin.snapshot(this.options.topics)
        const configEvery = this.options.configEveryPolls ?? 4
        if (this.polls % configEvery === 0) await this.readConfigs(snap, at, out)
        if (this.options.groups ?? true) {
          const ids = (await this.admin.listGroups()).map((g) => g.groupId).sort()
          groups = await this.admin.groups(ids)
        }
      }
      await withDeadline(read(), this.options.pollTimeoutMs ?? 30_000, 'the admin API')
    } catch (err) {
      const error = (err as Error).message ?? String(err)
      if (!this.stale) {
        this.stale = true
        const target = this.admin.options.brokers.join(',')
        await this.options.sink([this.signal('source.stale', at, undefined, undefined, { target }, `admin API of ${target} failed: ${error}`)])
        return { ok: false, at, signals: 1, error }
      }
      return { ok: false, at, signals: 0, error }
    }
    this.stale = false
    this.polls++
    if (!snap) return { ok: false, at, signals: 0, error: 'no metadata' }
    this.partitionGauges(snap, at, out)
    if (this.previous) this.diff(this.previous, snap, at, out)
    this.groupEvents(groups, snap, at, out)
    this.previous = snap
    if (out.length) await this.options.sink(out)
    return { ok: true, at, signals: out.length, partitions: snap.partitions.length, groups: groups.length }
  }

  private fact(out: Signal[], name: string, at: number, broker: number | undefined, value: number, labels: Record<string, string>, text: string): void {
    const key = `${name}|${broker ?? ''}|${labels.topic ?? ''}`
    const refresh = this.options.refreshFactsEveryPolls ?? 20
    if (this.factValues.get(key) === value && this.polls % refresh !== 0) return
    this.factValues.set(key, value)
    out.push(this.signal(name, at, broker, value, labels, text))
  }

  private async readConfigs(snap: ClusterSnapshot, at: number, out: Signal[]): Promise<void> {
    const brokerConfigs = await this.admin.configs('broker', snap.brokers.map((b) => String(b.id)))
    for (const [id, configs] of brokerConfigs) {
      const broker = Number(id)
      for (const [name, f] of configFacts(configs)) {
        if (name === 'config.min_insync_replicas') this.brokerMinIsr.set(broker, f.value)
        this.fact(out, name, at, broker, f.value, {}, `${f.key}=${f.raw}`)
      }
    }
    const topics = [...new Set(snap.partitions.map((p) => p.topic))].filter((t) => !t.startsWith('__'))
    const topicConfigs = await this.admin.configs('topic', topics)
    for (const [topic, configs] of topicConfigs) {
      // Only a topic's own overrides are topic facts; its defaults are the broker facts above.
      const own = Object.fromEntries(Object.entries(configs).filter(([, v]) => v.source === 'DYNAMIC_TOPIC_CONFIG'))
      const minIsr = Number(configs['min.insync.replicas']?.value)
      if (Number.isFinite(minIsr)) this.minIsr.set(topic, minIsr)
      for (const [name, f] of configFacts(own)) this.fact(out, name, at, undefined, f.value, { topic }, `${topic} ${f.key}=${f.raw}`)
    }
  }

  /** Under-replicated and under-min-ISR partitions per leader, offline partitions for the cluster. */
  private partitionGauges(snap: ClusterSnapshot, at: number, out: Signal[]): void {
    const urp = new Map<number, number>(snap.brokers.map((b) => [b.id, 0]))
    const underMin = new Map<number, number>(snap.brokers.map((b) => [b.id, 0]))
    let offline = 0
    for (const p of snap.partitions) {
      if (p.leader < 0) {
        offline++
        continue
      }
      if (p.isr.length < p.replicas.length) urp.set(p.leader, (urp.get(p.leader) ?? 0) + 1)
      const min = this.minIsr.get(p.topic) ?? this.brokerMinIsr.get(p.leader) ?? 1
      if (p.isr.length < min) underMin.set(p.leader, (underMin.get(p.leader) ?? 0) + 1)
    }
    for (const [b, n] of urp) out.push(this.signal('partitions.under_replicated', at, b, n))
    for (const [b, n] of underMin) out.push(this.signal('partitions.under_min_isr', at, b, n))
    out.push(this.signal('partitions.offline', at, undefined, offline))
  }

  private diff(before: ClusterSnapshot, after: ClusterSnapshot, at: number, out: Signal[]): void {
    if (before.controller !== after.controller) {
      const text = `controller moved from ${before.controller ?? 'none'} to ${after.controller ?? 'none'}`
      out.push(
        this.signal('controller.change', at, undefined, undefined, { controller: String(after.controller ?? -1), from: String(before.controller ?? -1) }, text),
      )
    }
    const old = new Map<string, PartitionState>(before.partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p]))
    for (const p of after.partitions) {
      const q = old.get(`${p.topic}\u0000${p.partition}`)
      if (!q) continue
      const tp = { topic: p.topic, partition: String(p.partition) }
      if (q.leader !== p.leader) {
        // Attributed to the broker that lost the leadership: its trouble is what moved it.
        const text = `${p.topic}-${p.partition} leader ${q.leader} -> ${p.leader}`
        out.push(this.signal('leader.change', at, q.leader >= 0 ? q.leader : p.leader, undefined, { ...tp, from: String(q.leader), to: String(p.leader) }, text))
      }
      const shrunk = q.isr.some((id) => !p.isr.includes(id))
      const grew = p.isr.some((id) => !q.isr.includes(id))
      const leader = p.leader >= 0 ? p.leader : q.leader
      if (shrunk) {
        const text = `${p.topic}-${p.partition} ISR shrank from ${csv(q.isr)} to ${csv(p.isr)}`
        out.push(this.signal('isr.shrink', at, leader, undefined, { ...tp, from: csv(q.isr), to: csv(p.isr) }, text))
      }
      if (grew) {
        const text = `${p.topic}-${p.partition} ISR expanded from ${csv(q.isr)} to ${csv(p.isr)}`
        out.push(this.signal('isr.expand', at, leader, undefined, { ...tp, from: csv(q.isr), to: csv(p.isr) }, text))
      }
    }
  }

  /**
   * DescribeGroups carries no generation id, so a rebalance is seen as a change of the member set,
   * or a group caught in PreparingRebalance / CompletingRebalance; each is one group.rebalance.
   */
  private groupEvents(groups: GroupState[], snap: ClusterSnapshot, at: number, out: Signal[]): void {
    const next = new Map<string, GroupState>()
    for (const g of groups) {
      next.set(g.groupId, g)
      const before = this.previousGroups.get(g.groupId)
      if (!before) continue
      const members = (x: GroupState) => x.members.map((m) => m.memberId).join(',')
      const rebalancing = (s: string) => s === 'PreparingRebalance' || s === 'CompletingRebalance'
      const changed = members(before) !== members(g)
      const entered = rebalancing(g.state) && !rebalancing(before.state)
      if (!changed && !entered) continue
      const coordinator = this.admin.coordinatorOf(g.groupId, snap)
      const text = `group ${g.groupId} ${before.state}(${before.members.length} members) -> ${g.state}(${g.members.length} members)`
      out.push(this.signal('group.rebalance', at, coordinator, undefined, { group: g.groupId }, text))
      const gone = before.members.filter((m) => !g.members.some((n) => n.memberId === m.memberId))
      for (const m of gone) {
        out.push(this.signal('group.member_failed', at, coordinator, undefined, { group: g.groupId, member: m.memberId }, `member ${m.memberId} (${m.clientId}) left group ${g.groupId}`))
      }
    }
    this.previousGroups = next
  }
}
