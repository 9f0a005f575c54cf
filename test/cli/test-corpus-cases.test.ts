import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// `kafka-why test` runs real-incident corpus cases (test/corpus/<case>/case.yaml) as rule tests: the rule
// named in case.yaml must rank first for the case's broker, and a healthy excerpt must raise nothing at
// warning or above, even when its INFO lines yield no signal at all. The test command line runs
// in-process (its exit codes through a process are held by test/cli/ci.test.ts).

const scratch = mkdtempSync(path.join(tmpdir(), 'kw-corpus-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('cli/rule-test/corpus-case-test', () => {
  it('passes a failure case whose rule ranks first and a healthy case that yields no signal', async () => {
    const r = await kafkaWhyInProcess(['test', 'test/corpus/zk-quorum-election-loop-after-scale-up', 'test/corpus/healthy-retention-time-segment-deletes'])
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('✓ corpus zk-quorum-election-loop-after-scale-up: zk_quorum_no_leader first on broker 1')
    expect(r.stdout).toContain('✓ corpus healthy-retention-time-segment-deletes: nothing at warning or above on broker 0')
    expect(r.stdout).toMatch(/ok: 2 passed, 0 failed/)
    expect(r.code).toBe(0)
  })

  it('fails a case whose expected rule is not first, naming the case file and what fired instead', async () => {
    const dir = path.join(scratch, 'disk-full-wrong-expectation')
    cpSync('test/corpus/disk-full-append-tmpfs-kafka-native', dir, { recursive: true })
    writeFileSync(path.join(dir, 'case.yaml'), 'mode: disk-full\nbroker: "1"\nexpect: heap_oom\n')
    const r = await kafkaWhyInProcess(['test', dir, '--rules', 'rules/'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(`${path.join(dir, 'case.yaml')}:1: expect heap_oom on broker 1 at rank 1: FAILED`)
    expect(r.stdout).toContain('disk_full')
  })

  it('reports a broken case.yaml as a load error of that file', async () => {
    const dir = path.join(scratch, 'broken-case')
    cpSync('test/corpus/disk-full-append-tmpfs-kafka-native', dir, { recursive: true })
    writeFileSync(path.join(dir, 'case.yaml'), 'mode: Disk Full\nbroker: "1"\n')
    const r = await kafkaWhyInProcess(['test', dir, '--rules', 'rules/'])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('mode: expected a kebab-case failure mode')
  })
})
