import type { Severity } from '../dsl/ast.js'
import type { Signal } from '../signals/signal.js'
import type { Cause, Evidence } from './diagnosis.js'
import { toEvidence } from './evidence.js'
import { classifyFailure, FAILURE_CLASSES, statedCause, type FailureClass } from './failure-class.js'
import type { EvalData, EvalWindow } from './match.js'
import { isExplained, UNEXPLAINED_SIGNALS } from './unexplained.js'

/**
 * The baseline causes: when the log shows failures no matched rule explains, the most telling failure
 * line of each failure class becomes a cause, explained at the level of its class (what that part of
 * Kafka failing means, what to check next) and quoting the line's own reason when it states one
 * ("… because …", "Caused by: java.io.IOException: No space left on device"). Baselines rank below
 * every rule — a rule's score starts at its severity weight, 1000 for info, and a baseline's never
 * reaches 1000 — so they lead the answer only when no rule matched, and a rule always outranks them.
 */

/** Highest score a baseline can have: below the lowest score of any rule (info severity, weight 1000). */
export const BASELINE_MAX_SCORE = 999

/** Baseline causes shown at most, one per failure class. */
export const MAX_BASELINES = 3

/** Evidence lines a baseline keeps: the telling line and the latest others of its class. */
const BASELINE_EVIDENCE = 6

/** Prefix of a baseline's rule id: `baseline.storage`. */
export const BASELINE_RULE_PREFIX = 'baseline.'

/** Characters of a quoted reason or line kept in the cause text. */
const QUOTE_MAX = 240

/**
 * The failure lines a baseline is made from: FATAL and ERROR records, the same ones "Unexplained errors"
 * lists. A WARN with an exception is left out: during a restart or a reassignment brokers log dozens of
 * those (a peer's connection refused) and none is a cause by itself.
 */
const LEVEL_OF: Record<string, { rank: number; name: string }> = {
  'log.fatal': { rank: 3, name: 'FATAL' },
  'log.error': { rank: 2, name: 'ERROR' },
}

type Candidate = { signal: Signal; failureClass: FailureClass; message: string; stated?: string; level: number }

/**
 * The baseline causes of a window: every generic failure signal (`log.fatal`, `log.error`) that `covered` (the matched rules' signal names) does not explain and whose
 * template is not benign, grouped by failure class; per class the telling line is the one that states
 * its cause, then the most severe, then the earliest (the first failure is nearer the origin than the
 * ones it sets off). Classes are ranked by their telling line the same way; at most MAX_BASELINES.
 */
export function baselineCauses(data: EvalData, window: EvalWindow, covered: ReadonlySet<string>): Cause[] {
  const byClass = new Map<FailureClass, Candidate[]>()
  for (const name of UNEXPLAINED_SIGNALS) {
    for (const s of data.series.get(name) ?? []) {
      if (s.at < window.from || s.at > window.to || isExplained(s, covered)) continue
      const c = candidateOf(s)
      if (!c) continue
      const list = byClass.get(c.failureClass)
      if (list) list.push(c)
      else byClass.set(c.failureClass, [c])
    }
  }
  const groups = [...byClass.values()].map((list) => ({ list, best: [...list].sort(moreTelling)[0] }))
  groups.sort((a, b) => moreTelling(a.best, b.best))
  return groups.slice(0, MAX_BASELINES).map((g) => toCause(g.best, g.list, window))
}

/** True when a cause is a baseline rather than a rule's match. */
export function isBaseline(c: Pick<Cause, 'ruleId'>): boolean {
  return c.ruleId.startsWith(BASELINE_RULE_PREFIX)
}

/** Orders candidates most telling first: states its cause, severity, earliest, then template id for stability. */
function moreTelling(a: Candidate, b: Candidate): number {
  return Number(b.stated !== undefined) - Number(a.stated !== undefined) || b.level - a.level || a.signal.at - b.signal.at || (a.signal.labels?.template ?? '').localeCompare(b.signal.labels?.template ?? '')
}

function candidateOf(s: Signal): Candidate | undefined {
  const level = LEVEL_OF[s.name]
  if (!level) return undefined
  const lines = (s.text ?? '').split('\n')
  const message = messageOf(lines[0] ?? '')
  const labels = s.labels ?? {}
  const input = {
    id: labels.template,
    level: level.name,
    logger: labels.logger,
    message,
    exception: labels.exception,
    rootCause: labels.root_cause,
    signals: labels.signals ? labels.signals.split(',') : undefined,
  }
  const k = classifyFailure(input)
  if (!k || k.benign !== undefined) return undefined
  const stated = statedCause({ message, exception: labels.exception, rootCause: labels.root_cause, lines: lines.slice(1) })
  return { signal: s, failureClass: k.failureClass, message, level: level.rank, ...(stated ? { stated } : {}) }
}

/**
 * The message of a raw log line: what follows its level word, without a ZooKeeper-style
 * `[thread:Class@line] - ` block or log4j's trailing `(logger)`. A line without a level word (a JVM
 * banner, an uncaught exception) is its own message.
 */
export function messageOf(line: string): string {
  const m = /(?:^|[\s\]|])(?:FATAL|ERROR|SEVERE|WARN|WARNING)\b:?\s+(.*)$/.exec(line)
  let msg = (m ? m[1] : line).trim()
  msg = msg.replace(/^\[[^\]]*\]\s+-\s+/, '').replace(/^-\s+/, '')
  msg = msg.replace(/\s+\([\w.$]+\)$/, '')
  return msg
}

function quote(text: string): string {
  const t = text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text
  return `"${t}"`
}

/** Severity of a baseline: what the line's level says, except that client-request failures are context. */
function severityOf(best: Candidate): Severity {
  if (best.level >= 3) return 'critical'
  if (best.level === 2 && best.failureClass !== 'client_request') return 'warning'
  return 'info'
}

function toCause(best: Candidate, list: Candidate[], window: EvalWindow): Cause {
  const info = FAILURE_CLASSES[best.failureClass]
  const templates = new Set(list.map((c) => c.signal.labels?.template ?? c.message))
  const others = list.filter((c) => c !== best).sort((a, b) => b.signal.at - a.signal.at).slice(0, BASELINE_EVIDENCE - 1)
  const evidence: Evidence[] = [best, ...others].map((c) => toEvidence(c.signal)).sort((a, b) => a.at - b.at)
  let firstAt = Infinity
  let lastAt = -Infinity
  for (const c of list) {
    if (c.signal.at < firstAt) firstAt = c.signal.at
    if (c.signal.at > lastAt) lastAt = c.signal.at
  }
  const count = list.length
  const more = count > 1 ? ` (${count} such lines, ${templates.size} distinct)` : ''
  const cause = best.stated
    ? `${capitalise(info.title)}: the log says why — ${quote(best.stated)}${more}. ${capitalise(info.meaning)}.`
    : `${capitalise(info.title)}: no rule matched; the most telling line — ${quote(best.message)}${more}. ${capitalise(info.meaning)}.`
  const base = 100 + (best.stated ? 400 : 0) + best.level * 100
  const corroboration = Math.min(templates.size, 9) * 5
  const span = Math.max(1, window.to - window.from)
  const recency = Math.round(9 * Math.min(1, Math.max(0, (best.signal.at - window.from) / span)) * 10) / 10
  const score = Math.min(BASELINE_MAX_SCORE, base + corroboration + recency)
  const labels: Record<string, string> = { failure_class: best.failureClass }
  for (const k of ['template', 'topic', 'partition', 'group', 'node', 'path'] as const) {
    const v = best.signal.labels?.[k]
    if (v !== undefined) labels[k] = v
  }
  return {
    ruleId: `${BASELINE_RULE_PREFIX}${best.failureClass}`,
    ruleName: `baseline: ${info.title}`,
    severity: severityOf(best),
    cause,
    advise: `Next: ${info.next}.`,
    run: [],
    labels,
    firstAt,
    lastAt,
    matchedAt: best.signal.at,
    evidence,
    corroboration: templates.size,
    score,
    scoreParts: { severity: base, corroboration, recency, explains: 0 },
    explainsRules: [],
    matches: count,
    confidence: 'baseline',
    baseline: { failureClass: best.failureClass, classTitle: info.title, template: best.signal.labels?.template ?? 'unknown', lines: count, ...(best.stated ? { statedCause: best.stated } : {}) },
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
