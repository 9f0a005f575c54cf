import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type CliRunner, diagnoseIncident, verdictProblems } from '../../lab/diagnose-incident.js'
import { REPO_DIR } from '../../lab/kafka-runtime.js'
import { incidentSlug } from '../../lab/kafka-versions.js'
import { LAB_EXPECTATION_FILE, readLabExpectation, SCENARIOS } from '../../lab/run-scenario.js'
import { kafkaWhyInProcess } from '../support/kafka-why-in-process.js'

const INCIDENTS = join(REPO_DIR, 'test', 'incidents')
const recorded = readdirSync(INCIDENTS)
  .filter((d) => d.startsWith('lab-') && existsSync(join(INCIDENTS, d, LAB_EXPECTATION_FILE)))
  .sort()

describe('lab/recorded', () => {
  it('has a recording of every scenario on the default release', () => {
    expect(recorded.filter((d) => incidentSlug(readLabExpectation(join(INCIDENTS, d)).scenario) === d)).toEqual(Object.keys(SCENARIOS).map((name) => `lab-${name}`).sort())
  })

  it('names each recording after its scenario and the release it ran on', () => {
    for (const d of recorded) {
      const { scenario, kafkaVersion } = readLabExpectation(join(INCIDENTS, d))
      expect(Object.keys(SCENARIOS), d).toContain(scenario)
      expect(d).toBe(incidentSlug(scenario, kafkaVersion))
    }
  })

  // The lab's verdict as a lab run reads it: `kafka-why why <broker> --replay <dir> --json`. The first
  // recording goes through a process of its own, as the lab runs it; the others run the same command
  // line in this process (a process costs 2.5 s of CPU loading modules, the replay itself a fraction).
  const inProcess: CliRunner = (args) => kafkaWhyInProcess(args, {}, REPO_DIR)
  it.each(recorded.map((slug, i) => ({ slug, spawned: i === 0 })))('$slug replays offline to the diagnosis its scenario expects', async ({ slug, spawned }) => {
    const dir = join(INCIDENTS, slug)
    const { broker, expect: expectation } = readLabExpectation(dir)
    const verdict = spawned ? await diagnoseIncident(dir, broker) : await diagnoseIncident(dir, broker, 120_000, inProcess)
    expect(verdictProblems(verdict, expectation)).toEqual([])
  }, 120_000)
})
