import type { Severity } from '../dsl/ast.js'

/**
 * The platform-neutral answer to "why is broker N sick". The engine builds it; only bot/render
 * (Block Kit, console) and the CLI's text renderer know how to show it.
 */

/** One point of an evidence timeline: the actual log line or metric sample a cause rests on. */
export type Evidence = {
  at: number
  signal: string
  broker?: string
  value?: number
  /** The value formatted with its unit ("3.3s", "4GiB"). */
  valueText?: string
  labels?: Record<string, string>
  /** Raw log line, when the signal came from a log. */
  text?: string
  /** adapter:file:line or scrape target. */
  source: string
  /** True when this evidence is a consequence the cause `explains`, not part of its condition. */
  consequence?: boolean
}

/** One ranked explanation of what is wrong, with the evidence it rests on and what to do. */
export type Cause = {
  ruleId: string
  ruleName?: string
  severity: Severity
  /** `cause` text with placeholders filled in. */
  cause: string
  advise?: string
  runbook?: string
  /** Bot commands offered as buttons, placeholders filled in. */
  run: string[]
  /** Group labels of the match (`by group` → { group: "x" }). */
  labels: Record<string, string>
  firstAt: number
  lastAt: number
  /** When the condition became true (the later event of a temporal match). */
  matchedAt: number
  evidence: Evidence[]
  /** Independent signal names that corroborate this cause. */
  corroboration: number
  /** Rank score, higher first; explained in `why` so ranking is never a mystery. */
  score: number
  /** Rules whose matches this cause explains (shown as consequences, not rivals). */
  explainsRules: string[]
  /** Causes (rule ids) that explain this one: it is a consequence, kept for completeness. */
  explainedBy?: string[]
  /** How the score was made, so `why` can show it. */
  scoreParts?: ScoreParts
  /** How many times the rule matched for these labels in the window (evidence shows the latest). */
  matches?: number
  /** Consequence evidence left out of the timeline to keep it readable. */
  consequencesOmitted?: number
  /** 'baseline' when no rule made this cause: a failure line explained at class level (engine/baseline.ts). */
  confidence?: 'baseline'
  /** What a baseline rests on: the failure class, the telling line's template and its own stated reason. */
  baseline?: BaselineBasis
}

/** The basis of a baseline cause, so renderers can say it is one and what it quotes. */
export type BaselineBasis = {
  failureClass: string
  classTitle: string
  /** Template id of the telling line. */
  template: string
  /** Failure lines of the class in the window. */
  lines: number
  /** The line's own reason, quoted, when it states one. */
  statedCause?: string
}

/** The parts of a Cause's score: severity dominates, then corroboration, then recency. */
export type ScoreParts = { severity: number; corroboration: number; recency: number; explains: number }

/** A rule that almost held: part of its condition matched, so the user learns what was missing. */
export type NearMiss = {
  ruleId: string
  severity: Severity
  /** "a ZooKeeper session timeout at 01:28:02, but no safepoint.sync > 2s within 5s" */
  message: string
  evidence: Evidence[]
  /** The signal whose absence (or shortfall) kept the rule from matching, when one is to blame. */
  missing?: string
}

/**
 * One error template of the window that no matched rule explains: how often, when, one real line. A
 * row stands for every record of one wording (catalogue template, or a mined one with `<*>` where
 * records differ), so ten thousand repetitions are one row.
 */
export type UnexplainedError = {
  severity: 'fatal' | 'error'
  /** Wording catalogue id, or a mined template id (`m-…`). */
  template: string
  /** The masked wording of a mined template (`… to <*> in dir <path>`); absent for catalogue ids. */
  pattern?: string
  /** Template ids merged into this row by the miner, when more than one. */
  templates?: string[]
  count: number
  firstAt: number
  lastAt: number
  /** The latest record's evidence text: header line plus its telling `Caused by:`. */
  example: string
  /** adapter:file:line of the example. */
  source: string
  broker?: string
  logger?: string
  /** First exception class of the record's stack, and the last `Caused by:` (class: message head). */
  exception?: string
  rootCause?: string
  /** True when the template was not seen in the 24 h before the window. */
  novel: boolean
}

/** Signals of the window whose log carried no timestamps: their times are stand-ins, in file order. */
export type TimesUnknown = { signals: number; files: string[] }

/**
 * Input the adapters could not read: lines by reason and files skipped whole. Carried by the answer so it
 * is never called healthy while part of its input went unread (see describeUnread).
 */
export type UnreadInput = {
  /** Lines not read, or read only in part, of `ofLines` lines read from files. */
  lines: number
  ofLines: number
  /** Files with at least one such line. */
  files: number
  /** Inputs skipped whole (binary content, a read error, past a limit), with why. */
  skipped: { file: string; reason: string }[]
  /** Unread lines by reason, in words ("no layout recognised"), most first. */
  reasons: { reason: string; lines: number }[]
}

/** What is abnormal when no rule matched: counts and extremes of notable signals. */
export type Abnormality = { signal: string; summary: string; count: number; worst?: string }

/** The whole answer for one broker and window, platform-neutral. */
export type Diagnosis = {
  cluster: string
  broker: string
  from: number
  to: number
  /** The evaluation's `now`, supplied by the caller. */
  at: number
  causes: Cause[]
  nearMisses: NearMiss[]
  abnormal: Abnormality[]
  /** How many signals the evaluation looked at, so "nothing found" can be told from "no data". */
  signalsSeen: number
  /** How many rules were evaluated. */
  rulesEvaluated?: number
  /** The span of data seen per source (log file, JSONL file, adapter) inside the window, busiest first. */
  sources?: import('./data-span.js').DataSpan[]
  /** Error templates no matched rule explains, ranked (severity, novelty, count), capped. */
  unexplained?: UnexplainedError[]
  /** Unexplained templates left out past the cap. */
  unexplainedOmitted?: number
  /** Set when some signals came from logs without timestamps: the timeline is file order, not time. */
  timesUnknown?: TimesUnknown
  /** Set by a caller that read the input (replayed or uploaded logs) when part of it went unread. */
  unread?: UnreadInput
}
