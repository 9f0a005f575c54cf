import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diagnoseIncident, verdictProblems } from '../../lab/diagnose-incident.js'
import { REPO_DIR } from '../../lab/kafka-runtime.js'
import { incidentSlug } from '../../lab/kafka-versions.js'
import { LAB_EXPECTATION_FILE, readLabExpectation, SCENARIOS } from '../../lab/run-scenario.js'

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

  // One `why` process per recording, several at a time: the cores are used, not one test's wait.
  it.concurrent.each(recorded)('%s replays offline to the diagnosis its scenario expects', async (slug) => {
    const dir = join(INCIDENTS, slug)
    const { broker, expect: expectation } = readLabExpectation(dir)
    const verdict = await diagnoseIncident(dir, broker)
    expect(verdictProblems(verdict, expectation)).toEqual([])
  }, 120_000)
})
