import kafkajs from 'kafkajs'
import { pause } from './fault-scenario.js'

/** What a run of large sends got back. */
export interface LargeSends {
  sent: number
  failed: number
}

/**
 * Large produce requests on several connections at once, for as long as asked: what exhausts a
 * broker's heap or direct memory for real (each request's whole body is read in before it is
 * handled). One kafkajs producer per sender, no retries, a short pause after a failure so a broker
 * that is refusing is not spun on. Counts into `into` as it goes, so a caller can report what was
 * sent even when the run is cut short.
 */
export async function sendLargeRecords(
  bootstrap: string,
  o: { topic: string; senders: number; recordMb: number; forMs: number; clientId?: string },
  into: LargeSends = { sent: 0, failed: 0 },
): Promise<LargeSends> {
  const kafka = new kafkajs.Kafka({ clientId: o.clientId ?? 'bulk-upload', brokers: bootstrap.split(','), logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 0 } })
  const value = Buffer.alloc(o.recordMb * 1024 * 1024, 0x61)
  const until = Date.now() + o.forMs
  const producers = Array.from({ length: o.senders }, () => kafka.producer({ allowAutoTopicCreation: false }))
  await Promise.all(
    producers.map(async (p, i) => {
      try {
        await p.connect()
        while (Date.now() < until) {
          try {
            await p.send({ topic: o.topic, acks: 1, timeout: 10_000, messages: [{ key: `k${i}`, value }] })
            into.sent++
          } catch {
            into.failed++
            await pause(200)
          }
        }
      } catch {
        into.failed++
      } finally {
        await p.disconnect().catch(() => undefined)
      }
    }),
  )
  return into
}
