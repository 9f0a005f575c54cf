import { describe, expect, it } from 'vitest'
import type { GroupDiagnosis } from '../../engine/consumer-lag-explain.js'
import { parseCommand } from '../../bot/parse-command.js'
import { toBlockKit } from '../../bot/render/block-kit.js'
import { renderGroupDiagnosis } from '../../bot/render/group-diagnosis.js'

const diagnosis: GroupDiagnosis = {
  cluster: 'prod',
  group: 'payments-ledger',
  from: Date.UTC(2026, 0, 1, 10),
  to: Date.UTC(2026, 0, 1, 11),
  at: Date.UTC(2026, 0, 1, 11),
  status: 'STOPPED',
  partitions: [{ topic: 'payments', partition: '0', status: 'STOPPED', why: 'no commit for longer than its last commits spanned', lag: 5091, lagTimeMs: 72_600, leader: '1' }],
  totalLag: 5091,
  maxLagTimeMs: 72_600,
  members: 0,
  coordinator: '1',
  signalsSeen: 40,
  causes: [
    {
      kind: 'consumers',
      score: 80,
      title: 'payments-ledger has no members',
      advise: 'Start the group\'s consumers again.',
      // A client's log line is broker data: its <!here> must not reach Slack as a mention.
      evidence: [{ name: 'client.error', at: Date.UTC(2026, 0, 1, 10, 59), cluster: 'prod', source: 'log', text: 'consumer <!here> failed', labels: { group: 'payments-ledger' } }, { name: 'group.members', at: Date.UTC(2026, 0, 1, 11), cluster: 'prod', broker: '1', value: 0, source: 'consumer-lag', labels: { group: 'payments-ledger' } }],
    },
  ],
}

describe('bot why group', () => {
  it.each([
    ['why group payments-ledger', { verb: 'why', group: 'payments-ledger' }],
    ['why group prod:payments-ledger 2h', { verb: 'why', cluster: 'prod', group: 'payments-ledger', sinceMs: 7_200_000 }],
    ['why group payments-ledger since 30m', { verb: 'why', group: 'payments-ledger', sinceMs: 1_800_000 }],
  ])('parses %s', (text, expected) => {
    expect(parseCommand(text)).toMatchObject(expected)
  })

  it.each(['why group', 'why group pay#ments', 'why group a b c'])('refuses %s with the usage line', (text) => {
    expect(() => parseCommand(text)).toThrow(/why/)
  })

  it('refuses markup in a group name before anything reads the store', () => {
    expect(() => parseCommand('why group <!channel>')).toThrow(/not accepted/)
  })

  it('renders the status, the partitions and the cause, with broker text escaped', () => {
    const m = renderGroupDiagnosis(diagnosis, { timeZone: 'UTC' })
    const payload = JSON.stringify(toBlockKit(m))
    expect(m.text).toContain('Consumer group payments-ledger: STOPPED: 1 of 1 partitions not OK, 5,091 messages of lag, up to 1.21m behind. Likely cause: payments-ledger has no members')
    expect(payload).toContain('payments-0 STOPPED, lag 5,091 (1.21m)')
    expect(payload).not.toContain('<!here>')
    expect(payload).toContain('&lt;!here&gt;')
    expect(payload).toContain('group.members 0')
  })
})
