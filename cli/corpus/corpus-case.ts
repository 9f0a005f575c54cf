import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import YAML from 'yaml'

/**
 * The real-incident corpus on disk: one directory per case (`<mode>-<slug>/`) holding the published log
 * lines, `source.md`, an `incident.yaml` the replay tools read, and `case.yaml` — what a right answer is.
 * The expectation lives beside the evidence so a case cannot be scored against a rule nobody wrote down.
 */

/** What one case expects: the top rule for its broker, or, for a healthy excerpt, nothing above info. */
export type CorpusCase = {
  /** Directory name, also the case's id in reports. */
  id: string
  dir: string
  /** Failure mode (or healthy-* for healthy-but-scary excerpts), the unit of per-mode accuracy. */
  mode: string
  /** Broker whose diagnosis is scored. */
  broker: string
  /** Expected top rule id; absent for healthy cases. */
  expect?: string
  /** True when no rule of that name exists yet in the pack (named in source.md as "proposed"). */
  proposed: boolean
  healthy: boolean
}

/** A case directory that could not be read: reported with the file and field, never skipped silently. */
export type CaseError = { id: string; file: string; message: string }

/** Cases whose logs are known to yield no signal yet, with the reason: listed in every report, not hidden. */
export type KnownGaps = Record<string, string>

const MODE = /^[a-z0-9]+(-[a-z0-9]+)*$/
const RULE = /^[a-z][a-z0-9_]*$/

/** Reads and checks one `case.yaml`; an error names the file and the field. */
export async function readCase(dir: string): Promise<CorpusCase | CaseError> {
  const id = path.basename(dir)
  const file = path.join(dir, 'case.yaml')
  let doc: unknown
  try {
    doc = YAML.parse(await readFile(file, 'utf8'))
  } catch (err) {
    return { id, file, message: (err as Error).message }
  }
  const fail = (message: string): CaseError => ({ id, file, message })
  if (typeof doc !== 'object' || doc === null) return fail('expected a mapping with mode, broker and expect (or healthy: true)')
  const d = doc as Record<string, unknown>
  if (typeof d.mode !== 'string' || !MODE.test(d.mode)) return fail('mode: expected a kebab-case failure mode')
  if (d.broker === undefined || d.broker === null || String(d.broker) === '') return fail('broker: expected the broker id the diagnosis is scored for')
  const healthy = d.healthy === true
  if (d.healthy !== undefined && typeof d.healthy !== 'boolean') return fail('healthy: expected true or false')
  if (healthy) {
    if (d.expect !== undefined) return fail('expect: a healthy case expects no rule; remove expect or healthy')
    return { id, dir, mode: d.mode, broker: String(d.broker), proposed: false, healthy: true }
  }
  if (typeof d.expect !== 'string' || !RULE.test(d.expect)) return fail('expect: expected a snake_case rule name')
  if (d.proposed !== undefined && typeof d.proposed !== 'boolean') return fail('proposed: expected true or false')
  return { id, dir, mode: d.mode, broker: String(d.broker), expect: d.expect, proposed: d.proposed === true, healthy: false }
}

/** Every case directory under `root` (those holding a case.yaml), in name order. */
export async function listCases(root: string): Promise<{ cases: CorpusCase[]; errors: CaseError[] }> {
  const cases: CorpusCase[] = []
  const errors: CaseError[] = []
  const entries = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort()
  for (const name of entries) {
    const dir = path.join(root, name)
    const hasCase = await stat(path.join(dir, 'case.yaml')).then(() => true, () => false)
    if (!hasCase) continue
    const c = await readCase(dir)
    if ('message' in c) errors.push(c)
    else cases.push(c)
  }
  return { cases, errors }
}

/** Reads `known-gaps.yaml` (case id → reason) if the corpus has one; a malformed file is an error, not an empty list. */
export async function readKnownGaps(root: string): Promise<KnownGaps> {
  const file = path.join(root, 'known-gaps.yaml')
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return {}
  }
  let doc: unknown
  try {
    doc = YAML.parse(text)
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message.split('\n')[0]}`)
  }
  if (doc === null || doc === undefined) return {}
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${file}: expected a mapping of case id to reason`)
  const gaps: KnownGaps = {}
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof v !== 'string' || v.trim() === '') throw new Error(`${file}: ${k}: expected the reason as text`)
    gaps[k] = v
  }
  return gaps
}
