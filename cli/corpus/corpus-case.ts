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
  /** What kinds of input the case's lines are (a case may be several), for per-kind figures. */
  kinds: InputKind[]
  /** True when `kinds` was not written in case.yaml and was inferred from incident.yaml (older cases). */
  kindsInferred: boolean
  /** The verdict recorded when the case was first scored, before anything was changed for it. */
  firstSight?: FirstSight
  /** When a baseline (class-level) answer also counts as right: its failure class and the line it must quote. */
  baseline?: BaselineExpectation
}

/**
 * Input kinds, the unit of the per-kind figures. `broker`: a Kafka broker's or KRaft controller's own log (GC
 * included); `client`: a log written by a Kafka client library or a program built on one (producer, consumer,
 * admin, librdkafka and its wrappers, sarama, kafkajs, franz-go, kafka-python, Spring, Connect, Streams);
 * `zookeeper`: a ZooKeeper server's log; `pasted`: lines not in the shipped layout of the program that wrote
 * them — timestamps cut off, a custom log4j pattern, a collector or container prefix added in front.
 */
export const INPUT_KINDS = ['broker', 'client', 'zookeeper', 'pasted'] as const
export type InputKind = (typeof INPUT_KINDS)[number]

/**
 * The first-sight verdict: scored once by `kafka-why corpus --record-first-sight` when the case was added, before
 * any rule, matcher or layout was changed for it, and never rescored. `pending` until then.
 */
export type FirstSight = {
  verdict: 'right' | 'wrong' | 'pending'
  /** Short commit the verdict was measured at. */
  commit?: string
  /** UTC time of the measurement (ISO). */
  date?: string
  /** What the top answer was: a rule id, "(no cause)" or "no signals". */
  top?: string
  /** "clean", or a note that the working tree held uncommitted edits when the case was scored. */
  tree?: string
}

/** A baseline answer counts as right when its text names `class` and its evidence quotes a line containing `line`. */
export type BaselineExpectation = { class: string; line: string }

/** A case directory that could not be read: reported with the file and field, never skipped silently. */
export type CaseError = { id: string; file: string; message: string }

/** Cases whose logs are known to yield no signal yet, with the reason: listed in every report, not hidden. */
export type KnownGaps = Record<string, string>

const MODE = /^[a-z0-9]+(-[a-z0-9]+)*$/
const ZOOKEEPER_FILE = /(^|[/_-])(zookeeper|zk)[^/]*$/i
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
  let kinds: InputKind[]
  let kindsInferred = false
  if (d.kinds === undefined) {
    if (d.first_sight !== undefined) return fail('kinds: a case scored at first sight names its input kinds (broker, client, zookeeper, pasted)')
    kinds = await inferKinds(dir)
    kindsInferred = true
  } else {
    if (!Array.isArray(d.kinds) || d.kinds.length === 0 || !d.kinds.every((k) => (INPUT_KINDS as readonly unknown[]).includes(k))) {
      return fail(`kinds: expected a list of ${INPUT_KINDS.join(', ')}`)
    }
    kinds = [...new Set(d.kinds as InputKind[])]
  }
  const firstSight = readFirstSight(d)
  if (typeof firstSight === 'string') return fail(firstSight)
  const common = { id, dir, mode: d.mode, broker: String(d.broker), kinds, kindsInferred, ...(firstSight ? { firstSight } : {}) }
  if (healthy) {
    if (d.expect !== undefined) return fail('expect: a healthy case expects no rule; remove expect or healthy')
    return { ...common, proposed: false, healthy: true }
  }
  if (typeof d.expect !== 'string' || !RULE.test(d.expect)) return fail('expect: expected a snake_case rule name')
  if (d.proposed !== undefined && typeof d.proposed !== 'boolean') return fail('proposed: expected true or false')
  let baseline: BaselineExpectation | undefined
  if (d.baseline !== undefined) {
    const b = d.baseline as Record<string, unknown> | null
    if (typeof b !== 'object' || b === null || typeof b.class !== 'string' || typeof b.line !== 'string' || b.class.trim() === '' || b.line.trim() === '') {
      return fail('baseline: expected { class: <failure class>, line: <text the quoted line contains> }')
    }
    baseline = { class: b.class, line: b.line }
  }
  return { ...common, expect: d.expect, proposed: d.proposed === true, healthy: false, ...(baseline ? { baseline } : {}) }
}

/** `first_sight` and its `first_sight_*` companions, or an error message naming the field. */
function readFirstSight(d: Record<string, unknown>): FirstSight | undefined | string {
  if (d.first_sight === undefined) return undefined
  const verdict = d.first_sight
  if (verdict !== 'right' && verdict !== 'wrong' && verdict !== 'pending') return 'first_sight: expected right, wrong or pending'
  const fs: FirstSight = { verdict }
  for (const key of ['commit', 'date', 'top', 'tree'] as const) {
    const v = d[`first_sight_${key}`]
    if (v === undefined) continue
    if (typeof v !== 'string' || v.trim() === '') return `first_sight_${key}: expected text`
    fs[key] = v
  }
  if (verdict !== 'pending' && (!fs.commit || !fs.date || !fs.top)) return 'first_sight: a verdict carries first_sight_commit, first_sight_date and first_sight_top'
  return fs
}

/**
 * Kinds of an older case that does not name them, from its incident.yaml: a `format: client` source is a client
 * log, a file named for ZooKeeper is a ZooKeeper log, anything else is the broker's. None of those cases is pasted.
 */
async function inferKinds(dir: string): Promise<InputKind[]> {
  const kinds = new Set<InputKind>()
  try {
    const doc = YAML.parse(await readFile(path.join(dir, 'incident.yaml'), 'utf8')) as { sources?: { path?: unknown; format?: unknown }[] } | null
    for (const s of doc?.sources ?? []) {
      if (s.format === 'client') kinds.add('client')
      else if (typeof s.path === 'string' && ZOOKEEPER_FILE.test(s.path)) kinds.add('zookeeper')
      else kinds.add('broker')
    }
  } catch {
    // An unreadable incident.yaml is reported by the replay itself; the case still counts as a broker log here.
  }
  return kinds.size ? [...kinds] : ['broker']
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
