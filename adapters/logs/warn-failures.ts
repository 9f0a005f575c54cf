import { classifyFailure } from '../../engine/failure-class.js'
import { wordingEntries, type WordingEntry } from './wording/lookup.js'

/**
 * WARN statements that report a failure in words, without an exception: ZooKeeper's server writes its
 * failures at WARN ("Too many connections from {} - max is {}", "fsync-ing the write ahead log in {} took
 * {}ms …", "Exception causing close of session 0x{}: {}"), and so do parts of Kafka. Such a line is no
 * `log.error`, but it is no routine WARN either: the wording tables say which statement wrote it, the
 * failure classifier says it names a failure (a class, not benign), its words say something failed, and no
 * specific signal already stands for it. Those statements make `log.warn_failure` records, which the baseline
 * causes read below every ERROR.
 */

/** Words of a statement that reports a failure (a WARN that only informs has none of them). */
const FAILURE_WORDS =
  /fail|error|exception|\berr\b|unable|cannot|can't|could not|couldn't|timeout|timed out|refused|dead|invalid|abort|lost|drop|expired|reject|denied|unknown|unexpected|mismatch|exceed|too (?:large|many|big)|missing|broken|corrupt|crash|fatal|giving up|disconnect|closed by|took \{\}ms|reset/i

/** Literals shorter than this would slow the prefilter's skip-ahead scan (see generic.ts). */
const MIN_LITERAL = 10

type Known = { ids: ReadonlySet<string>; literals: readonly string[] }
let known: Known | undefined

/** True when a wording-table statement is a WARN that reports a failure, as above. */
export function reportsFailure(e: WordingEntry): boolean {
  // A statement the parser already turns into a specific signal (the table's signal column) reaches the
  // rules that way.
  if (e.level !== 'WARN' || e.signal !== undefined) return false
  const template = e.template.split('\n')[0]
  if (!FAILURE_WORDS.test(template)) return false
  const c = classifyFailure({ id: e.id, level: e.level, logger: e.logger, message: template })
  return c !== undefined && c.benign === undefined
}

function load(): Known {
  if (known) return known
  const ids = new Set<string>()
  const literals = new Set<string>()
  for (const e of wordingEntries()) {
    if (!reportsFailure(e)) continue
    ids.add(e.id)
    // The prefilter finds the ZooKeeper server's and client's statements by their longest literal; a Kafka
    // WARN reaches the record reader through the matchers' own literals.
    if (!e.logger.startsWith('org.apache.zookeeper.')) continue
    const longest = e.template
      .split('\n')[0]
      .split('{}')
      .map((p) => p.trim())
      .reduce((a, b) => (b.length > a.length ? b : a), '')
    if (longest.length >= MIN_LITERAL) literals.add(longest)
  }
  known = { ids, literals: [...literals] }
  return known
}

/** True when the template id is a WARN statement that reports a failure. */
export function isWarnFailure(templateId: string): boolean {
  return load().ids.has(templateId)
}

/** The ZooKeeper WARN failure statements' longest literals, for the record prefilter. */
export function warnFailureLiterals(): readonly string[] {
  return load().literals
}
