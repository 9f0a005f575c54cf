import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { labUnavailableReason } from '../../lab/kafka-runtime.js'
import { readLabExpectation, runScenario } from '../../lab/run-scenario.js'

const unavailable = labUnavailableReason()
if (unavailable) console.warn(`test/lab/scenarios: skipped, the lab needs Java and Maven: ${unavailable}`)

/** Lines every run of a scenario must have produced for real, in files of the recorded incident. */
const EVIDENCE: [scenario: string, file: (broker: string) => string, line: RegExp][] = [
  ['stw', (b) => `broker-${b}/gc.log`, /\[safepoint\s*\] Safepoint "ThreadDump", Time since last: \d+ ns, Reaching safepoint: [6-9]\d{9} ns/],
  ['stw', (b) => `broker-${b}/server.log`, /WARN Client session timed out, have not heard from server in \d+ms for session id 0x[0-9a-f]+ \(org\.apache\.zookeeper\.ClientCnxn\)/],
  ['stw', (b) => `broker-${b}/server.log`, /INFO \[ZooKeeperClient Kafka server\] Session expired\. \(kafka\.zookeeper\.ZooKeeperClient\)/],
  ['stw-sigstop', (b) => `broker-${b}/server.log`, /INFO \[ZooKeeperClient Kafka server\] Session expired\. \(kafka\.zookeeper\.ZooKeeperClient\)/],
  ['roll-storm', () => 'broker-1/server.log', /Too many open files/],
  ['roll-storm', () => 'broker-1/server.log', /INFO \[LocalLog partition=LoadTestingTopic-\d+, dir=.+\] Rolled new log segment at offset \d+ in \d+ ms\./],
]

/** The bound the README states: the top cause's evidence follows the fault within 120 s (the roll storm needs its time to use up the file descriptors). */
const MAX_FAULT_TO_EVIDENCE_MS = 120_000

function labProcessesUnder(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(dir) && /\bjava\b/.test(l))
}

describe.skipIf(unavailable !== undefined)('lab/scenarios', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  // One retry: now and then the JVM starts another VM operation before the stall's safepoint request,
  // or a SIGSTOP lands inside a safepoint; the scenario then refuses to record and says so.
  it.each(['stw', 'stw-sigstop', 'roll-storm'])(
    '%s on a real cluster: recorded, diagnosed as expected, nothing left running',
    { timeout: 360_000, retry: 1 },
    async (name) => {
      const outDir = mkdtempSync(join(tmpdir(), `kafka-why-lab-test-${name}-`))
      dirs.push(outDir)
      const report = await runScenario(name, { outDir, log: () => {} })

      const broker = readLabExpectation(outDir).broker
      for (const [, file, line] of EVIDENCE.filter(([s]) => s === name)) {
        expect(readFileSync(join(outDir, file(broker)), 'utf8'), `${file(broker)} of ${name}`).toMatch(line)
      }
      if (name === 'stw-sigstop') {
        expect(readFileSync(join(outDir, `broker-${broker}/gc.log`), 'utf8')).not.toMatch(/Reaching safepoint: \d{10,} ns/)
      }
      expect(readdirSync(outDir)).toEqual(expect.arrayContaining(['incident.yaml', 'signals.jsonl', 'README.md', 'lab.json']))
      expect(report.verdict, report.unavailable).toBeDefined()
      expect(report.problems).toEqual([])
      // The cause rests on what the fault did: its matching evidence comes after the injection, and soon.
      expect(report.faultToMatchMs).toBeGreaterThan(0)
      expect(report.faultToMatchMs).toBeLessThan(MAX_FAULT_TO_EVIDENCE_MS)
      expect(labProcessesUnder('kafka-why-lab-' + name)).toEqual([])
    },
  )
})
