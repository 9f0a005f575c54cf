import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadRules } from '../../rule-files/load-rules.js'
import { renderCorpusDocs, spliceDocs, DOCS_BEGIN, DOCS_END } from '../../cli/corpus/render-corpus.js'
import { runCorpus, type CorpusReport } from '../../cli/corpus/run-corpus.js'
import { runRuleTests } from '../../cli/rule-test/run-tests.js'
import type { Rule } from '../../dsl/ast.js'

/**
 * The real-incident corpus replayed through the shipped rule pack: every case loads, the healthy excerpts stay
 * quiet, and top-1 accuracy never falls below the last measured figure. Raise ACCURACY_FLOOR when rules improve.
 */

/** Failure cases whose top cause was right at the last measurement (docs/corpus.md); only ever raise it. */
const ACCURACY_FLOOR = 55

let rules: Rule[]
let report: CorpusReport

beforeAll(async () => {
  rules = (await loadRules(['rules/'])).rules
  report = await runCorpus('test/corpus', rules)
}, 300_000)

describe('the real-incident corpus', () => {
  it('keeps its size: at least 60 cases, 25 failure modes and 10 healthy excerpts', () => {
    expect(report.caseErrors).toEqual([])
    expect(report.cases.length).toBeGreaterThanOrEqual(60)
    expect(report.modes).toBeGreaterThanOrEqual(25)
    expect(report.healthy.of).toBeGreaterThanOrEqual(10)
  })

  it('loads every case: each yields signals or is a listed known gap, and the gap list names only real cases', () => {
    expect(report.cases.filter((c) => c.loadError).map((c) => `${c.id}: ${c.loadError}`)).toEqual([])
    expect(report.staleGaps).toEqual([])
  })

  it('documents every case: source.md gives the address and names the expected rule of case.yaml', async () => {
    const problems: string[] = []
    for (const c of report.cases) {
      const md = await readFile(path.join('test/corpus', c.id, 'source.md'), 'utf8')
      if (!/^- Address: https?:\/\//m.test(md)) problems.push(`${c.id}: no "- Address: http…" line`)
      if (!/^- Edit:/m.test(md)) problems.push(`${c.id}: no "- Edit:" line`)
      if (c.expect && !md.includes(`\`${c.expect}\``)) problems.push(`${c.id}: source.md does not name ${c.expect}`)
      if (c.healthy && !/no rule at warning or critical/.test(md)) problems.push(`${c.id}: healthy case without its expectation`)
    }
    expect(problems).toEqual([])
  })

  it('raises nothing at warning or critical on the healthy excerpts', () => {
    expect(report.cases.filter((c) => c.healthy && !c.ok).map((c) => `${c.id}: ${c.alarms.join(', ')}`)).toEqual([])
  })

  it(`gets at least ${ACCURACY_FLOOR} failure cases right at top-1`, () => {
    expect(report.overall.right).toBeGreaterThanOrEqual(ACCURACY_FLOOR)
    expect(report.overall.of).toBe(report.cases.filter((c) => !c.healthy).length)
  })

  it('gives the same verdict per case through `kafka-why test test/corpus` as through the harness', async () => {
    const run = await runRuleTests({ paths: ['test/corpus'], rules: ['rules/'] })
    const viaTest = Object.fromEntries(run.files.map((f) => [path.basename(path.dirname(f.file)), f.errors.length === 0 && f.cases.every((c) => c.ok)]))
    const viaHarness = Object.fromEntries(report.cases.map((c) => [c.id, c.ok]))
    expect(viaTest).toEqual(viaHarness)
  }, 300_000)
})

describe('the corpus harness', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'corpus-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('scores a case against its expected rule and reports where the expected rule ranked', async () => {
    const root = path.join(dir, 'score')
    await cp('test/corpus/under-min-isr-consumer-offsets-rf', path.join(root, 'right'), { recursive: true })
    await cp('test/corpus/under-min-isr-consumer-offsets-rf', path.join(root, 'wrong'), { recursive: true })
    await writeFile(path.join(root, 'wrong', 'case.yaml'), 'mode: under-min-isr\nbroker: "1"\nexpect: disk_full\n')
    const r = await runCorpus(root, rules)
    const byId = Object.fromEntries(r.cases.map((c) => [c.id, c]))
    expect(byId.right.ok).toBe(true)
    expect(byId.right.got).toBe('under_min_isr_writes_failing')
    expect(byId.wrong.ok).toBe(false)
    expect(byId.wrong.got).toBe('under_min_isr_writes_failing')
    expect(r.overall).toEqual({ right: 1, of: 2 })
    expect(r.byMode['under-min-isr']).toEqual({ right: 1, of: 2 })
  })

  it('refuses a failure case that yields no signal unless known-gaps.yaml explains it', async () => {
    const root = path.join(dir, 'gaps')
    await cp('test/corpus/healthy-retention-time-segment-deletes', path.join(root, 'quiet-lines'), { recursive: true })
    await writeFile(path.join(root, 'quiet-lines', 'case.yaml'), 'mode: disk-full\nbroker: "0"\nexpect: disk_full\n')
    const unexplained = await runCorpus(root, rules)
    expect(unexplained.cases[0].loadError).toMatch(/no signals/)
    await writeFile(path.join(root, 'known-gaps.yaml'), "quiet-lines: 'INFO retention lines only'\nno-such-case: 'typo'\n")
    const explained = await runCorpus(root, rules)
    expect(explained.cases[0].loadError).toBeUndefined()
    expect(explained.gaps).toEqual({ 'quiet-lines': 'INFO retention lines only' })
    expect(explained.staleGaps).toEqual(['no-such-case'])
  })

  it('names the file and field of a broken case.yaml instead of skipping the case', async () => {
    const root = path.join(dir, 'broken')
    await cp('test/corpus/disk-full-startup-checkpoint-strimzi', path.join(root, 'bad'), { recursive: true })
    await writeFile(path.join(root, 'bad', 'case.yaml'), 'mode: Disk Full\nbroker: "2"\nexpect: disk_full\n')
    const r = await runCorpus(root, rules)
    expect(r.cases).toEqual([])
    expect(r.caseErrors).toHaveLength(1)
    expect(r.caseErrors[0].file).toBe(path.join(root, 'bad', 'case.yaml'))
    expect(r.caseErrors[0].message).toMatch(/^mode:/)
  })

  it('rewrites only the generated block of the docs page', () => {
    const generated = renderCorpusDocs(report, 'abc1234')
    expect(generated.startsWith(DOCS_BEGIN)).toBe(true)
    expect(generated).toContain(`Top-1: ${report.overall.right} of ${report.overall.of}`)
    const page = `# Title\n\nhand-written before\n\n${DOCS_BEGIN}\nold table\n${DOCS_END}\n\nhand-written after\n`
    const next = spliceDocs(page, generated)
    expect(next).toContain('hand-written before')
    expect(next).toContain('hand-written after')
    expect(next).not.toContain('old table')
    expect(next.match(new RegExp(DOCS_BEGIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))).toHaveLength(1)
  })
})
