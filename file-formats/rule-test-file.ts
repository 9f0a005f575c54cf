import { z } from 'zod'
import { readQuantity } from '../dsl/quantity.js'
import { closedObject } from './shapes.js'

/**
 * The schema of a rule-test file (rules/tests/*.yaml): which rules it is about, and test cases that
 * replay an incident or inline series and assert what fires and what does not. `kafka-why test`,
 * `ci` and schemas/rule-test.schema.json come from this one definition; docs/rules.md describes it.
 */

/** A time in a test: absolute epoch ms, or a duration after the data's start (inline `start`, or the first signal). */
export type TimeSpec = { abs: number } | { rel: number }

/** The severities a rule may have, as tests name them. */
export const SEVERITIES = ['info', 'warning', 'critical'] as const

const scalarText = z.union([z.string(), z.number(), z.boolean()]).transform(String)

/** A duration literal of the rule language (`90s`, `1h`), or undefined. */
export function durationMs(v: string | number): number | undefined {
  const q = readQuantity(String(v))
  return 'message' in q || q.dimension !== 'duration' ? undefined : q.value
}

/** A test time: ISO date-time with an offset, epoch ms, or a duration after the start. */
export function readTime(v: unknown): TimeSpec | undefined {
  if (typeof v === 'number') return { abs: v }
  if (typeof v !== 'string') return undefined
  if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(v)) {
    const ms = Date.parse(v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
    return Number.isFinite(ms) ? { abs: ms } : undefined
  }
  const d = durationMs(v)
  return d === undefined ? undefined : { rel: d }
}

const positiveDuration = (key: string, example: string) =>
  z.union([z.string(), z.number()], { error: `\`${key}:\` is a positive duration such as ${example}` }).transform((v, ctx) => {
    const ms = durationMs(v)
    if (ms === undefined || ms <= 0) {
      ctx.issues.push({ code: 'custom', input: v, message: `\`${key}:\` is a positive duration such as ${example}` })
      return z.NEVER
    }
    return ms
  })

const time = (message: string) =>
  z.union([z.string(), z.number()], { error: message }).transform((v, ctx) => {
    const t = readTime(v)
    if (!t) {
      ctx.issues.push({ code: 'custom', input: v, message })
      return z.NEVER
    }
    return t
  })

const caseTime = (key: string) => time(`\`${key}:\` is a date-time with an offset, epoch milliseconds, or a duration after the data's start (10m)`)

const pathList = (message: string) =>
  z.union([scalarText.transform((p) => [p]), z.array(scalarText)], { error: message })

const severity = z.enum(SEVERITIES, { error: '`severity:` is info, warning or critical' })
const labels = z
  .record(z.string(), scalarText, { error: (iss) => (iss.code === 'invalid_type' && iss.expected === 'record' ? '`labels:` is a mapping like { group: audit-ingest }' : 'label values are strings') })
  .describe('group labels of the cause, or labels of its evidence')

const expectation = closedObject(
  {
    rule: z.union([z.string(), z.number()], { error: 'an expectation needs `rule:`' }).transform(String).describe('rule name'),
    broker: scalarText.optional().describe("broker whose diagnosis must contain it; omitted = any broker"),
    rank: z.number({ error: '`rank:` is 1 for the top cause, 2 for the next, …' }).int({ error: '`rank:` is 1 for the top cause, 2 for the next, …' }).min(1, { error: '`rank:` is 1 for the top cause, 2 for the next, …' }).optional(),
    severity: severity.optional(),
    labels: labels.optional(),
    between: z
      .tuple([time('`between:` is [from, to]: two date-times or durations after the start'), time('`between:` is [from, to]: two date-times or durations after the start')], {
        error: '`between:` is [from, to]: two date-times or durations after the start',
      })
      .optional()
      .describe("the cause's match time must fall in [from, to]"),
    cause: scalarText.optional().describe('substring (or /regex/) the rendered cause text must contain'),
  },
  '"this rule fires", with whatever the author wants pinned down',
  'an expectation is a mapping like { rule: stw_pause_session_expiry, broker: "1", rank: 1 }',
)

const absence = closedObject(
  {
    rule: scalarText.optional(),
    broker: scalarText.optional(),
    severity: severity.optional(),
    labels: labels.optional(),
  },
  '"this must not fire": a rule, or any cause at or above a severity',
  'an absence is a mapping like { rule: zk_session_expiry_no_pause } or { severity: critical }',
).refine((a) => a.rule !== undefined || a.severity !== undefined, { error: 'an absence needs `rule:` or `severity:`' })

const testCase = closedObject(
  {
    name: z.union([z.string(), z.number()], { error: 'a test case needs a `name:`' }).transform(String).describe('what the case shows'),
    incident: pathList('`incident:` is a path (an incident directory, a .jsonl or a log file) or a list of them')
      .optional()
      .describe('incident directories, JSONL files or log files, relative to this file'),
    series: z
      .array(z.string({ error: 'a series is one line of text (quote it)' }), { error: '`series:` is a list of lines like `safepoint.sync{broker="1"}: 0x10 3300`' })
      .optional()
      .describe('inline series, e.g. safepoint.sync{broker="1"}: 0x10 3300'),
    cluster: scalarText.optional(),
    start: z
      .union([z.string(), z.number()])
      .transform((v, ctx) => {
        const t = readTime(v)
        if (!t || !('abs' in t)) {
          ctx.issues.push({ code: 'custom', input: v, message: '`start:` is a date-time with an offset (2024-01-01T00:00:00Z) or epoch milliseconds' })
          return z.NEVER
        }
        return t.abs
      })
      .optional()
      .describe('time of the first series sample'),
    interval: positiveDuration('interval', '1s or 1m').optional().describe('time between series samples (default 1m)'),
    at: caseTime('at').optional().describe('evaluate at this time'),
    from: caseTime('from').optional(),
    to: caseTime('to').optional(),
    window: positiveDuration('window', '1h').optional().describe('evaluation window'),
    expect: z.array(expectation, { error: '`expect:` is a list of { rule, broker, rank, severity, labels, between, cause }' }).optional(),
    absent: z.array(absence, { error: '`absent:` is a list of { rule } or { severity }' }).optional(),
  },
  'one test case: its data, its window and its assertions',
  'a test case is a mapping with name, incident or series, and expect/absent',
).superRefine((c, ctx) => {
  if (!c.incident?.length && !c.series?.length) ctx.issues.push({ code: 'custom', input: c, message: 'a test case needs `incident:` or `series:` (or both)' })
  if (!c.expect?.length && !c.absent?.length) ctx.issues.push({ code: 'custom', input: c, message: 'a test case asserts nothing: add `expect:` or `absent:`' })
})

/** The whole of a rule-test file. */
export const ruleTestFileSchema = closedObject(
  {
    rules: pathList('`rules:` is a path or a list of paths').optional().describe('rule files or directories this file is about, relative to it; default the run\'s rules'),
    tests: z.array(testCase, { error: (iss) => (iss.input === undefined ? 'no `tests:` list' : '`tests:` is a list of test cases') }),
  },
  'kafka-why rule tests',
  'a rule-test file is a mapping with a `tests:` list',
)

/** A rule-test file as validated: paths as written, times and durations read. */
export type RuleTestFileData = z.output<typeof ruleTestFileSchema>
