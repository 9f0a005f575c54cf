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

/** Characters of a root cause (class and message head) that key a template's classification. */
const ROOT_KEY_CHARS = 120

/** Characters of a quoted reason or line kept in the cause text. */
const QUOTE_MAX = 240

/**
 * The failure lines a baseline is made from: FATAL and ERROR records, the same ones "Unexplained errors"
 * lists (and, below them, WARN statements that report a failure). A WARN with an exception is left out: during a restart or a reassignment brokers log dozens of
 * those (a peer's connection refused) and none is a cause by itself.
 */
const LEVEL_OF: Record<string, { rank: number; name: string }> = {
  'log.fatal': { rank: 3, name: 'FATAL' },
  'log.error': { rank: 2, name: 'ERROR' },
  'log.warn_failure': { rank: 1, name: 'WARN' },
}

/**
 * The generic signals a baseline reads: the failure lines above, and WARN lines whose statement reports a
 * failure in words (ZooKeeper's server logs its failures at WARN); those rank below every ERROR and make an
 * info baseline, since a WARN alone is context until something fails.
 */
const BASELINE_SIGNALS = [...UNEXPLAINED_SIGNALS, 'log.warn_failure'] as const

/** One failure line that may become a baseline: its class, its level's rank, whether it states its cause. */
type Candidate = { signal: Signal; failureClass: FailureClass; level: number; states: boolean }

/** The failure lines of one class: the telling one, the latest others, counts and span. */
type Group = { best: Candidate; latest: Candidate[]; count: number; templates: Set<string>; firstAt: number; lastAt: number }

/**
 * The baseline causes of a window: every generic failure signal (`log.fatal`, `log.error`) that
 * `covered` (the matched rules' signal names) does not explain and whose template is not benign, grouped
 * by failure class; per class the telling line is the one that states its cause, then the most severe,
 * then the earliest (the first failure is nearer the origin than the ones it sets off). Classes are
 * ranked by their telling line the same way; at most MAX_BASELINES. Linear in the signals: a template
 * repeated ten thousand times is classified once.
 */
export function baselineCauses(data: EvalData, window: EvalWindow, covered: ReadonlySet<string>): Cause[] {
  const groups = new Map<FailureClass, Group>()
  const seen = new Map<string, Omit<Candidate, 'signal'> | null>()
  for (const name of BASELINE_SIGNALS) {
    for (const s of data.series.get(name) ?? []) {
      if (s.at < window.from || s.at > window.to || isExplained(s, covered)) continue
      const c = candidateOf(s, seen)
      if (!c) continue
      const g = groups.get(c.failureClass)
      if (!g) {
        groups.set(c.failureClass, { best: c, latest: [c], count: 1, templates: new Set([templateOf(s)]), firstAt: s.at, lastAt: s.at })
        continue
      }
      g.count++
      g.templates.add(templateOf(s))
      if (s.at < g.firstAt) g.firstAt = s.at
      if (s.at > g.lastAt) g.lastAt = s.at
      if (moreTelling(c, g.best) < 0) g.best = c
      keepLatest(g.latest, c)
    }
  }
  const ranked = [...groups.values()].sort((a, b) => moreTelling(a.best, b.best))
  return ranked.slice(0, MAX_BASELINES).map((g) => toCause(g, window))
}

function templateOf(s: Signal): string {
  return s.labels?.template ?? s.text ?? ''
}

/** Keeps the BASELINE_EVIDENCE latest candidates of a class, newest first. */
function keepLatest(latest: Candidate[], c: Candidate): void {
  if (latest.length >= BASELINE_EVIDENCE && c.signal.at <= latest[latest.length - 1].signal.at) return
  let i = latest.length
  while (i > 0 && latest[i - 1].signal.at < c.signal.at) i--
  latest.splice(i, 0, c)
  if (latest.length > BASELINE_EVIDENCE) latest.pop()
}

/** Orders candidates most telling first: states its cause, severity, earliest, then template id for stability. */
function moreTelling(a: Candidate, b: Candidate): number {
  if (a.states !== b.states) return a.states ? -1 : 1
  if (a.level !== b.level) return b.level - a.level
  if (a.signal.at !== b.signal.at) return a.signal.at - b.signal.at
  const ta = templateOf(a.signal)
  const tb = templateOf(b.signal)
  return ta < tb ? -1 : ta > tb ? 1 : 0
}

/**
 * What the line says: its first line's message, the throwable it carries (the root cause label, else the
 * exception line the evidence text kept, "java.lang.IllegalArgumentException: requirement failed: …"),
 * and its own reason when it states one.
 */
function readLine(s: Signal): { message: string; thrown?: string; stated?: string } {
  const lines = (s.text ?? '').split('\n')
  const message = messageOf(lines[0] ?? '')
  const thrown = s.labels?.root_cause ?? lines.slice(1).find((l) => THROWABLE_LINE.test(l))?.trim()
  const stated = statedCause({ message, exception: s.labels?.exception, rootCause: thrown, lines: lines.slice(1) })
  return { message, ...(thrown ? { thrown } : {}), ...(stated ? { stated } : {}) }
}

/** A line that starts with a throwable and its message. */
const THROWABLE_LINE = /^\s*(?:Caused by: )?[\w$.]+(?:Exception|Error): \S/

function candidateOf(s: Signal, seen: Map<string, Omit<Candidate, 'signal'> | null>): Candidate | undefined {
  const level = LEVEL_OF[s.name]
  if (!level) return undefined
  const labels = s.labels ?? {}
  // A catalogue or mined template id stands for its wording, with the record's logger and exceptions
  // (the root cause's message without its numbers: an errno text tells, an offset does not).
  const root = labels.root_cause ? labels.root_cause.replace(/\d+/g, '#').slice(0, ROOT_KEY_CHARS) : ''
  const key = labels.template ? `${s.name}\u0000${labels.template}\u0000${labels.logger ?? ''}\u0000${labels.exception ?? ''}\u0000${root}` : undefined
  const known = key !== undefined ? seen.get(key) : undefined
  if (known === null) return undefined
  if (known) return { ...known, signal: s }
  const { message, thrown, stated } = readLine(s)
  const k = classifyFailure({
    id: labels.template,
    level: level.name,
    logger: labels.logger,
    message,
    exception: labels.exception,
    rootCause: thrown,
    signals: labels.signals ? labels.signals.split(',') : undefined,
  })
  const made = k && k.benign === undefined ? { failureClass: k.failureClass, level: level.rank, states: stated !== undefined } : null
  if (key !== undefined) seen.set(key, made)
  return made ? { ...made, signal: s } : undefined
}

/**
 * The message of a raw log line: what follows its level word, without a ZooKeeper-style
 * `[thread:Class@line] - ` block, Ruby Logger's `-- progname: ` or log4j's trailing `(logger)`. A line
 * without a level word (a JVM banner, an uncaught exception) is its own message.
 */
export function messageOf(line: string): string {
  const m = /(?:^|[\s\]|])(?:FATAL|ERROR|SEVERE|WARN|WARNING)\b:?\s+(.*)$/.exec(line)
  let msg = (m ? m[1] : line).trim()
  msg = msg.replace(/^\[[^\]]*\]\s+-\s+/, '').replace(/^-- [^:\s]{0,100}: /, '').replace(/^-\s+/, '').replace(/^\[[\w.$]+\]\s+\([^)]*\)\s+/, '')
  // The trailing logger, with the source line Kafka Connect's layout adds ("(o.a.k.connect.runtime.WorkerTask:212)").
  msg = msg.replace(/\s+\((?:[\w.$]+|(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*:\d+)\)$/, '')
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

function toCause(g: Group, window: EvalWindow): Cause {
  const best = g.best
  const info = FAILURE_CLASSES[best.failureClass]
  const { message, thrown, stated } = readLine(best.signal)
  const others = g.latest.filter((c) => c !== best).slice(0, BASELINE_EVIDENCE - 1)
  const evidence: Evidence[] = [best, ...others].map((c) => toEvidence(c.signal)).sort((a, b) => a.at - b.at)
  const more = g.count > 1 ? ` (${g.count} such lines, ${g.templates.size} distinct)` : ''
  const cause = stated
    ? `${capitalise(info.title)}: the log says why — ${quote(stated)}${more}. ${capitalise(info.meaning)}.`
    : `${capitalise(info.title)}: no rule matched; the most telling line — ${quote(message)}${thrown ? ` with ${quote(thrown)}` : ''}${more}. ${capitalise(info.meaning)}.`
  const base = 100 + (stated ? 400 : 0) + best.level * 100
  const corroboration = Math.min(g.templates.size, 9) * 5
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
    firstAt: g.firstAt,
    lastAt: g.lastAt,
    matchedAt: best.signal.at,
    evidence,
    corroboration: g.templates.size,
    score,
    scoreParts: { severity: base, corroboration, recency, explains: 0 },
    explainsRules: [],
    matches: g.count,
    confidence: 'baseline',
    baseline: { failureClass: best.failureClass, classTitle: info.title, template: best.signal.labels?.template ?? 'unknown', lines: g.count, ...(stated ? { statedCause: stated } : {}) },
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
