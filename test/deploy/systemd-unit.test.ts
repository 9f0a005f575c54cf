import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// deploy/kafka-why.service must start on any host: a directive naming a group the host may lack
// (SupplementaryGroups=kafka) fails the unit at start ("Failed to determine supplementary groups"),
// so such a group is left to a drop-in the comments show. systemd-analyze checks the syntax where it exists.
const UNIT = path.resolve(import.meta.dirname, '../../deploy/kafka-why.service')

describe('deploy/kafka-why.service', () => {
  const text = readFileSync(UNIT, 'utf8')
  const directives = text.split('\n').filter((l) => /^[A-Za-z]+=/.test(l))

  it('names no group or user besides its own, so it starts on a host without a kafka group', () => {
    expect(directives.filter((l) => /^(SupplementaryGroups|Group|User)=/.test(l))).toEqual(['User=kafka-why', 'Group=kafka-why'])
    expect(text).toMatch(/^#.*SupplementaryGroups=kafka/m)
  })

  it.skipIf(spawnSync('systemd-analyze', ['--version']).error !== undefined)('passes systemd-analyze verify', () => {
    const r = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
  })
})
