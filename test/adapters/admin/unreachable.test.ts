import net from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { KafkaAdmin } from '../../../adapters/admin/kafka-admin.js'
import { KafkaUnreachableError, unreachableError } from '../../../adapters/admin/unreachable.js'
import { runCommand } from '../../../bot/dispatch.js'
import { toConsole } from '../../../bot/render/console.js'
import { testContext } from '../../bot/support/bot-context.js'

// A cluster the admin client cannot reach is named by endpoint and cause, as a user error in the CLI
// console and in Slack, never a kafkajs stack trace or "Something went wrong on our side". The errors
// are kafkajs's own, from real connection attempts: a closed port, a name that does not resolve, and a
// listener that accepts and never answers.

/** A port on 127.0.0.1 that was free a moment ago: nothing listens, so a connect is refused. */
async function closedPort(): Promise<number> {
  const s = net.createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as net.AddressInfo).port
  await new Promise((r) => s.close(r))
  return port
}

describe('admin errors when Kafka cannot be reached', () => {
  const silent = net.createServer((sock) => sock.on('error', () => {}))
  const admins: KafkaAdmin[] = []
  afterAll(async () => {
    await Promise.all(admins.map((a) => a.close()))
    silent.close()
  })
  const admin = (brokers: string[], extra: Partial<ConstructorParameters<typeof KafkaAdmin>[0]> = {}) => {
    const a = new KafkaAdmin({ brokers, retries: 0, connectionTimeoutMs: 500, requestTimeoutMs: 1000, ...extra })
    admins.push(a)
    return a
  }

  it('names the endpoint and ECONNREFUSED for a closed port', { timeout: 20_000 }, async () => {
    const endpoint = `127.0.0.1:${await closedPort()}`
    const err = await admin([endpoint]).describeTopic('orders').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KafkaUnreachableError)
    expect((err as Error).message).toBe(`cannot reach Kafka at ${endpoint}: ECONNREFUSED`)
  })

  it('names ENOTFOUND for a host name that does not resolve', { timeout: 20_000 }, async () => {
    const err = await admin(['kafka-1.invalid:9092']).describeBroker(1).catch((e: unknown) => e)
    expect((err as Error).message).toMatch(/^cannot reach Kafka at kafka-1\.invalid:9092: (ENOTFOUND|EAI_AGAIN)$/)
  })

  it('says the connection timed out for a listener that never answers', { timeout: 20_000 }, async () => {
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    const endpoint = `127.0.0.1:${(silent.address() as net.AddressInfo).port}`
    const err = await admin([endpoint]).describeTopic('orders').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(KafkaUnreachableError)
    expect((err as Error).message).toMatch(new RegExp(`^cannot reach Kafka at ${endpoint.replace(/\./g, '\\.')}: (connection timed out|the broker did not answer in time)$`))
  })

  it('leaves errors that are not about reaching Kafka alone', () => {
    expect(unreachableError(new Error('boom'), ['kafka-1:9092'])).toBeUndefined()
    expect(unreachableError(Object.assign(new Error('This server does not host this topic-partition'), { name: 'KafkaJSProtocolError', type: 'UNKNOWN_TOPIC_OR_PARTITION' }), ['kafka-1:9092'])).toBeUndefined()
  })

  it('answers /kafka describe with the endpoint and cause as a user error, not an error id', { timeout: 20_000 }, async () => {
    const endpoint = `127.0.0.1:${await closedPort()}`
    const t = await testContext({ admin: admin([endpoint]) })
    const reply = await runCommand(t.ctx, { user: 'U0123ABCD', channel: 'C0123ABCD', text: 'describe topic orders' })
    const text = toConsole(reply)
    expect(reply.isError).toBe(true)
    expect(text).toContain(`Cannot reach Kafka at ${endpoint}: ECONNREFUSED.`)
    expect(text).not.toMatch(/Something went wrong|error id|KafkaJS|\n\s+at /)
    expect(t.errors).toEqual([])
  })
})
