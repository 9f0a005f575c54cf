import type { ConnectionOptions } from 'node:tls'
import kafkajs, { type Admin, type Kafka as KafkaClient, type SASLOptions } from 'kafkajs'
import type { BrokerDescription, GroupDescription, KafkaAdminOps, TopicDescription } from './ops.js'
import { unreachableError } from './unreachable.js'

const { Kafka, ConfigResourceTypes, ConfigSource, logLevel } = kafkajs

/**
 * The kafkajs implementation of KafkaAdminOps, plus the raw snapshots the poller diffs. One admin
 * client per cluster, connected lazily and reused; SASL (plain, SCRAM) and TLS as kafkajs takes them.
 */
export type KafkaAdminOptions = {
  /** Bootstrap servers, "host:port". */
  brokers: string[]
  clientId?: string
  /** true for TLS with the system CAs, or node:tls options (ca, cert, key, servername, rejectUnauthorized). */
  ssl?: boolean | ConnectionOptions
  sasl?: SASLOptions
  /** Default 3000. */
  connectionTimeoutMs?: number
  /** Default 10 000. */
  requestTimeoutMs?: number
  /** kafkajs retries per request; default 2 so a dead cluster is reported in seconds, not minutes. */
  retries?: number
}

type ConfigMap = TopicDescription['configs']

/** Kafka's ConfigSource numbers as the names kafka-configs prints. */
const SOURCE_NAMES: Record<number, string> = {
  [ConfigSource.UNKNOWN]: 'UNKNOWN',
  [ConfigSource.TOPIC_CONFIG]: 'DYNAMIC_TOPIC_CONFIG',
  [ConfigSource.DYNAMIC_BROKER_CONFIG]: 'DYNAMIC_BROKER_CONFIG',
  [ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  [ConfigSource.STATIC_BROKER_CONFIG]: 'STATIC_BROKER_CONFIG',
  [ConfigSource.DEFAULT_CONFIG]: 'DEFAULT_CONFIG',
  [ConfigSource.DYNAMIC_BROKER_LOGGER_CONFIG]: 'DYNAMIC_BROKER_LOGGER_CONFIG',
}

/** A partition as metadata shows it. */
export type PartitionState = { topic: string; partition: number; leader: number; replicas: number[]; isr: number[]; offline: number[] }

/** One look at the cluster: who is controller, which brokers are registered, every partition's state. */
export type ClusterSnapshot = {
  clusterId: string
  controller: number | null
  brokers: { id: number; host: string; port: number }[]
  partitions: PartitionState[]
}

/** A consumer group as describeGroups shows it. */
export type GroupState = { groupId: string; state: string; protocol: string; members: { memberId: string; clientId: string; host: string }[] }

/** Raised for a resource Kafka answered about with an error code (unknown topic, group). */
export class AdminRequestError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message)
    this.name = 'AdminRequestError'
  }
}

/** Kafka's own refusals (unknown topic, …) become AdminRequestError with Kafka's wording; other errors pass. */
function rethrow(err: unknown, what: string): never {
  const e = err as { name?: string; message?: string; code?: number }
  if (e?.name === 'KafkaJSProtocolError') throw new AdminRequestError(`${what}: ${e.message}`, e.code)
  throw err
}

/** Java's String.hashCode, which Kafka uses to place a group on a __consumer_offsets partition. */
export function javaStringHash(text: string): number {
  let h = 0
  for (let i = 0; i < text.length; i++) h = (Math.imul(31, h) + text.charCodeAt(i)) | 0
  return h
}

/** The __consumer_offsets partition that holds a group: Utils.abs(hashCode) % partitions. */
export function groupPartition(groupId: string, offsetsPartitions: number): number {
  const h = javaStringHash(groupId)
  return (h === -2147483648 ? 0 : Math.abs(h)) % offsetsPartitions
}

/** A kafkajs client with the connection settings every kafka-why adapter uses (short timeouts, few retries, no kafkajs logging). */
export function kafkaClientOf(options: KafkaAdminOptions, defaultClientId: string): KafkaClient {
  return new Kafka({
    clientId: options.clientId ?? defaultClientId,
    brokers: options.brokers,
    ssl: options.ssl,
    sasl: options.sasl,
    connectionTimeout: options.connectionTimeoutMs ?? 3000,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    retry: { retries: options.retries ?? 2, initialRetryTime: 200, maxRetryTime: 2000 },
    logLevel: logLevel.NOTHING,
  })
}

/** KafkaAdminOps over kafkajs, plus what the admin poller needs. */
export class KafkaAdmin implements KafkaAdminOps {
  private readonly kafka: KafkaClient
  private admin: Admin | undefined
  private connecting: Promise<Admin> | undefined

  constructor(readonly options: KafkaAdminOptions) {
    this.kafka = kafkaClientOf(options, 'kafka-why')
  }

  private async client(): Promise<Admin> {
    if (this.admin) return this.admin
    if (!this.connecting) {
      const admin = this.kafka.admin()
      this.connecting = admin.connect().then(
        () => {
          this.admin = admin
          return admin
        },
        (err: unknown) => {
          this.connecting = undefined
          throw unreachableError(err, this.options.brokers) ?? err
        },
      )
    }
    return this.connecting
  }

  /** Controller, brokers and every partition (or those of `topics`). */
  async snapshot(topics?: string[]): Promise<ClusterSnapshot> {
    const admin = await this.client()
    const cluster = await admin.describeCluster()
    const meta = await admin.fetchTopicMetadata(topics ? { topics } : undefined)
    const partitions: PartitionState[] = []
    for (const t of meta.topics) {
      for (const p of t.partitions) {
        partitions.push({
          topic: t.name,
          partition: p.partitionId,
          leader: p.leader,
          replicas: [...p.replicas],
          isr: [...p.isr],
          offline: [...(p.offlineReplicas ?? [])],
        })
      }
    }
    partitions.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
    return {
      clusterId: cluster.clusterId,
      controller: cluster.controller,
      brokers: cluster.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port })).sort((a, b) => a.id - b.id),
      partitions,
    }
  }

  /** Configs of many topics or brokers in one request; resources Kafka refused are left out. */
  async configs(type: 'topic' | 'broker', names: string[]): Promise<Map<string, ConfigMap>> {
    const out = new Map<string, ConfigMap>()
    if (names.length === 0) return out
    const admin = await this.client()
    const resourceType = type === 'topic' ? ConfigResourceTypes.TOPIC : ConfigResourceTypes.BROKER
    const res = await admin.describeConfigs({ resources: names.map((name) => ({ type: resourceType, name })), includeSynonyms: false })
    for (const r of res.resources) {
      if (r.errorCode !== 0) continue
      const configs: ConfigMap = {}
      for (const e of r.configEntries) {
        configs[e.configName] = {
          value: e.isSensitive ? null : e.configValue,
          isDefault: e.isDefault,
          source: SOURCE_NAMES[(e as { configSource?: number }).configSource ?? 0] ?? 'UNKNOWN',
        }
      }
      out.set(r.resourceName, configs)
    }
    return out
  }

  /** Every consumer group id with its protocol type. */
  async listGroups(): Promise<{ groupId: string; protocolType: string }[]> {
    const admin = await this.client()
    return (await admin.listGroups()).groups
  }

  /** describeGroups for many groups at once. */
  async groups(groupIds: string[]): Promise<GroupState[]> {
    if (groupIds.length === 0) return []
    const admin = await this.client()
    const res = await admin.describeGroups(groupIds)
    return res.groups.map((g) => ({
      groupId: g.groupId,
      state: g.state,
      protocol: g.protocol,
      members: g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, host: m.clientHost })).sort((a, b) => (a.memberId < b.memberId ? -1 : 1)),
    }))
  }

  /** The coordinator of a group: the leader of its __consumer_offsets partition (undefined before the topic exists). */
  coordinatorOf(groupId: string, snapshot: ClusterSnapshot): number | undefined {
    const offsets = snapshot.partitions.filter((p) => p.topic === '__consumer_offsets')
    if (offsets.length === 0) return undefined
    const p = offsets.find((x) => x.partition === groupPartition(groupId, offsets.length))
    return p && p.leader >= 0 ? p.leader : undefined
  }

  async describeTopic(topic: string): Promise<TopicDescription> {
    let snap: ClusterSnapshot
    try {
      snap = await this.snapshot([topic])
    } catch (err) {
      rethrow(err, `cannot describe topic '${topic}'`)
    }
    const configs = (await this.configs('topic', [topic])).get(topic) ?? {}
    return {
      name: topic,
      partitions: snap.partitions
        .filter((p) => p.topic === topic)
        .map((p) => ({ partition: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr, offline: p.leader < 0 })),
      configs,
    }
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const [g] = await this.groups([groupId])
    if (!g || g.state === 'Dead') throw new AdminRequestError(`no consumer group '${groupId}'`)
    const snap = await this.snapshot(['__consumer_offsets']).catch(() => undefined)
    const coordinator = snap ? this.coordinatorOf(groupId, snap) : undefined
    const out: GroupDescription = { groupId: g.groupId, state: g.state, protocol: g.protocol, members: g.members }
    if (coordinator !== undefined) out.coordinator = coordinator
    return out
  }

  async describeBroker(brokerId: number): Promise<BrokerDescription> {
    const admin = await this.client()
    const cluster = await admin.describeCluster()
    const b = cluster.brokers.find((x) => x.nodeId === brokerId)
    if (!b) throw new AdminRequestError(`no broker ${brokerId} in the cluster (known: ${cluster.brokers.map((x) => x.nodeId).join(', ')})`)
    return { id: brokerId, host: b.host, port: b.port, isController: cluster.controller === brokerId, configs: await this.brokerConfig(brokerId) }
  }

  async topicConfig(topic: string): Promise<ConfigMap> {
    const c = (await this.configs('topic', [topic]).catch((err: unknown) => rethrow(err, `cannot read configs of topic '${topic}'`))).get(topic)
    if (!c) throw new AdminRequestError(`no topic '${topic}'`)
    return c
  }

  async brokerConfig(brokerId: number): Promise<ConfigMap> {
    const c = (await this.configs('broker', [String(brokerId)]).catch((err: unknown) => rethrow(err, `cannot read configs of broker ${brokerId}`))).get(String(brokerId))
    if (!c) throw new AdminRequestError(`no broker ${brokerId}`)
    return c
  }

  /**
   * kafkajs has only the whole-resource AlterConfigs, which drops every override it is not given; so
   * the current topic overrides are read and written back with the one key changed.
   */
  private async writeTopicOverrides(topic: string, change: (overrides: Map<string, string>) => void): Promise<void> {
    const current = await this.topicConfig(topic)
    const overrides = new Map<string, string>()
    for (const [k, v] of Object.entries(current)) {
      if (v.source === 'DYNAMIC_TOPIC_CONFIG' && v.value !== null) overrides.set(k, v.value)
    }
    change(overrides)
    const admin = await this.client()
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [...overrides].map(([name, value]) => ({ name, value })) }],
    })
  }

  async setTopicConfig(topic: string, key: string, value: string): Promise<void> {
    await this.writeTopicOverrides(topic, (o) => void o.set(key, value))
  }

  async resetTopicConfig(topic: string, key: string): Promise<void> {
    await this.writeTopicOverrides(topic, (o) => void o.delete(key))
  }

  async close(): Promise<void> {
    const admin = this.admin ?? (this.connecting ? await this.connecting.catch(() => undefined) : undefined)
    this.admin = undefined
    this.connecting = undefined
    // A disconnect can wait on a broker that is gone; closing must not hang the caller.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([admin?.disconnect(), new Promise<void>((r) => (timer = setTimeout(r, 5000)))])
    clearTimeout(timer)
  }
}
