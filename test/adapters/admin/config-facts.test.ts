import { describe, expect, it } from 'vitest'
import { configFactName, configFacts, configFactValue } from '../../../adapters/admin/config-facts.js'

describe('adapters/admin/config-facts', () => {
  it.each([
    // [Kafka key, value as describeConfigs returns it, fact name, fact value in the catalogue unit]
    ['segment.ms', '100', 'config.segment_ms', 100],
    ['log.roll.ms', '3600000', 'config.segment_ms', 3_600_000],
    ['log.roll.hours', '168', 'config.segment_ms', 604_800_000],
    ['log.retention.hours', '24', 'config.retention_ms', 86_400_000],
    ['segment.bytes', '1073741824', 'config.segment_bytes', 1_073_741_824],
    ['log.segment.bytes', '1073741824', 'config.segment_bytes', 1_073_741_824],
    ['zookeeper.session.timeout.ms', '18000', 'config.zookeeper_session_timeout_ms', 18_000],
    ['log.message.format.version', '3.0-IV1', 'config.log_message_format_version', 3_000_000],
    ['message.format.version', '0.10.2-IV0', 'config.log_message_format_version', 10_002],
    ['unclean.leader.election.enable', 'false', 'config.unclean_leader_election_enable', 0],
    ['min.insync.replicas', '2', 'config.min_insync_replicas', 2],
    ['inter.broker.protocol.version', '3.9-IV0', 'config.inter_broker_protocol_version', 3_009_000],
  ])('reads %s=%s as %s = %s', (key, value, name, expected) => {
    expect(configFactName(key)).toBe(name)
    expect(configFactValue(key, value)).toBe(expected)
  })

  it.each([
    ['compression.type', 'producer'],
    ['segment.ms', null],
    ['segment.ms', 'soon'],
    ['segment.ms', ''],
  ])('makes no fact of %s=%s', (key, value) => {
    expect(configFactValue(key, value)).toBeUndefined()
  })

  it('prefers log.roll.ms over log.roll.hours as Kafka does, and falls back when ms is unset', () => {
    const both = configFacts({ 'log.roll.hours': { value: '168' }, 'log.roll.ms': { value: '60000' } })
    expect(both.get('config.segment_ms')).toEqual({ value: 60_000, key: 'log.roll.ms', raw: '60000' })
    const hoursOnly = configFacts({ 'log.roll.ms': { value: null }, 'log.roll.hours': { value: '1' } })
    expect(hoursOnly.get('config.segment_ms')).toEqual({ value: 3_600_000, key: 'log.roll.hours', raw: '1' })
  })
})
