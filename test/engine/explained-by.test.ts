import { describe, expect, it } from 'vitest'
import { observedSignalsOfRule } from '../../dsl/signals-of-rule.js'
import { markExplained } from '../../engine/diagnose.js'
import type { Cause } from '../../engine/diagnosis.js'
import { rules } from './parse.js'

const [STW, NOT_LEADER, QUIET] = rules(`
rule stw
  when zk.session_timeout within 5s of safepoint.sync > 2s
  then cause "pause"
  explains zk.session_expired, client.not_leader
rule not_leader_errors
  severity info
  when count(client.not_leader) by topic over 5m >= 3
   and not client.not_leader within 2m of broker.shutdown
  then cause "NotLeader errors"
rule no_expiry
  when not zk.session_expired
  then cause "nothing expired"
`)

const causeOf = () => ({ explainsRules: [] }) as unknown as Cause

describe('engine/diagnose markExplained', () => {
  it('reads what a match rests on outside its not: the required-absent shutdown is no occurrence', () => {
    expect(observedSignalsOfRule(NOT_LEADER)).toEqual(['client.not_leader'])
    expect(observedSignalsOfRule(QUIET)).toEqual([])
  })

  it('makes NotLeader errors a consequence of the pause even though that rule also reads broker.shutdown', () => {
    const [stw, notLeader] = [causeOf(), causeOf()]
    markExplained([{ cause: stw, rule: STW }, { cause: notLeader, rule: NOT_LEADER }])
    expect(stw.explainsRules).toEqual(['not_leader_errors'])
    expect(notLeader.explainedBy).toEqual(['stw'])
  })

  it('never explains a rule that only requires an absence', () => {
    const [stw, quiet] = [causeOf(), causeOf()]
    markExplained([{ cause: stw, rule: STW }, { cause: quiet, rule: QUIET }])
    expect(stw.explainsRules).toEqual([])
    expect(quiet.explainedBy).toBeUndefined()
  })
})
