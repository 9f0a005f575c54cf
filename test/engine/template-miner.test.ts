import { describe, expect, it } from 'vitest'
import { maskMessage, templateIdOf, TemplateMiner, WILDCARD } from '../../engine/template-miner.js'

// Messages are real: seed 001/002 (Kafka 3.6 / 1.0.1), the lab's Kafka 3.9 recordings in
// test/incidents/, and Kafka's own log statements.
describe('engine/template-miner', () => {
  it.each([
    [
      'seed 001 LogDirFailureChannel',
      'Error while appending records to LoadTestingTopic-3 in dir /broder/log',
      'Error while appending records to LoadTestingTopic-<num> in dir <path>',
    ],
    [
      'seed 000 ZooKeeper ClientCnxn',
      'Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062',
      'Client session timed out, have not heard from server in <dur> for sessionid <hex>',
    ],
    [
      'seed 002 KafkaApis request dump',
      '[KafkaApi-1001] Error when handling request {replica_id=-1,max_wait_time=500,min_bytes=1,topics=[{topic=voltetraffica.data,partitions=[{partition=16,fetch_offset=51198,max_bytes=60728640}]}]}',
      '[KafkaApi-<num>] Error when handling request {replica_id=<num>,max_wait_time=<num>,min_bytes=<num>,topics=[{topic=voltetraffica.data,partitions=[{partition=<num>,fetch_offset=<num>,max_bytes=<num>}]}]}',
    ],
    [
      'Kafka 3.9 lab: LogDirFailureChannel snapshot deletion',
      'Error while deleting producer state snapshot /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data/LoadTestingTopic-5/00000000000000003797.snapshot for LoadTestingTopic-5 in dir /tmp/kafka-why-lab-roll-storm-nrlbRE/broker-1/data',
      'Error while deleting producer state snapshot <path> for LoadTestingTopic-<num> in dir <path>',
    ],
    [
      'Kafka NetworkClient connection to a node (IP with port)',
      '[Controller id=1, targetBrokerId=2] Connection to node 2 (/127.0.0.1:9093) could not be established. Broker may not be available.',
      '[Controller id=<num>, targetBrokerId=<num>] Connection to node <num> (<ip>) could not be established. Broker may not be available.',
    ],
    [
      'GroupCoordinator member id with a UUID',
      'Member consumer-1-3f2a9b1c-8d7e-4f6a-9b0c-1d2e3f4a5b6c in group g1 has failed, removing it from the group',
      'Member consumer-<num>-<id> in group g<num> has failed, removing it from the group',
    ],
  ])('%s', (_label, message, masked) => {
    expect(maskMessage(message)).toBe(masked)
  })

  it('gives a masked template the same id every time and different wordings different ids', () => {
    const a = maskMessage('Error while appending records to LoadTestingTopic-3 in dir /broder/log')
    const b = maskMessage('Error while appending records to LoadTestingTopic-7 in dir /data/kafka-1')
    expect(a).toBe(b)
    expect(templateIdOf(a)).toBe(templateIdOf(b))
    expect(templateIdOf(a)).toMatch(/^m-[0-9a-f]{8}$/)
    expect(templateIdOf(maskMessage('Error while rolling log segment for LoadTestingTopic-3 in dir /broder/log'))).not.toBe(templateIdOf(a))
  })

  it('turns 10,000 repetitions of a line with changing numbers into one template', () => {
    const miner = new TemplateMiner<number>()
    for (let i = 0; i < 10_000; i++) {
      miner.add({ masked: maskMessage(`Error while appending records to LoadTestingTopic-${i % 36} in dir /broder/log`), item: i })
    }
    const out = miner.templates()
    expect(out).toHaveLength(1)
    expect(out[0].items).toHaveLength(10_000)
  })

  it('merges wordings that differ in a name the masker cannot know, and keeps different statements apart', () => {
    const miner = new TemplateMiner<string>()
    const lines = [
      'Error while appending records to LoadTestingTopic-3 in dir /broder/log',
      'Error while appending records to orders-1 in dir /broder/log',
      'Error while rolling log segment for orders-1 in dir /broder/log',
      'Error for partition orders-3 at offset 1234',
    ]
    for (const l of lines) miner.add({ masked: maskMessage(l), item: l })
    const out = miner.templates()
    expect(out.map((t) => t.template)).toEqual([
      `Error while appending records to ${WILDCARD} in dir <path>`,
      'Error while rolling log segment for orders-<num> in dir <path>',
      'Error for partition orders-<num> at offset <num>',
    ])
    expect(out[0].items).toEqual(lines.slice(0, 2))
    expect(out[0].id).toBe(templateIdOf(out[0].template))
  })

  it('needs the similarity threshold: with 1.0 nothing differing is merged', () => {
    const miner = new TemplateMiner<string>({ similarity: 1 })
    miner.add({ masked: 'Error while appending records to a-<num> in dir <path>', item: 'a' })
    miner.add({ masked: 'Error while appending records to b-<num> in dir <path>', item: 'b' })
    expect(miner.templates()).toHaveLength(2)
    expect(() => new TemplateMiner({ similarity: 0 })).toThrow(RangeError)
  })
})
