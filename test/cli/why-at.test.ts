import { describe, expect, it } from 'vitest'
import type { ClusterDiagnosis } from '../../engine/diagnose-cluster.js'
import type { Diagnosis } from '../../engine/diagnosis.js'
import { kafkaWhy } from '../support/kafka-why-cli.js'

// `why --at` on a recording answers inside its data: lab-disk-full's last record is at 12:03:55 (broker
// 3's disk filled at 12:03:41 and it exited; its own data ends at 12:03:42). An --at hours later
// evaluates no window past the data and answers exactly as without --at, each broker at its own last
// record at the latest; an --at inside the data answers at that moment, from nothing later.
const REC = 'test/incidents/lab-disk-full'
const LATER = '2026-12-01T18:00:00Z'

function latest(d: Diagnosis): number {
  return Math.max(...d.causes.flatMap((c) => [c.lastAt, c.matchedAt, ...c.evidence.map((e) => e.at)]))
}

describe('cli why --at on a recording', { timeout: 300_000 }, () => {
  it('one broker: an --at past the data is clamped to the last record and changes nothing', async () => {
    const [plain, late] = await Promise.all([kafkaWhy(['why', '3', '--replay', REC, '--json']), kafkaWhy(['why', '3', '--replay', REC, '--at', LATER, '--json'])])
    expect(plain.code, plain.stderr).toBe(0)
    expect(late.code, late.stderr).toBe(0)
    const a = JSON.parse(plain.stdout) as Diagnosis
    const b = JSON.parse(late.stdout) as Diagnosis
    expect(b.to).toBe(a.to)
    expect(b.at).toBe(a.to)
    // Broker 3's own data ends when it exits, before its peers'.
    expect(new Date(b.to).toISOString()).toMatch(/^2026-12-01T12:03:4\d/)
    expect(latest(b)).toBeLessThanOrEqual(b.to)
    expect(b.causes.map((c) => [c.ruleId, c.severity, c.cause])).toEqual(a.causes.map((c) => [c.ruleId, c.severity, c.cause]))
    expect(b.causes[0].ruleId).toBe('disk_full')
  })

  it('the cluster: an --at past the data is clamped to the last record, and each broker to its own', async () => {
    const r = await kafkaWhy(['why', '--replay', REC, '--at', LATER, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const answer = JSON.parse(r.stdout) as ClusterDiagnosis
    expect(new Date(answer.to).toISOString()).toMatch(/^2026-12-01T12:03:5\d/)
    for (const part of answer.brokers) {
      expect(part.diagnosis.to, `broker ${part.broker}`).toBeLessThanOrEqual(answer.to)
      if (part.diagnosis.causes.length) expect(latest(part.diagnosis), `broker ${part.broker}`).toBeLessThanOrEqual(part.diagnosis.to)
    }
    expect(answer.brokers.find((p) => p.broker === '1')?.diagnosis.to).toBe(answer.to)
    expect(answer.brokers[0]).toMatchObject({ broker: '3', role: 'origin' })
  })

  it('an --at inside the data answers at that moment: before the disk filled, no disk_full', async () => {
    const at = '2026-12-01T12:03:30Z'
    const r = await kafkaWhy(['why', '3', '--replay', REC, '--at', at, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const d = JSON.parse(r.stdout) as Diagnosis
    expect(d.to).toBe(Date.parse(at))
    expect(d.causes.map((c) => c.ruleId)).not.toContain('disk_full')
    if (d.causes.length) expect(latest(d)).toBeLessThanOrEqual(Date.parse(at))
  })
})
