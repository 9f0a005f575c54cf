import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { whyUploaded } from '../../bot/commands/why-upload.js'
import type { BotMessage } from '../../bot/message.js'
import { testContext } from './support/bot-context.js'

// `why` over logs shared in a Slack thread never answers "nothing abnormal" when part of them went unread.
// healthy-day's real broker-2 logs; the same server.log headed by seed 000's ZooKeeper line with its
// "[date] WARN" cut off (a paste that started mid-line), and the prose of seed 002's report.
const HEALTHY = 'test/incidents/healthy-day/broker-2'
const CUT_LINE = 'Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)'

const textOf = (m: BotMessage) => [m.text, ...m.parts.map((p) => ('text' in p ? p.text : ''))].join('\n')

describe('bot why over shared logs, part of them unread', { timeout: 120_000 }, () => {
  it('says nothing about unread input when every line was read (the control)', async () => {
    const t = await testContext({ replay: false })
    const server = await readFile(`${HEALTHY}/server.log`)
    const m = textOf(await whyUploaded(t.ctx, { channel: 'C0PERF' }, [{ name: 'server.log', bytes: server }]))
    expect(m).toMatch(/^Broker 2 \(perf-lab\): no rule matched/)
    expect(m).not.toMatch(/not read/i)
  })

  it('says what it did not read instead, with no broker named and with a diagnosis', async () => {
    const t = await testContext({ replay: false })
    const server = await readFile(`${HEALTHY}/server.log`, 'utf8')
    const seed = await readFile('../shared/seeds/002_f81a753d495d5c0b.txt', 'utf8')
    const uploads = [
      { name: 'server.log', bytes: Buffer.from(`${CUT_LINE}\n${server}`) },
      { name: 'question.txt', bytes: Buffer.from(`${seed.split('\n').slice(0, 12).join('\n')}\n`) },
    ]
    const quiet = textOf(await whyUploaded(t.ctx, { channel: 'C0PERF' }, uploads))
    expect(quiet).not.toMatch(/nothing abnormal/i)
    expect(quiet).toMatch(/13 of [\d,]+ lines in 2 files not read: no layout recognised \(12\), no record start found \(a timestamp cut off\?\) \(1\)/)
    const gc = await readFile(`${HEALTHY}/gc.log`)
    const diagnosed = textOf(await whyUploaded(t.ctx, { channel: 'C0PERF' }, [...uploads, { name: 'gc.log', bytes: gc }], { broker: '2' }))
    expect(diagnosed).not.toMatch(/nothing abnormal/i)
    expect(diagnosed).toMatch(/:warning: 13 of [\d,]+ lines in 2 files not read/)
  })
})
