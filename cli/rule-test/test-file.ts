import { dirname, resolve } from 'node:path'
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml'
import type { Severity } from '../../dsl/ast.js'
import { readQuantity } from '../../dsl/quantity.js'

/**
 * The rule-test file format (YAML), loaded into plain data with a line number on every test and
 * assertion so a failure points at the line to fix. The format is documented in docs/rules.md's rules
 * section; `rules/tests/*.yaml` are the examples.
 */

/** A time in a test: absolute epoch ms, or a duration after the data's start (inline `start`, or the first signal). */
export type TimeSpec = { abs: number } | { rel: number }

/** "This rule fires", with whatever the author wants pinned down. */
export type FireExpectation = {
  rule: string
  /** Broker whose diagnosis must contain it; omitted = any broker. */
  broker?: string
  /** 1 = ranked first in that broker's diagnosis. */
  rank?: number
  severity?: Severity
  /** Group labels of the cause, or labels of its evidence. */
  labels?: Record<string, string>
  /** The cause's match time must fall in [from, to]. */
  between?: [TimeSpec, TimeSpec]
  /** Substring (or /regex/) the rendered cause text must contain. */
  cause?: string
  line: number
}

/** "This must not fire": a rule, or any cause at or above a severity (`severity: critical` on a control). */
export type AbsentExpectation = { rule?: string; broker?: string; severity?: Severity; labels?: Record<string, string>; line: number }

/** An inline series line and where it was written. */
export type SeriesSpec = { text: string; line: number }

/** One test case: its data (an incident and/or inline series), its window and its assertions. */
export type RuleTestCase = {
  name: string
  file: string
  line: number
  /** Incident directories, JSONL files or log files, resolved against the test file. */
  incident: string[]
  series: SeriesSpec[]
  cluster?: string
  start?: number
  intervalMs: number
  at?: TimeSpec
  from?: TimeSpec
  to?: TimeSpec
  windowMs?: number
  expect: FireExpectation[]
  absent: AbsentExpectation[]
}

/** A loaded test file. */
export type RuleTestFile = {
  file: string
  /** Rule files/dirs this file is about, resolved against it; undefined = the run's rules. */
  rules?: string[]
  tests: RuleTestCase[]
}

/** A problem in a test file: where, and what. */
export type TestFileError = { file: string; line: number; message: string }

const SEVERITIES: readonly Severity[] = ['info', 'warning', 'critical']
const CASE_KEYS = new Set(['name', 'incident', 'series', 'cluster', 'start', 'interval', 'at', 'from', 'to', 'window', 'expect', 'absent'])
const EXPECT_KEYS = new Set(['rule', 'broker', 'rank', 'severity', 'labels', 'between', 'cause'])
const ABSENT_KEYS = new Set(['rule', 'broker', 'severity', 'labels'])
const DEFAULT_INTERVAL_MS = 60_000

/** Parses one test file's text. Never throws: problems come back as errors with line numbers. */
export function parseTestFile(text: string, file: string): { file: RuleTestFile; errors: TestFileError[] } {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false })
  const errors: TestFileError[] = []
  const lineOf = (node: unknown): number => {
    const range = (node as Node | undefined)?.range
    return range ? lineCounter.linePos(range[0]).line : 1
  }
  const fail = (node: unknown, message: string) => errors.push({ file, line: lineOf(node), message })
  const out: RuleTestFile = { file, tests: [] }
  for (const e of doc.errors) errors.push({ file, line: e.linePos?.[0].line ?? 1, message: e.message.split('\n')[0] })
  if (doc.errors.length) return { file: out, errors }
  const root = doc.contents
  if (!isMap(root)) {
    fail(root, 'a rule-test file is a mapping with a `tests:` list')
    return { file: out, errors }
  }
  const base = dirname(file)
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : ''
    if (key === 'rules') {
      const list = stringList(pair.value)
      if (!list) fail(pair.value, '`rules:` is a path or a list of paths')
      else out.rules = list.map((p) => resolve(base, p))
    } else if (key === 'tests') {
      if (!isSeq(pair.value)) {
        fail(pair.value, '`tests:` is a list of test cases')
        continue
      }
      for (const item of pair.value.items) {
        const tc = readCase(item, file, base, lineOf, fail)
        if (tc) out.tests.push(tc)
      }
    } else fail(pair.key, `unknown key '${key}' (expected rules, tests)`)
  }
  if (!root.items.some((p) => isScalar(p.key) && p.key.value === 'tests')) fail(root, 'no `tests:` list')
  return { file: out, errors }
}

type Fail = (node: unknown, message: string) => void

function readCase(node: unknown, file: string, base: string, lineOf: (n: unknown) => number, fail: Fail): RuleTestCase | undefined {
  if (!isMap(node)) {
    fail(node, 'a test case is a mapping with name, incident or series, and expect/absent')
    return undefined
  }
  const get = (k: string) => (node as YAMLMap).get(k, true) as unknown
  for (const p of node.items) {
    const k = isScalar(p.key) ? String(p.key.value) : ''
    if (!CASE_KEYS.has(k)) fail(p.key, `unknown key '${k}' in a test case (expected ${[...CASE_KEYS].join(', ')})`)
  }
  const name = scalarString(get('name'))
  const tc: RuleTestCase = {
    name: name ?? `test at line ${lineOf(node)}`,
    file,
    line: lineOf(node),
    incident: [],
    series: [],
    intervalMs: DEFAULT_INTERVAL_MS,
    expect: [],
    absent: [],
  }
  if (!name) fail(node, 'a test case needs a `name:`')
  const incident = get('incident')
  if (incident !== undefined) {
    const list = stringList(incident)
    if (!list) fail(incident, '`incident:` is a path (an incident directory, a .jsonl or a log file) or a list of them')
    else tc.incident = list.map((p) => resolve(base, p))
  }
  const series = get('series')
  if (series !== undefined) {
    if (!isSeq(series)) fail(series, '`series:` is a list of lines like `safepoint.sync{broker="1"}: 0x10 3300`')
    else
      for (const s of series.items) {
        const text = scalarString(s)
        if (text === undefined) fail(s, 'a series is one line of text (quote it)')
        else tc.series.push({ text, line: lineOf(s) })
      }
  }
  if (tc.incident.length === 0 && tc.series.length === 0) fail(node, 'a test case needs `incident:` or `series:` (or both)')
  const cluster = get('cluster')
  if (cluster !== undefined) tc.cluster = scalarString(cluster)
  const start = get('start')
  if (start !== undefined) {
    const t = readTime(start)
    if (!t || !('abs' in t)) fail(start, '`start:` is a date-time with an offset (2024-01-01T00:00:00Z) or epoch milliseconds')
    else tc.start = t.abs
  }
  const interval = get('interval')
  if (interval !== undefined) {
    const ms = readDuration(interval)
    if (ms === undefined || ms <= 0) fail(interval, '`interval:` is a positive duration such as 1s or 1m')
    else tc.intervalMs = ms
  }
  for (const k of ['at', 'from', 'to'] as const) {
    const v = get(k)
    if (v === undefined) continue
    const t = readTime(v)
    if (!t) fail(v, `\`${k}:\` is a date-time with an offset, epoch milliseconds, or a duration after the data's start (10m)`)
    else tc[k] = t
  }
  const window = get('window')
  if (window !== undefined) {
    const ms = readDuration(window)
    if (ms === undefined || ms <= 0) fail(window, '`window:` is a positive duration such as 1h')
    else tc.windowMs = ms
  }
  const expect = get('expect')
  if (expect !== undefined) {
    if (!isSeq(expect)) fail(expect, '`expect:` is a list of { rule, broker, rank, severity, labels, between, cause }')
    else for (const e of expect.items) {
      const x = readExpectation(e, lineOf, fail)
      if (x) tc.expect.push(x)
    }
  }
  const absent = get('absent')
  if (absent !== undefined) {
    if (!isSeq(absent)) fail(absent, '`absent:` is a list of { rule } or { severity }')
    else for (const e of absent.items) {
      const x = readAbsent(e, lineOf, fail)
      if (x) tc.absent.push(x)
    }
  }
  if (tc.expect.length === 0 && tc.absent.length === 0) fail(node, 'a test case asserts nothing: add `expect:` or `absent:`')
  return tc
}

function readExpectation(node: unknown, lineOf: (n: unknown) => number, fail: Fail): FireExpectation | undefined {
  if (!isMap(node)) {
    fail(node, 'an expectation is a mapping like { rule: stw_pause_session_expiry, broker: "1", rank: 1 }')
    return undefined
  }
  unknownKeys(node, EXPECT_KEYS, 'an expectation', fail)
  const rule = scalarString(node.get('rule', true))
  if (!rule) {
    fail(node, 'an expectation needs `rule:`')
    return undefined
  }
  const x: FireExpectation = { rule, line: lineOf(node), ...readScope(node, fail) }
  const rank = node.get('rank', true)
  if (rank !== undefined) {
    const n = isScalar(rank) ? Number(rank.value) : NaN
    if (!Number.isInteger(n) || n < 1) fail(rank, '`rank:` is 1 for the top cause, 2 for the next, …')
    else x.rank = n
  }
  const between = node.get('between', true)
  if (between !== undefined) {
    const ends = isSeq(between) && between.items.length === 2 ? between.items.map(readTime) : undefined
    if (!ends || !ends[0] || !ends[1]) fail(between, '`between:` is [from, to]: two date-times or durations after the start')
    else x.between = [ends[0], ends[1]]
  }
  const cause = node.get('cause', true)
  if (cause !== undefined) x.cause = scalarString(cause)
  return x
}

function readAbsent(node: unknown, lineOf: (n: unknown) => number, fail: Fail): AbsentExpectation | undefined {
  if (!isMap(node)) {
    fail(node, 'an absence is a mapping like { rule: zk_session_expiry_no_pause } or { severity: critical }')
    return undefined
  }
  unknownKeys(node, ABSENT_KEYS, 'an absence', fail)
  const x: AbsentExpectation = { line: lineOf(node), ...readScope(node, fail) }
  const rule = node.get('rule', true)
  if (rule !== undefined) x.rule = scalarString(rule)
  if (!x.rule && !x.severity) {
    fail(node, 'an absence needs `rule:` or `severity:`')
    return undefined
  }
  return x
}

/** The fields an expectation and an absence both narrow by: broker, severity and labels. */
function readScope(node: YAMLMap, fail: Fail): { broker?: string; severity?: Severity; labels?: Record<string, string> } {
  const scope: { broker?: string; severity?: Severity; labels?: Record<string, string> } = {}
  const broker = node.get('broker', true)
  if (broker !== undefined) scope.broker = scalarString(broker)
  const severity = readSeverity(node.get('severity', true), fail)
  if (severity) scope.severity = severity
  const labels = readLabels(node.get('labels', true), fail)
  if (labels) scope.labels = labels
  return scope
}

function unknownKeys(node: YAMLMap, allowed: Set<string>, what: string, fail: Fail): void {
  for (const p of node.items) {
    const k = isScalar(p.key) ? String(p.key.value) : ''
    if (!allowed.has(k)) fail(p.key, `unknown key '${k}' in ${what} (expected ${[...allowed].join(', ')})`)
  }
}

function readSeverity(node: unknown, fail: Fail): Severity | undefined {
  if (node === undefined) return undefined
  const s = scalarString(node)
  if (!s || !SEVERITIES.includes(s as Severity)) {
    fail(node, '`severity:` is info, warning or critical')
    return undefined
  }
  return s as Severity
}

function readLabels(node: unknown, fail: Fail): Record<string, string> | undefined {
  if (node === undefined) return undefined
  if (!isMap(node)) {
    fail(node, '`labels:` is a mapping like { group: audit-ingest }')
    return undefined
  }
  const out: Record<string, string> = {}
  for (const p of node.items) {
    const k = isScalar(p.key) ? String(p.key.value) : ''
    const v = scalarString(p.value)
    if (!k || v === undefined) fail(p, 'label values are strings')
    else out[k] = v
  }
  return out
}

function scalarString(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined
  const v = node.value
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
}

function stringList(node: unknown): string[] | undefined {
  const one = scalarString(node)
  if (one !== undefined) return [one]
  if (!isSeq(node)) return undefined
  const out: string[] = []
  for (const i of node.items) {
    const s = scalarString(i)
    if (s === undefined) return undefined
    out.push(s)
  }
  return out
}

/** A duration literal of the rule language (`90s`, `1h`), or undefined. */
export function readDuration(node: unknown): number | undefined {
  const s = scalarString(node)
  if (s === undefined) return undefined
  const q = readQuantity(s)
  return 'message' in q || q.dimension !== 'duration' ? undefined : q.value
}

/** A test time: ISO date-time with an offset, epoch ms, or a duration after the start. */
export function readTime(node: unknown): TimeSpec | undefined {
  if (isScalar(node) && typeof node.value === 'number') return { abs: node.value }
  const s = scalarString(node)
  if (s === undefined) return undefined
  if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(s)) {
    const ms = Date.parse(s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
    return Number.isFinite(ms) ? { abs: ms } : undefined
  }
  const d = readDuration(node)
  return d === undefined ? undefined : { rel: d }
}
