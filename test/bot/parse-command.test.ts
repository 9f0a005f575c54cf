import { describe, expect, it } from 'vitest'
import { UserError } from '../../bot/errors.js'
import { parseCommand } from '../../bot/parse-command.js'

describe('bot/parse-command', () => {
  it.each([
    ['why 3', { verb: 'why', broker: '3', cluster: undefined, sinceMs: undefined }],
    ['why broker-3 2h', { verb: 'why', broker: '3', cluster: undefined, sinceMs: 7_200_000 }],
    ['WHY prod:3 since 30m', { verb: 'why', broker: '3', cluster: 'prod', sinceMs: 1_800_000 }],
    // No broker: the cluster's answer in a cluster's channel, the usage line elsewhere (the handler decides).
    ['why', { verb: 'why' }],
    ['why since 2h', { verb: 'why', sinceMs: 7_200_000 }],
    ['  status  ', { verb: 'status', cluster: undefined }],
    ['digest prod-eu', { verb: 'digest', cluster: 'prod-eu' }],
    ['rules', { verb: 'rules', name: undefined }],
    ['explain stw_pause_session_expiry', { verb: 'explain', rule: 'stw_pause_session_expiry' }],
    ['describe topic orders.v2', { verb: 'describe', kind: 'topic', cluster: undefined, name: 'orders.v2' }],
    ['describe group prod:billing-consumers', { verb: 'describe', kind: 'group', cluster: 'prod', name: 'billing-consumers' }],
    ['describe broker broker-2', { verb: 'describe', kind: 'broker', cluster: undefined, name: '2' }],
    ['config topic orders', { verb: 'config', kind: 'topic', cluster: undefined, name: 'orders' }],
    ['config topic orders set segment.ms=604800000', { verb: 'config', kind: 'topic', cluster: undefined, name: 'orders', change: { op: 'set', key: 'segment.ms', value: '604800000' } }],
    ['config topic orders set cleanup.policy=compact,delete', { verb: 'config', kind: 'topic', cluster: undefined, name: 'orders', change: { op: 'set', key: 'cleanup.policy', value: 'compact,delete' } }],
    ['config topic orders reset segment.ms', { verb: 'config', kind: 'topic', cluster: undefined, name: 'orders', change: { op: 'reset', key: 'segment.ms' } }],
    ['silence stw_pause_session_expiry 1h', { verb: 'silence', matcher: 'stw_pause_session_expiry', durationMs: 3_600_000 }],
    ['config topic orders set <http://segment.ms|segment.ms>=1000', { verb: 'config', kind: 'topic', cluster: undefined, name: 'orders', change: { op: 'set', key: 'segment.ms', value: '1000' } }],
    ['', { verb: 'help' }],
    ['help why', { verb: 'help', topic: 'why' }],
  ])('parses %j', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected)
  })

  it.each([
    ['frobnicate', /Unknown command 'frobnicate'/],
    ['wy 3', /Did you mean `why`/],
    ['why three', /'three' is not a broker id/],
    ['why 3 2 fortnights', /Unexpected/],
    ['why 3 0h', /not a duration/],
    ['describe', /Missing arguments/],
    ['describe table x', /'table' is not one of topic, group, broker/],
    ['describe topic bad/name', /The character "\/" is not accepted/],
    ['config topic', /Missing arguments/],
    ['config broker 1 set log.retention.ms=1', /only topic configuration can be changed/i],
    ['config topic t set segment.ms', /'segment.ms' is not key=value/],
    ['config topic t set Segment.MS=1', /is not a Kafka config key/],
    ['config topic t delete segment.ms', /unknown action 'delete'/i],
    ['silence x', /Missing arguments/],
    ['silence x 90d', /at most 30d/],
    ['config topic t set segment.ms=1; rm -rf /', /The character ";" is not accepted.*Nothing was run/],
    ['config topic t set segment.ms=1 && reboot', /The character "&" is not accepted/],
    ['config topic t set segment.ms=$(id)', /The character "\$" is not accepted/],
    ['config topic t set segment.ms=`id`', /Quotes are not accepted/],
    ['describe topic "orders"', /Quotes are not accepted/],
    ["describe topic 'orders'", /Quotes are not accepted/],
    ['describe topic \u201corders\u201d', /Quotes are not accepted/],
    ['why 3\nconfig topic t set segment.ms=1', /must fit on one line/],
    ['why\t3', /must fit on one line/],
    ['describe topic <@U123>', /The character "<" is not accepted/],
    ['why ' + '9'.repeat(600), /limit is 500/],
    ['describe topic <http://evil.example|orders>', /The character "<" is not accepted/],
    ['describe topic &lt;script&gt;', /The character "<" is not accepted/],
    ['config topic t set segment.ms=1 &amp;&amp; reboot', /The character "&" is not accepted/],
  ])('refuses %j with a clear reason', (text, message) => {
    let err: unknown
    try {
      parseCommand(text)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(UserError)
    expect((err as Error).message).toMatch(message)
  })
})
