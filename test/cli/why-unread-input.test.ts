import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderDiagnosis } from '../../bot/render/diagnosis.js'
import { toConsole } from '../../bot/render/console.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

// No answer calls its input healthy after skipping part of it. healthy-day's real broker-2 logs read
// cleanly and get "nothing abnormal"; the same logs beside input that cannot be read must not:
// - a line: seed 000's ZooKeeper session timeout with its "[date] WARN" cut off, at the head of the
//   server.log (a paste that started mid-line), so no record start is found for it;
// - a file: the prose of seed 002's report (../shared/seeds/002_…), which is no log at all;
// - a file: a core dump's ELF header (binary).
// The commands run in-process (the command line as the entry point runs it); their exit codes through a
// spawned process are held by test/engine/cli-commands.test.ts.
const HEALTHY = 'test/incidents/healthy-day/broker-2'
const CUT_LINE = 'Client session timed out, have not heard from server in 7768ms for sessionid 0x164f8ea86020062 (org.apache.zookeeper.ClientCnxn)'
const CLI_TIMEOUT_MS = 180_000

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kafka-why-unread-'))
  for (const name of ['healthy', 'cut-line', 'prose', 'binary']) {
    await mkdir(path.join(dir, name))
    for (const f of ['server.log', 'gc.log']) await copyFile(path.join(HEALTHY, f), path.join(dir, name, f))
  }
  const server = await readFile(path.join(HEALTHY, 'server.log'), 'utf8')
  await writeFile(path.join(dir, 'cut-line', 'server.log'), `${CUT_LINE}\n${server}`)
  const seed = await readFile('../shared/seeds/002_f81a753d495d5c0b.txt', 'utf8')
  await writeFile(path.join(dir, 'prose', 'question.txt'), `${seed.split('\n').slice(0, 12).join('\n')}\n`)
  await writeFile(path.join(dir, 'binary', 'core.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('why never says "nothing abnormal" about input it did not read', { timeout: CLI_TIMEOUT_MS }, () => {
  it('says "nothing abnormal" when every line was read (the control)', async () => {
    const r = await kafkaWhyInProcess(['why', '2', '--replay', path.join(dir, 'healthy')])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^nothing abnormal in \d+ lines from 2 files/m)
    expect(r.stdout).not.toContain('not read')
  })

  it.each([
    { name: 'cut-line', said: /^warning: 1 of [\d,]+ lines in 1 file not read: no record start found \(a timestamp cut off\?\)$/m },
    { name: 'prose', said: /^warning: 12 of [\d,]+ lines in 1 file not read: no layout recognised$/m },
    { name: 'binary', said: /^warning: skipped .*core\.bin \(not a log: binary content\)$/m },
  ])('after skipping input ($name) it says how much and why, and never "nothing abnormal"', async ({ name, said }) => {
    const r = await kafkaWhyInProcess(['why', '2', '--replay', path.join(dir, name)])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toMatch(/nothing abnormal/i)
    expect(r.stdout).toMatch(said)
    expect(r.stdout).toContain('which says nothing about the rest')
    const json = await kafkaWhyInProcess(['why', '2', '--replay', path.join(dir, name), '--json'])
    const d = JSON.parse(json.stdout)
    expect(d.unread.lines + d.unread.skipped.length).toBeGreaterThan(0)
    // Slack and the console render the same Diagnosis: the unread input is in both.
    const slack = renderDiagnosis(d, { timeZone: 'UTC' })
    const terminal = toConsole(slack)
    expect(terminal).toMatch(/lines in \d+ files? not read: |skipped .*\(not a log/)
    expect(`${slack.text}\n${terminal}`).not.toMatch(/nothing abnormal/i)
  })

  it('says it when no broker was asked and nothing became a signal', async () => {
    const r = await kafkaWhyInProcess(['why', '--replay', path.join(dir, 'prose', 'question.txt'), '--json'])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.healthy).toBe(false)
    expect(s.summary).not.toMatch(/nothing abnormal/i)
    expect(s.unread).toMatchObject({ lines: 12, files: 1, reasons: [{ reason: 'no layout recognised', lines: 12 }] })
  })

  it('replay says what it did not read', async () => {
    const r = await kafkaWhyInProcess(['replay', path.join(dir, 'cut-line')])
    expect(r.code).toBe(0)
    expect(r.stdout + r.stderr).toMatch(/warning: 1 of [\d,]+ lines in 1 file not read: no record start found/)
  })
})
