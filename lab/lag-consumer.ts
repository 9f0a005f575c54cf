/**
 * A consumer for the consumer-lag scenarios, on kafkajs: it reads a topic as a member of a group at
 * up to `--rate` records a second (its processing), and commits its position every 2 s as the Java
 * consumer's auto-commit does (auto.commit.interval.ms=2000), whether the position moved or not. On
 * SIGUSR1 it pauses its partitions as a consumer does when its downstream is stuck: it stays in the
 * group, heartbeats, and keeps committing the same position. SIGTERM leaves the group and exits.
 *
 *   node --import tsx lab/lag-consumer.ts <bootstrap> <topic> <group> <records/s> [session timeout ms]
 */
import kafkajs from 'kafkajs'

const { Kafka, logLevel } = kafkajs
const [bootstrap, topic, group, rateArg, sessionArg] = process.argv.slice(2)
const rate = Number(rateArg)
const sessionTimeout = Number(sessionArg ?? 10_000)
const log = (m: string) => process.stdout.write(`${new Date().toISOString()} ${m}\n`)

const kafka = new Kafka({ clientId: `${group}-worker`, brokers: [bootstrap], logLevel: logLevel.WARN })
// Small fetches (about 30 records of 512 B a partition) so it moves through its partitions in turn, as a
// Java consumer does with max.poll.records, instead of spending seconds on one partition's megabyte.
const consumer = kafka.consumer({ groupId: group, sessionTimeout, heartbeatInterval: Math.min(3000, sessionTimeout / 3), maxBytesPerPartition: 16_384, maxBytes: 65_536 })
/** The next offset to read per partition: what a commit sends. */
const position = new Map<number, string>()
let paused = false
let processed = 0

async function commit(): Promise<void> {
  if (position.size === 0) return
  const offsets = [...position].map(([partition, offset]) => ({ topic, partition, offset }))
  await consumer.commitOffsets(offsets).catch((err: Error) => log(`commit failed: ${err.message}`))
}

async function main(): Promise<void> {
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: false })
  const timer = setInterval(() => void commit(), 2_000)
  process.on('SIGUSR1', () => {
    paused = true
    consumer.pause([{ topic }])
    log(`paused ${topic} after ${processed} records; committing the same position every 2 s`)
  })
  process.on('SIGTERM', () => {
    clearInterval(timer)
    log(`leaving group ${group} after ${processed} records`)
    void consumer.disconnect().finally(() => process.exit(0))
  })
  // One lane per partition, each at its share of the rate: one lane alone served some partitions and starved another.
  const lanes = 3
  const perRecordMs = (1000 * lanes) / rate
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: lanes,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
      for (const m of batch.messages) {
        if (!isRunning() || isStale() || paused) return
        await new Promise((r) => setTimeout(r, perRecordMs))
        // Forward only: a batch fetched again after a rebalance must not move the committed position back.
        const next = Number(m.offset) + 1
        if (next > Number(position.get(batch.partition) ?? -1)) position.set(batch.partition, String(next))
        // Resolved, so the next fetch starts after it (the commit below is the consumer's own, every 2 s).
        resolveOffset(m.offset)
        processed++
        if (processed % 100 === 0) await heartbeat()
      }
    },
  })
  log(`consuming ${topic} as ${group} at up to ${rate} records/s`)
}

main().catch((err: Error) => {
  log(`failed: ${err.message}`)
  process.exit(1)
})
