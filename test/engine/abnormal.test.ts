import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { looksHealthy } from '../../engine/abnormal.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// One definition of "abnormal": what the answer lists as abnormal is never followed by "nothing
// abnormal", and what a healthy broker does all day (safepoints of microseconds, a deploy's few
// rebalances) is not listed. Both recordings are real: healthy-day is a quiet Kafka 2.0 day (1,921
// safepoint lines, worst sync 90 µs), lab-stw a 3-broker cluster whose broker 2 saw the others'
// leadership move during a stall on broker 1. The why command line runs in-process (its exit codes
// through a process are held by test/engine/cli-commands.test.ts).
const CLI_TIMEOUT_MS = 180_000

describe('engine/abnormal', () => {
  // One rule that matches neither recording, so what is listed does not depend on the shipped pack.
  let rules: string
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-abnormal-'))
    rules = path.join(dir, 'one.rules')
    await writeFile(rules, 'rule oom severity critical when jvm.oom then cause "out of memory"\n')
  })
  afterAll(async () => rm(path.dirname(rules), { recursive: true, force: true }))

  it('lists nothing for a quiet day and says so', async () => {
    const r = await kafkaWhyInProcess(['why', '2', '--replay', 'test/incidents/healthy-day', '--rules', rules])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain('Abnormal in the window')
    expect(r.stdout).not.toMatch(/safepoint sync/)
    expect(r.stdout).toMatch(/nothing abnormal in 2218 lines from 3 files/)
  }, CLI_TIMEOUT_MS)

  it('never says "nothing abnormal" after listing something abnormal', async () => {
    const r = await kafkaWhyInProcess(['why', '2', '--replay', 'test/incidents/lab-stw', '--rules', rules])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/Abnormal in the window:\n\s+- \d+ × /)
    expect(r.stdout).not.toContain('nothing abnormal')
  }, CLI_TIMEOUT_MS)

  it.each([
    { what: 'no cause, no error, nothing listed', d: { causes: [], abnormal: [] }, healthy: true },
    { what: 'an info cause only', d: { causes: [{ severity: 'info' }], abnormal: [] }, healthy: true },
    { what: 'a warning cause', d: { causes: [{ severity: 'warning' }], abnormal: [] }, healthy: false },
    { what: 'an unexplained error', d: { causes: [], abnormal: [], unexplained: [{}] }, healthy: false },
    { what: 'an abnormal entry', d: { causes: [], abnormal: [{ signal: 'leader.change', summary: '24 ×', count: 24 }] }, healthy: false },
  ])('looksHealthy: $what → $healthy', ({ d, healthy }) => {
    expect(looksHealthy(d as unknown as Parameters<typeof looksHealthy>[0])).toBe(healthy)
  })
})
