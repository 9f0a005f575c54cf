import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { labUnavailableReason } from '../../lab/kafka-runtime.js'
import { tmpfsUnavailable } from '../../lab/faults/volumes.js'
import { readLabExpectation, runScenario, SCENARIOS } from '../../lab/run-scenario.js'

const unavailable = labUnavailableReason()
if (unavailable) console.warn(`test/lab/scenarios: skipped, the lab needs Java and Maven: ${unavailable}`)

/** Lines every run of a scenario must have produced for real, in files of the recorded incident. */
const EVIDENCE: [scenario: string, file: (broker: string) => string, line: RegExp][] = [
  ['stw', (b) => `broker-${b}/gc.log`, /\[safepoint\s*\] Safepoint "ThreadDump", Time since last: \d+ ns, Reaching safepoint: [6-9]\d{9} ns/],
  ['stw', (b) => `broker-${b}/server.log`, /WARN Client session timed out, have not heard from server in \d+ms for session id 0x[0-9a-f]+ \(org\.apache\.zookeeper\.ClientCnxn\)/],
  ['stw', (b) => `broker-${b}/server.log`, /INFO \[ZooKeeperClient Kafka server\] Session expired\. \(kafka\.zookeeper\.ZooKeeperClient\)/],
  ['roll-storm', () => 'broker-1/server.log', /Too many open files/],
  ['roll-storm', () => 'broker-1/server.log', /INFO \[LocalLog partition=LoadTestingTopic-\d+, dir=.+\] Rolled new log segment at offset \d+ in \d+ ms\./],
  ['disk-full', (b) => `broker-${b}/server.log`, /java\.io\.IOException: No space left on device/],
  ['disk-full', (b) => `broker-${b}/server.log`, /ERROR Shutdown broker because all log dirs in \S+ have failed \(kafka\.log\.LogManager\)/],
  ['zk-kill', (b) => `broker-${b}/server.log`, /WARN Session 0x[0-9a-f]+ for server \S+, Closing socket connection\. Attempting reconnect except it is a SessionExpiredException\. \(org\.apache\.zookeeper\.ClientCnxn\)/],
  ['zk-partition', (b) => `broker-${b}/server.log`, /WARN Client session timed out, have not heard from server in \d+ms for session id 0x[0-9a-f]+ \(org\.apache\.zookeeper\.ClientCnxn\)/],
]

/**
 * The live subset, one per kind of fault, within 10 minutes on a loaded 2-core machine (458 s for these
 * four, measured at a load average of 20): a JVM stall (process), a full disk (storage), ZooKeeper killed
 * (coordination), a broker cut off from ZooKeeper (network). Where the full disk cannot run (no root),
 * the roll storm covers storage instead.
 */
const LIVE = tmpfsUnavailable() === undefined ? ['stw', 'disk-full', 'zk-kill', 'zk-partition'] : ['stw', 'roll-storm', 'zk-kill', 'zk-partition']

// A scenario this machine cannot inject (the network cut needs root and iptables) is skipped, saying why.
const runnable: string[] = []
for (const name of LIVE) {
  const reason = (await SCENARIOS[name]()).scenario.unavailable?.()
  if (reason) console.warn(`test/lab/scenarios: ${name} skipped: ${reason}`)
  else runnable.push(name)
}

/** The bound the README states: the top cause's evidence follows the fault within 120 s (the roll storm needs its time to use up the file descriptors). */
const MAX_FAULT_TO_EVIDENCE_MS = 120_000

function labProcessesUnder(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(dir) && /\bjava\b/.test(l))
}

describe.skipIf(unavailable !== undefined || runnable.length === 0)('lab/scenarios', () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  // One retry: now and then the JVM starts another VM operation before the stall's safepoint request;
  // the scenario then refuses to record and says so.
  it.each(runnable)(
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
      expect(readdirSync(outDir)).toEqual(expect.arrayContaining(['incident.yaml', 'signals.jsonl', 'README.md', 'lab.json']))
      expect(report.verdict, report.unavailable).toBeDefined()
      expect(report.problems).toEqual([])
      // The cause rests on what the fault did: its matching evidence comes after the injection, and soon.
      expect(report.faultToMatchMs).toBeGreaterThan(0)
      expect(report.faultToMatchMs).toBeLessThan(MAX_FAULT_TO_EVIDENCE_MS)
      expect(labProcessesUnder(report.workDir)).toEqual([])
      expect(readFileSync('/proc/mounts', 'utf8')).not.toContain(report.workDir)
    },
  )
})
