import { readFile } from 'node:fs/promises'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { whyUploaded } from '../../bot/commands/why-upload.js'
import type { BotMessage } from '../../bot/message.js'
import { toBlockKit } from '../../bot/render/block-kit.js'
import { cutBrokerAt } from '../support/cut-recording.js'
import { TEST_CONFIG, testContext } from './support/bot-context.js'
import { validateBlocks } from './support/validate-blocks.js'

/** The test configuration plus the recording's cluster, `lab`, whose channel is C0LAB. */
const CONFIG = TEST_CONFIG.replace('clusters:\n', 'clusters:\n  lab:\n    brokers: [127.0.0.1:9093]\n    channel: C0LAB\n')

function shown(m: BotMessage): string {
  return [m.text, ...m.parts.map((p) => ('text' in p ? String(p.text) : ''))].join('\n')
}

// Logs shared in chat have an end, as a replay does: lab-disk-full with broker 2's server.log cut at
// 12:03:30 beside the peers' server logs, which run to 12:03:55 (broker 1's "Broker failure callback
// for 2"-era lines included). Broker 2 is answered at its last record (12:03:19.146, its last line a
// signal came from; the lines after it carry none), and the answer says so.
const { dir } = cutBrokerAt('lab-disk-full', '2', '2026-12-01T12:03:30Z')

describe('an upload whose one broker\'s log ends early', { timeout: 120_000 }, () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('answers that broker at its last line and says where its logs end', async () => {
    const t = await testContext({ config: CONFIG, replay: false })
    const uploads = []
    for (const name of ['broker-1/server.log', 'broker-2/server.log', 'broker-3/server.log']) uploads.push({ name, bytes: await readFile(`${dir}/${name}`) })
    const reply = await whyUploaded(t.ctx, { channel: 'C0LAB' }, uploads)
    expect(reply.isError).toBeFalsy()
    expect(reply.parts[0]).toEqual({ kind: 'header', text: 'Cluster lab: origin broker 3 (disk_full)' })
    const text = shown(reply)
    const line2 = text.split('\n').find((l) => l.startsWith('• *broker 2*'))
    // Its last line that says anything a signal carries: a shutdown-free stretch of INFO lines follows it.
    expect(line2).toMatch(/^• \*broker 2\* \(answered at its last record, 2026-12-01 07:03:19\.146\): /)
    for (const claim of ['client_request_timeouts', 'client_connections_dropped', 'advertised_listener_unreachable']) expect(line2).not.toContain(claim)
    // Broker 1's log runs to the end: no note, and its fetchers toward broker 3 are broker 3's consequence.
    expect(text).toMatch(/\*broker 1\*: warning `fetcher_cannot_reach_leader` \{leader=3\} — a consequence of broker 3's `disk_full`/)
    expect(validateBlocks(toBlockKit(reply).blocks)).toEqual([])
  })
})
