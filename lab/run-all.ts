import { join } from 'node:path'
import { FaultUnavailable } from './faults/requirements.js'
import { runScenario, SCENARIOS, type ScenarioReport } from './run-scenario.js'

/** One row of the catalogue table `kafka-why lab all` prints. */
export type CatalogueRow = {
  scenario: string
  expected: string
  /** The diagnosis' top cause, "nothing" when none; "skipped"/"failed" rows say why in note. */
  top: string
  /** True when the diagnosis met the scenario's expectation. */
  ok: boolean
  /** Fault → the top cause's matching evidence, in seconds. */
  faultToEvidenceS?: number
  /** Wall time of the whole run, in seconds. */
  seconds?: number
  note?: string
}

function expectedText(r: ScenarioReport): string {
  return r.outcome.expect.topRule ?? 'nothing above info'
}

/** A finished run as a table row. */
export function catalogueRow(name: string, r: ScenarioReport): CatalogueRow {
  const top = r.verdict?.ruleIds[0] ?? (r.verdict ? 'nothing' : 'not diagnosed')
  return {
    scenario: name,
    expected: expectedText(r),
    top: r.outcome.expect.topRule === null && r.verdict ? (r.verdict.ruleIds.find((_, i) => r.verdict!.severities[i] !== 'info') ?? `nothing above info${top !== 'nothing' ? ` (${top})` : ''}`) : top,
    ok: r.verdict !== undefined && r.problems.length === 0,
    faultToEvidenceS: r.faultToMatchMs === undefined ? undefined : r.faultToMatchMs / 1000,
    seconds: r.totalMs / 1000,
    note: r.problems.join('; ') || undefined,
  }
}

/**
 * Runs every scenario of the catalogue one after another (one cluster at a time), each on a fresh
 * cluster, and returns a row per scenario. A scenario this machine cannot run is a skipped row with
 * the reason; one that fails is a failed row with its error; neither stops the others.
 */
export async function runCatalogue(options: { outRoot?: string; only?: string[]; log?: (m: string) => void } = {}): Promise<CatalogueRow[]> {
  const rows: CatalogueRow[] = []
  for (const name of options.only ?? Object.keys(SCENARIOS)) {
    options.log?.(`— ${name}`)
    try {
      const report = await runScenario(name, { outDir: options.outRoot ? join(options.outRoot, `lab-${name}`) : undefined, log: options.log && ((m) => options.log!(`[lab ${name}] ${m}`)) })
      rows.push(catalogueRow(name, report))
    } catch (err) {
      const skipped = err instanceof FaultUnavailable
      rows.push({ scenario: name, expected: '–', top: skipped ? 'skipped' : 'failed', ok: false, note: (err as Error).message.split('\n')[0] })
    }
  }
  return rows
}

/** The catalogue table as aligned text: scenario, expected, top cause, fault → evidence, time, verdict. */
export function catalogueTable(rows: CatalogueRow[]): string {
  const head = ['scenario', 'expected', 'top cause', 'fault → evidence', 'run', 'verdict']
  const body = rows.map((r) => [
    r.scenario,
    r.expected,
    r.top,
    r.faultToEvidenceS === undefined ? '–' : `${r.faultToEvidenceS.toFixed(1)} s`,
    r.seconds === undefined ? '–' : `${r.seconds.toFixed(0)} s`,
    r.ok ? 'right' : r.top === 'skipped' ? `skipped: ${r.note}` : `WRONG${r.note ? `: ${r.note}` : ''}`,
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ')
  const right = rows.filter((r) => r.ok).length
  const ran = rows.filter((r) => r.top !== 'skipped').length
  return [line(head), ...body.map(line), '', `${right} of ${ran} run diagnosed right${ran < rows.length ? `, ${rows.length - ran} skipped` : ''}`].join('\n')
}
