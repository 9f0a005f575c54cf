/**
 * Reads the log statements of the non-Java Kafka clients out of their source text: librdkafka (C),
 * sarama and franz-go (Go), kafkajs (JavaScript), kafka-python (Python). No compiler: comments and
 * string contents are masked first (same offsets), so a call's parentheses and commas are found on
 * the masked text while literals are read from the original. Every value a statement prints becomes
 * `{}`, adjacent values one `{}`, as in the Kafka tables.
 */

/** The client libraries mined, by the name the tables and the `library` label use. */
export type ClientLibrary = 'librdkafka' | 'sarama' | 'franz-go' | 'kafkajs' | 'kafka-python'

/** One log statement of a client, as the library prints it. */
export type ClientStatement = {
  /** FATAL/ERROR/WARN/INFO as mapped from the library's own levels (see LEVEL_OF); `LOG` for sarama's unlevelled logger. */
  level: 'FATAL' | 'ERROR' | 'WARN' | 'INFO' | 'LOG'
  /**
   * What the line names besides its text: librdkafka's facility (`FAIL`, `ERROR`, `REQTMOUT`…), sarama's
   * leading `area/part` tag, franz-go's `kgo`, kafkajs' logger namespace, kafka-python's module.
   */
  component: string
  template: string
  /** Source file, relative to the repository root. */
  file: string
}

type Lang = 'c' | 'go' | 'js' | 'py'

const VALUE = '\u0001'

/** Same length as `src`: comments become spaces, string contents `~` (quotes and newlines kept). */
export function maskCode(src: string, lang: Lang): string {
  const out = src.split('')
  const n = src.length
  const blank = (a: number, b: number, ch: string) => {
    for (let k = a; k < b; k++) if (out[k] !== '\n') out[k] = ch
  }
  let i = 0
  while (i < n) {
    const c = src[i]
    if (lang !== 'py' && c === '/' && src[i + 1] === '/') {
      const e = src.indexOf('\n', i)
      const end = e < 0 ? n : e
      blank(i, end, ' ')
      i = end
    } else if (lang !== 'py' && c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2)
      const end = e < 0 ? n : e + 2
      blank(i, end, ' ')
      i = end
    } else if (lang === 'py' && c === '#') {
      const e = src.indexOf('\n', i)
      const end = e < 0 ? n : e
      blank(i, end, ' ')
      i = end
    } else if (lang === 'py' && (src.startsWith('"""', i) || src.startsWith("'''", i))) {
      const q = src.slice(i, i + 3)
      const e = src.indexOf(q, i + 3)
      const end = e < 0 ? n : e + 3
      blank(i + 3, end - 3, '~')
      i = end
    } else if (c === '"' || (c === "'" && lang !== 'go' && lang !== 'c') || (c === '`' && (lang === 'js' || lang === 'go'))) {
      const end = literalEnd(src, i, lang)
      blank(i + 1, end - 1, '~')
      i = end
    } else if (c === "'" && (lang === 'c' || lang === 'go')) {
      // A char/rune literal: 'x', '\n', '\''.
      const e = src[i + 1] === '\\' ? src.indexOf("'", i + 3) : i + 2
      const end = e > 0 && e - i < 12 ? e + 1 : i + 1
      blank(i + 1, end - 1, '~')
      i = end
    } else i++
  }
  return out.join('')
}

/** Index just past the literal starting at `start`. */
function literalEnd(src: string, start: number, lang: Lang): number {
  const q = src[start]
  const raw = q === '`' && lang === 'go'
  let k = start + 1
  while (k < src.length) {
    const c = src[k]
    if (c === '\\' && !raw) k += 2
    else if (c === q) return k + 1
    else if (c === '\n' && q !== '`') return k
    else if (q === '`' && lang === 'js' && c === '$' && src[k + 1] === '{') {
      let depth = 1
      k += 2
      while (k < src.length && depth > 0) {
        if (src[k] === '{') depth++
        else if (src[k] === '}') depth--
        else if (src[k] === '"' || src[k] === "'" || src[k] === '`') {
          k = literalEnd(src, k, lang)
          continue
        }
        k++
      }
    } else k++
  }
  return src.length
}

/** Index of the bracket closing the one at `open` in masked text, or -1. */
function closing(masked: string, open: number): number {
  let depth = 0
  for (let k = open; k < masked.length; k++) {
    const c = masked[k]
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') {
      depth--
      if (depth === 0) return k
    }
  }
  return -1
}

/** The top-level arguments of the call whose `(` is at `open`: [start, end) ranges. */
function callArgs(masked: string, open: number): [number, number][] | undefined {
  const close = closing(masked, open)
  if (close < 0) return undefined
  const out: [number, number][] = []
  let depth = 0
  let start = open + 1
  for (let k = open + 1; k < close; k++) {
    const c = masked[k]
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') depth--
    else if (c === ',' && depth === 0) {
      out.push([start, k])
      start = k + 1
    }
  }
  out.push([start, close])
  return out.filter(([a, b]) => masked.slice(a, b).trim() !== '' || out.length === 1)
}

const C_ESC: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', "'": "'", '\\': '\\', '0': '' }

function unescapeBody(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_m, e: string) =>
    e[0] === 'x' || (e[0] === 'u' && e.length === 5) ? String.fromCharCode(parseInt(e.slice(1), 16)) : (C_ESC[e] ?? e),
  )
}

const C_SPEC = /%[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t|q)?[diouxXeEfFgGaAcspn%]/g
const GO_SPEC = /%[-+# 0]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[vTtbcdoOqxXUeEfFgGsqpw%]/g
const PY_SPEC = /%(?:\([^)]*\))?[-+ #0]*(?:\d+|\*)?(?:\.\d+)?[diouxXeEfFgGcrsa%]/g

function specsToValues(text: string, spec: RegExp): string {
  return text.replace(spec, (m) => (m === '%%' ? '%' : VALUE))
}

/**
 * The message an argument expression prints, values as VALUE; undefined when it holds no literal (a
 * message built elsewhere). C: adjacent literals join, `PRId32`-style macros continue a spec. Go, JS,
 * Python: `+` joins; JS templates and Python f-strings interpolate; Python `.format` fills `{}`.
 */
function argText(src: string, masked: string, a: number, b: number, lang: Lang): string | undefined {
  const lit = lang === 'py' ? /([rRbBuUfF]{0,2})("""|'''|"|')/y : lang === 'js' ? /()(["'`])/y : lang === 'go' ? /()(["`])/y : /()(")/y
  let k = a
  let out = ''
  let sawLiteral = false
  let printf = lang === 'c' || lang === 'go'
  while (k < b) {
    while (k < b && /\s/.test(src[k])) k++
    if (k >= b) break
    lit.lastIndex = k
    const m = lit.exec(src)
    if (m && m.index === k) {
      const q = m[2]
      const bodyStart = k + m[0].length
      const end = q.length === 3 ? src.indexOf(q, bodyStart) + 3 : literalEnd(src, k + m[1].length, lang)
      const body = src.slice(bodyStart, end - q.length)
      let text: string
      if (q === '`' && lang === 'js') text = body.replace(/\$\{[^}]*\}/g, VALUE)
      else if (q === '`') text = body
      else text = unescapeBody(body)
      if (lang === 'py' && /f/i.test(m[1])) text = text.replace(/\{\{/g, '\u0002').replace(/\}\}/g, '\u0003').replace(/\{[^}]*\}/g, VALUE).replace(/\u0002/g, '{').replace(/\u0003/g, '}')
      out += text
      sawLiteral = true
      k = end
      continue
    }
    const rest = masked.slice(k, b)
    if (lang === 'c') {
      const id = /^[A-Za-z_]\w*/.exec(rest)
      if (id && /^PRI[diuxX]\w*$|^PRIusz$|^PRIdsz$/.test(id[0])) {
        out += 'd'
        k += id[0].length
        continue
      }
    }
    if (rest[0] === '+' && lang !== 'c') {
      k++
      continue
    }
    if (lang === 'py' && /^\.format\s*\(/.test(rest)) {
      out = out.replace(/\{\{/g, '\u0002').replace(/\}\}/g, '\u0003').replace(/\{[^}]*\}/g, VALUE).replace(/\u0002/g, '{').replace(/\u0003/g, '}')
      return sawLiteral ? collapse(out) : undefined
    }
    // Python's `"…%s…" % (args)`: the values follow the operator.
    if (lang === 'py' && rest[0] === '%') break
    // Any other operand is a value: an identifier, a call, an index.
    let depth = 0
    let j = k
    for (; j < b; j++) {
      const c = masked[j]
      if (c === '(' || c === '[' || c === '{') depth++
      else if (c === ')' || c === ']' || c === '}') depth--
      else if (depth === 0 && (c === '+' || (lang === 'c' && (c === '"' || /\s/.test(c))) || (lang === 'py' && c === '%'))) break
    }
    out += VALUE
    k = Math.max(j, k + 1)
    if (lang === 'c') printf = true
  }
  if (!sawLiteral) return undefined
  if (printf) out = specsToValues(out, lang === 'go' ? GO_SPEC : C_SPEC)
  if (lang === 'py') out = specsToValues(out, PY_SPEC)
  return collapse(out)
}

/** VALUE marks become `{}`, runs of them one; SLF4J-like `{}` already in the text stay. */
function collapse(text: string): string {
  return text.replace(/\u0001+/g, '{}').replace(/(?:\{\}){2,}/g, '{}')
}

/** syslog levels (librdkafka) → table levels: 0-2 FATAL, 3 ERROR, 4 WARN, 5-6 INFO, 7 debug (dropped). */
const SYSLOG: Record<string, ClientStatement['level'] | undefined> = {
  LOG_EMERG: 'FATAL',
  LOG_ALERT: 'FATAL',
  LOG_CRIT: 'FATAL',
  LOG_ERR: 'ERROR',
  LOG_WARNING: 'WARN',
  LOG_NOTICE: 'INFO',
  LOG_INFO: 'INFO',
}

type Found = { call: string; args: [number, number][]; at: number }

function* calls(src: string, masked: string, re: RegExp): Generator<Found> {
  re.lastIndex = 0
  for (let m = re.exec(masked); m; m = re.exec(masked)) {
    const open = m.index + m[0].length - 1
    const args = callArgs(masked, open)
    if (args) yield { call: m[1], args, at: m.index }
  }
}

/** The first argument from `from` on that holds a literal, as a template. */
function firstMessage(src: string, masked: string, args: [number, number][], from: number, lang: Lang): string | undefined {
  for (let i = from; i < args.length; i++) {
    const t = argText(src, masked, args[i][0], args[i][1], lang)
    if (t !== undefined) return t
  }
  return undefined
}

const stringArg = (src: string, [a, b]: [number, number]) => /^\s*"([^"]*)"\s*$/.exec(src.slice(a, b))?.[1]

const C_CALLS = /\b(rd_kafka_log|rd_rkb_log|rd_rkb_log0|rd_kafka_broker_fail|rd_kafka_op_err|rd_kafka_q_op_err|rd_kafka_consumer_err|rd_kafka_set_fatal_error|rd_kafka_idemp_set_fatal_error|rd_kafka_txn_set_fatal_error|rd_kafka_txn_set_abortable_error(?:_with_bump)?)\s*\(/g

/** librdkafka: the statements of one C file. */
export function extractLibrdkafka(src: string, file: string): ClientStatement[] {
  const masked = maskCode(src, 'c')
  const out: ClientStatement[] = []
  for (const { call, args } of calls(src, masked, C_CALLS)) {
    const add = (level: ClientStatement['level'] | undefined, component: string | undefined, msg: string | undefined, prefix = '', suffix = '') => {
      if (level && component && msg !== undefined && msg.trim() !== '') out.push({ level, component, template: collapse(`${prefix}${msg}${suffix}`.replace(/\{\}/g, VALUE)), file })
    }
    const lvl = (i: number) => SYSLOG[src.slice(...args[i]).trim()]
    switch (call) {
      case 'rd_kafka_log':
        // The FAIL and ERROR lines that pass a prepared "%s: %s" are the forwarding calls of broker_fail
        // and of error ops, mined below at their call sites.
        if (args.length >= 4 && !/^"(?:FAIL|ERROR)"$/.test(src.slice(...args[2]).trim())) add(lvl(1), stringArg(src, args[2]), firstMessage(src, masked, args, 3, 'c'))
        break
      case 'rd_rkb_log':
        if (args.length >= 4) add(lvl(1), stringArg(src, args[2]), firstMessage(src, masked, args, 3, 'c'), '{}: ')
        break
      case 'rd_rkb_log0':
        if (args.length >= 5) add(lvl(1), stringArg(src, args[3]), firstMessage(src, masked, args, 4, 'c'), '{}: ')
        break
      case 'rd_kafka_broker_fail': {
        const level = lvl(1) ?? 'ERROR'
        // 1.x+: "<broker>: <message> (after Nms in state S)"; the ERROR op carries the same text.
        add(level, 'FAIL', firstMessage(src, masked, args, 3, 'c'), '{}: ')
        if (level === 'ERROR' || level === 'FATAL') add('ERROR', 'ERROR', firstMessage(src, masked, args, 3, 'c'), '{}: {}: ')
        break
      }
      case 'rd_kafka_op_err':
      case 'rd_kafka_q_op_err':
      case 'rd_kafka_consumer_err':
        // Without an error_cb the error op is logged "<client name>: <text>" under ERROR.
        add('ERROR', 'ERROR', firstMessage(src, masked, args, 2, 'c'), '{}: ')
        break
      case 'rd_kafka_set_fatal_error':
      case 'rd_kafka_idemp_set_fatal_error':
        add('FATAL', 'FATAL', firstMessage(src, masked, args, 2, 'c'), 'Fatal error: {}: ')
        break
      case 'rd_kafka_txn_set_fatal_error':
        add('FATAL', 'TXNERR', firstMessage(src, masked, args, 2, 'c'), 'Fatal transaction error: ', ' ({})')
        break
      default:
        add('ERROR', 'TXNERR', firstMessage(src, masked, args, 2, 'c'), 'Current transaction failed in state {}: ', ' ({})')
    }
  }
  return out
}

/** The `area/part` tag sarama writes first ("client/metadata", "consumer/broker/{}"), else `sarama`. */
function saramaTag(template: string): string {
  const m = /^([a-z]+(?:\/[\w{}-]+)+)(?:\s|$)/.exec(template)
  return m ? m[1] : 'sarama'
}

const SARAMA_CALLS = /\bLogger\.(Printf|Println|Print)\s*\(/g

/** sarama: `Logger.Print*` statements (the unlevelled logger every build writes; DebugLogger is debug). */
export function extractSarama(src: string, file: string): ClientStatement[] {
  const masked = maskCode(src, 'go')
  const out: ClientStatement[] = []
  for (const { call, args, at } of calls(src, masked, SARAMA_CALLS)) {
    if (/DebugLogger\.$|\w$/.test(masked.slice(Math.max(0, at - 12), at))) continue
    let msg: string | undefined
    if (call === 'Printf') msg = argText(src, masked, args[0][0], args[0][1], 'go')
    else {
      const parts = args.map(([a, b]) => {
        const t = argText(src, masked, a, b, 'go')
        return t === undefined ? VALUE : t.replace(/\{\}/g, VALUE)
      })
      if (parts.every((p) => p === VALUE)) continue
      msg = collapse(parts.join(call === 'Println' ? ' ' : ''))
    }
    if (msg === undefined) continue
    const template = msg.replace(/\n+$/, '').trim()
    if (template === '' || template === '{}') continue
    out.push({ level: 'LOG', component: saramaTag(template), template, file })
  }
  return out
}

const FRANZ_LEVELS: Record<string, ClientStatement['level'] | undefined> = { LogLevelError: 'ERROR', LogLevelWarn: 'WARN', LogLevelInfo: 'INFO' }
const FRANZ_CALLS = /\.(Log)\s*\(\s*LogLevel/g

/** franz-go: `logger.Log(LogLevelX, "msg", "key", v, …)`, printed by its BasicLogger as `[LEVEL] msg; key: v, …`. */
export function extractFranz(src: string, file: string): ClientStatement[] {
  const masked = maskCode(src, 'go')
  const out: ClientStatement[] = []
  const re = new RegExp(FRANZ_CALLS.source.replace('\\s*LogLevel', ''), 'g')
  for (const { args } of calls(src, masked, re)) {
    const level = FRANZ_LEVELS[src.slice(...args[0]).trim()]
    if (!level || args.length < 2) continue
    const msg = argText(src, masked, args[1][0], args[1][1], 'go')
    if (msg === undefined) continue
    const keys: string[] = []
    for (let i = 2; i + 1 < args.length; i += 2) keys.push(stringArg(src, args[i]) ?? '{}')
    const template = keys.length ? `${msg}; ${keys.map((k) => `${k}: {}`).join(', ')}` : msg
    out.push({ level, component: 'kgo', template, file })
  }
  return out
}

const KAFKAJS_CALLS = /\b(?:logger|this\.logger|log)\.(error|warn|info)\s*\(/g

/** kafkajs: `logger.error|warn|info('msg', {…})` under the namespace the file's logger was given. */
export function extractKafkajs(src: string, file: string): ClientStatement[] {
  const masked = maskCode(src, 'js')
  const out: ClientStatement[] = []
  const ns = /\.namespace\(\s*['"`]([^'"`]+)['"`]/.exec(src)?.[1]
  for (const { call, args } of calls(src, masked, KAFKAJS_CALLS)) {
    const msg = argText(src, masked, args[0][0], args[0][1], 'js')
    if (msg === undefined || msg.trim() === '') continue
    const level = call === 'error' ? 'ERROR' : call === 'warn' ? 'WARN' : 'INFO'
    out.push({ level, component: ns ?? 'kafkajs', template: ns ? `[${ns}] ${msg}` : msg, file })
  }
  // connection.js logs through its own `this.logError = log('error')`, mostly an error's message: the
  // messages of the KafkaJS errors that file constructs are what those lines print.
  if (ns && /this\.logError = log\('error'\)/.test(src)) {
    for (const { args } of calls(src, masked, /\b(?:this\.logError|new KafkaJS\w*Error)\s*\(/g)) {
      const msg = argText(src, masked, args[0][0], args[0][1], 'js')
      if (msg !== undefined && msg.trim() !== '') out.push({ level: 'ERROR', component: ns, template: `[${ns}] ${msg}`, file })
    }
  }
  return out
}

const PY_CALLS = /\b(?:log|logger|self\.log|self\._log)\.(critical|error|exception|warning|warn|info)\s*\(/g

/** kafka-python: `log.error|warning|exception|critical|info(…)`; the logger is the module (`getLogger(__name__)`). */
export function extractKafkaPython(src: string, file: string): ClientStatement[] {
  const masked = maskCode(src, 'py')
  const out: ClientStatement[] = []
  const module = file.replace(/\.py$/, '').replace(/\/__init__$/, '').replace(/\//g, '.')
  for (const { call, args } of calls(src, masked, PY_CALLS)) {
    const msg = argText(src, masked, args[0][0], args[0][1], 'py')
    if (msg === undefined || msg.trim() === '') continue
    const level = call === 'critical' ? 'FATAL' : call === 'error' || call === 'exception' ? 'ERROR' : call === 'info' ? 'INFO' : 'WARN'
    out.push({ level, component: module, template: msg, file })
  }
  return out
}

/** Where each library's production sources are and which extractor reads them. */
export const CLIENT_SOURCES: Record<ClientLibrary, { include: RegExp; exclude?: RegExp; extract: (src: string, file: string) => ClientStatement[] }> = {
  librdkafka: { include: /^src\/[^/]+\.[ch]$/, exclude: /^src\/(?:rdkafka_mock|tinycthread|lz4|cJSON|crc32c|regexp|rdunittest|snappy|xxhash|rdxxhash|nanopb)/, extract: extractLibrdkafka },
  sarama: { include: /^[^/]+\.go$/, exclude: /_test\.go$|^mock|^mocks\//, extract: extractSarama },
  'franz-go': { include: /^pkg\/kgo\/[^/]+\.go$/, exclude: /_test\.go$/, extract: extractFranz },
  kafkajs: { include: /^src\/.+\.js$/, exclude: /\.spec\.js$|\/testHelpers|^src\/loggers\//, extract: extractKafkajs },
  'kafka-python': { include: /^kafka\/.+\.py$/, exclude: /(?:^|\/)test|\/vendor\/|^kafka\/(?:benchmarks|cli)\//, extract: extractKafkaPython },
}
