import { UserError } from './errors.js'

/**
 * `/kafka …` text → a typed command. Arguments are checked against a strict character set before
 * anything else looks at them, so shell metacharacters, quotes and newlines are refused with a
 * clear reply and never reach the admin client, a log or a shell.
 */

/** What `describe` can look at. */
export type TargetKind = 'topic' | 'group' | 'broker'

/** A requested configuration change, already validated for shape. */
export type ConfigChange = { op: 'set'; key: string; value: string } | { op: 'reset'; key: string }

/** A parsed command; handlers receive exactly the fields they need. */
export type Command =
  | { verb: 'help'; topic?: string }
  | { verb: 'why'; cluster?: string; broker?: string; group?: string; sinceMs?: number }
  | { verb: 'status'; cluster?: string }
  | { verb: 'digest'; cluster?: string }
  | { verb: 'rules'; name?: string }
  | { verb: 'explain'; rule: string }
  | { verb: 'describe'; kind: TargetKind; cluster?: string; name: string }
  | { verb: 'config'; kind: 'topic' | 'broker'; cluster?: string; name: string; change?: ConfigChange }
  | { verb: 'silence'; matcher: string; durationMs: number }
  | { verb: 'unsilence'; matcher: string }

/** The command names, for usage lines and did-you-mean. */
export type Verb = Command['verb']

/** One usage line per verb; help and every usage error quote these. */
export const USAGE: Record<Verb, string> = {
  why: 'why <broker> [since]          ranked causes for a broker (`why` alone in a cluster\'s channel: the cluster\'s answer), e.g. `why 3 2h` or `why prod:3`; `why group <group> [since]`: a consumer group\'s lag status and its cause',
  status: 'status [cluster]              firing alerts, silences and brokers seen',
  digest: 'digest [cluster]              the daily health digest, now',
  rules: 'rules [name]                  the loaded rules, or one of them',
  explain: 'explain <rule>                what a rule means, its source and its signals',
  describe: 'describe topic|group|broker <name>   partitions, members or a broker from the admin API',
  config: 'config topic|broker <name> [set key=value | reset key]   show or change configuration',
  silence: 'silence <rule|fingerprint> <duration>   mute an alert, e.g. `silence stw_pause 2h`',
  unsilence: 'unsilence <rule|fingerprint>  lift a silence before it expires, e.g. `unsilence stw_pause`',
  help: 'help [command]                this list',
}

const MAX_TEXT = 500
/** Everything an argument may contain; Kafka topic names use [a-zA-Z0-9._-]. */
const ALLOWED = /^[A-Za-z0-9 ._\-=:,#]*$/
const BROKER = /^(?:broker-)?(\d{1,9})$/
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/
const GROUP = /^[A-Za-z0-9._-]{1,255}$/
const CLUSTER = /^[A-Za-z0-9_-]{1,64}$/
const CONFIG_KEY = /^[a-z][a-z0-9]*(?:\.[a-z0-9]+)*$/
const CONFIG_VALUE = /^[A-Za-z0-9._,:-]{1,200}$/
const RULE = /^[A-Za-z0-9_.#-]{1,200}$/
const DURATION = /^(\d{1,6})(s|m|h|d)$/
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** Parses the text after `/kafka`; throws UserError with a usage line on any problem. */
export function parseCommand(raw: string): Command {
  // Slack sends what the user typed with &, < and > as entities; refusals should name what was typed.
  const text = unwrapAutoLinks(raw).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
  checkCharacters(text)
  const tokens = text.trim().split(/ +/).filter(Boolean)
  if (!tokens.length) return { verb: 'help' }
  const [verbText, ...args] = tokens
  const verb = verbText.toLowerCase()
  switch (verb) {
    case 'help':
      return { verb: 'help', topic: args[0]?.toLowerCase() }
    case 'why': {
      // No broker: the cluster's answer where the channel is a cluster's (the handler decides).
      if (args.length === 0) return { verb: 'why' }
      const window = args[0] === 'since' || args[0] === '--since' ? args.slice(1) : args
      if (window.length === 1 && DURATION.test(window[0])) return { verb: 'why', sinceMs: parseDuration(window[0], 'why') }
      if (args[0].toLowerCase() === 'group') return parseWhyGroup(args.slice(1))
      arity('why', args, 1, 3)
      const rest = args[1] === 'since' || args[1] === '--since' ? args.slice(2) : args.slice(1)
      if (rest.length > 1) throw usageError('why', `unexpected '${args[args.length - 1]}'`)
      const { cluster, name } = splitCluster(args[0], 'why')
      const m = BROKER.exec(name)
      if (!m) throw usageError('why', `'${args[0]}' is not a broker id (a number such as 3, or broker-3)`)
      return { verb: 'why', cluster, broker: m[1], sinceMs: rest[0] === undefined ? undefined : parseDuration(rest[0], 'why') }
    }
    case 'status':
    case 'digest': {
      arity(verb, args, 0, 1)
      if (args[0] !== undefined && !CLUSTER.test(args[0])) throw usageError(verb, `'${args[0]}' is not a cluster name`)
      return { verb, cluster: args[0] }
    }
    case 'rules': {
      arity('rules', args, 0, 1)
      if (args[0] !== undefined && !RULE.test(args[0])) throw usageError('rules', `'${args[0]}' is not a rule name`)
      return { verb: 'rules', name: args[0] }
    }
    case 'explain': {
      arity('explain', args, 1, 1)
      if (!RULE.test(args[0])) throw usageError('explain', `'${args[0]}' is not a rule name`)
      return { verb: 'explain', rule: args[0] }
    }
    case 'describe': {
      arity('describe', args, 2, 2)
      const kind = args[0].toLowerCase()
      if (kind !== 'topic' && kind !== 'group' && kind !== 'broker') throw usageError('describe', `'${args[0]}' is not one of topic, group, broker`)
      const { cluster, name } = splitCluster(args[1], 'describe')
      return { verb: 'describe', kind, cluster, name: checkTarget(kind, name, 'describe') }
    }
    case 'config': {
      if (args.length < 2) throw usageError('config', 'missing arguments')
      const kind = args[0].toLowerCase()
      if (kind !== 'topic' && kind !== 'broker') throw usageError('config', `'${args[0]}' is not one of topic, broker`)
      const { cluster, name } = splitCluster(args[1], 'config')
      const target = checkTarget(kind, name, 'config')
      if (args.length === 2) return { verb: 'config', kind, cluster, name: target }
      if (kind !== 'topic') throw usageError('config', 'only topic configuration can be changed from chat')
      const op = args[2].toLowerCase()
      if (op === 'set') {
        if (args.length !== 4) throw usageError('config', 'set takes exactly one key=value, e.g. `set segment.ms=604800000`')
        const eq = args[3].indexOf('=')
        if (eq <= 0) throw usageError('config', `'${args[3]}' is not key=value`)
        const key = args[3].slice(0, eq)
        const value = args[3].slice(eq + 1)
        if (!CONFIG_KEY.test(key)) throw usageError('config', `'${key}' is not a Kafka config key (lowercase words joined by dots)`)
        if (!CONFIG_VALUE.test(value)) throw usageError('config', `'${value}' is not an accepted value for ${key} (letters, digits and . _ , : - only)`)
        return { verb: 'config', kind, cluster, name: target, change: { op: 'set', key, value } }
      }
      if (op === 'reset') {
        if (args.length !== 4) throw usageError('config', 'reset takes exactly one key, e.g. `reset segment.ms`')
        if (!CONFIG_KEY.test(args[3])) throw usageError('config', `'${args[3]}' is not a Kafka config key`)
        return { verb: 'config', kind, cluster, name: target, change: { op: 'reset', key: args[3] } }
      }
      throw usageError('config', `unknown action '${args[2]}' (set or reset)`)
    }
    case 'silence': {
      arity('silence', args, 2, 2)
      if (!RULE.test(args[0])) throw usageError('silence', `'${args[0]}' is not a rule name or fingerprint`)
      const durationMs = parseDuration(args[1], 'silence')
      if (durationMs > 30 * UNIT_MS.d) throw usageError('silence', 'a silence lasts at most 30d')
      return { verb: 'silence', matcher: args[0], durationMs }
    }
    case 'unsilence': {
      arity('unsilence', args, 1, 1)
      if (!RULE.test(args[0])) throw usageError('unsilence', `'${args[0]}' is not a rule name or fingerprint`)
      return { verb: 'unsilence', matcher: args[0] }
    }
    default: {
      const guess = closest(verb, Object.keys(USAGE))
      throw new UserError(`Unknown command '${verbText}'.${guess ? ` Did you mean \`${guess}\`?` : ''} Try \`/kafka help\`.`)
    }
  }
}

/**
 * With "escape links" enabled Slack rewrites words that look like domains: `segment.ms` (.ms is a
 * top-level domain) arrives as `<http://segment.ms|segment.ms>`. Such a link whose label is the
 * word itself is turned back into the word; anything else stays and is refused below.
 */
function unwrapAutoLinks(raw: string): string {
  return raw.replace(/<https?:\/\/([^|<>\s]+)\|([^<>]+)>/g, (whole, target: string, label: string) => (target.replace(/\/$/, '') === label ? label : whole))
}

/** Refuses the whole text when any character is outside the accepted set, naming the first one. */
function checkCharacters(raw: string): void {
  if (raw.length > MAX_TEXT) throw new UserError(`That command is ${raw.length} characters long; the limit is ${MAX_TEXT}. Nothing was run.`)
  if (/[\r\n\t\v\f]/.test(raw)) throw new UserError('Commands must fit on one line; line breaks and tabs are not accepted. Nothing was run.')
  if (ALLOWED.test(raw)) return
  const bad = [...raw].find((ch) => !ALLOWED.test(ch))!
  const what = /["'`\u2018\u2019\u201c\u201d]/.test(bad) ? 'Quotes are' : `The character ${JSON.stringify(bad)} is`
  throw new UserError(`${what} not accepted in commands; arguments are plain words (letters, digits and . _ - = : , #). Nothing was run.`)
}

function splitCluster(arg: string, verb: Verb): { cluster?: string; name: string } {
  const i = arg.indexOf(':')
  if (i < 0) return { name: arg }
  const cluster = arg.slice(0, i)
  const name = arg.slice(i + 1)
  if (!CLUSTER.test(cluster) || !name) throw usageError(verb, `'${arg}' is not cluster:name`)
  return { cluster, name }
}

function checkTarget(kind: TargetKind, name: string, verb: Verb): string {
  if (kind === 'broker') {
    const m = BROKER.exec(name)
    if (!m) throw usageError(verb, `'${name}' is not a broker id`)
    return m[1]
  }
  const shape = kind === 'topic' ? TOPIC : GROUP
  if (!shape.test(name)) throw usageError(verb, `'${name}' is not a valid ${kind} name`)
  return name
}

/** "2h" → 7200000; bounded so a typo cannot ask for centuries. */
export function parseDuration(text: string, verb: Verb): number {
  const m = DURATION.exec(text)
  if (!m || Number(m[1]) === 0) throw usageError(verb, `'${text}' is not a duration such as 30m, 2h or 1d`)
  return Number(m[1]) * UNIT_MS[m[2]]
}

function arity(verb: Verb, args: string[], min: number, max: number): void {
  if (args.length < min) throw usageError(verb, 'missing arguments')
  if (args.length > max) throw usageError(verb, `unexpected '${args.slice(max).join(' ')}'`)
}

/** Kafka's legal group id characters (as for topics), bounded: anything else is refused before it reaches the store. */
const GROUP_ID = /^[A-Za-z0-9._-]{1,249}$/

/** `why group [cluster:]<group> [since]`: a consumer group's status and the cause of its lag. */
function parseWhyGroup(args: string[]): Command {
  if (args.length === 0) throw usageError('why', 'missing the group: why group <group> [since]')
  const rest = args[1] === 'since' || args[1] === '--since' ? args.slice(2) : args.slice(1)
  if (rest.length > 1) throw usageError('why', `unexpected '${args[args.length - 1]}'`)
  const { cluster, name } = splitCluster(args[0], 'why')
  if (!GROUP_ID.test(name)) throw usageError('why', `'${args[0]}' is not a consumer group id (letters, digits, '.', '_' and '-')`)
  return { verb: 'why', cluster, group: name, sinceMs: rest[0] === undefined ? undefined : parseDuration(rest[0], 'why') }
}

/** The refusal quoting a verb's usage line, e.g. "Missing arguments. Usage: `/kafka why <broker> [since]`". */
export function usageError(verb: Verb, problem: string): UserError {
  return new UserError(`${capitalise(problem)}. Usage: \`/kafka ${USAGE[verb].replace(/ {2,}.*/, '')}\``)
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}

/** The nearest word within edit distance 2, for did-you-mean. */
export function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined
  let bestD = 3
  for (const c of candidates) {
    const d = editDistance(word, c)
    if (d < bestD) {
      best = c
      bestD = d
    }
  }
  return best
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) dp[0][j] = j
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) dp[i][j] = Math.min(dp[i - 1][j] + 1, dp[i][j - 1] + 1, dp[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
  return dp[a.length][b.length]
}
