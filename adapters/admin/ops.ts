/**
 * What the bot may ask of a Kafka cluster. The kafkajs implementation lives beside this file; the
 * bot depends only on this interface so its command handlers stay plain functions.
 */
export type TopicDescription = {
  name: string
  partitions: { partition: number; leader: number; replicas: number[]; isr: number[]; offline: boolean }[]
  configs: Record<string, { value: string | null; isDefault: boolean; source: string }>
}

export type GroupDescription = {
  groupId: string
  state: string
  protocol: string
  members: { memberId: string; clientId: string; host: string }[]
  coordinator?: number
}

export type BrokerDescription = {
  id: number
  host: string
  port: number
  rack?: string | null
  isController: boolean
  configs: Record<string, { value: string | null; isDefault: boolean; source: string }>
}

export interface KafkaAdminOps {
  describeTopic(topic: string): Promise<TopicDescription>
  describeGroup(groupId: string): Promise<GroupDescription>
  describeBroker(brokerId: number): Promise<BrokerDescription>
  topicConfig(topic: string): Promise<TopicDescription['configs']>
  brokerConfig(brokerId: number): Promise<BrokerDescription['configs']>
  /** Sets one topic config key; other keys keep their values (incremental alter). */
  setTopicConfig(topic: string, key: string, value: string): Promise<void>
  /** Removes a topic-level override so the broker default applies again. */
  resetTopicConfig(topic: string, key: string): Promise<void>
  close(): Promise<void>
}
