/**
 * Reads Java and Scala source text and lists its log statements: level, the logger log4j prints, the
 * message as a template with every value written `{}`, and whether a Throwable is passed. No compiler:
 * comments and string literals are masked first (same offsets), so parentheses, commas and `+` can be
 * found on the masked text while the literal text is read from the original.
 */

/** One log statement as the source writes it. */
export type Statement = {
  level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL'
  logger: string
  template: string
  throwable: boolean
  /** How the real line is prefixed: Kafka's Logging `logIdent`, a client `LogContext`, or nothing. */
  prefix: 'logIdent' | 'logContext' | '-'
}

const LEVEL_OF: Record<string, Statement['level']> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'FATAL',
}

/** Placeholder for a value computed by code (kept apart from SLF4J's own `{}` until the count is taken). */
const VALUE = '\u0001'
const MASK = '~'

const isIdent = (c: string) => /[\w$]/.test(c)

/**
 * Same length as `src`: comments become spaces, string and char literal contents become `~`
 * (newlines kept). Scala interpolations `${…}` inside s/f/raw strings are masked as string too.
 */
export function maskSource(src: string, scala: boolean): string {
  const n = src.length
  const out = new Uint16Array(n)
  for (let k = 0; k < n; k++) out[k] = src.charCodeAt(k)
  const blank = (from: number, to: number, ch: string) => {
    const code = ch.charCodeAt(0)
    for (let k = from; k < to; k++) if (out[k] !== 10) out[k] = code
  }
  let i = 0
  while (i < n) {
    const c = src[i]
    if (c === '/' && src[i + 1] === '/') {
      const e = src.indexOf('\n', i)
      const end = e < 0 ? n : e
      blank(i, end, ' ')
      i = end
    } else if (c === '/' && src[i + 1] === '*') {
      let depth = 1
      let k = i + 2
      while (k < n && depth > 0) {
        if (scala && src[k] === '/' && src[k + 1] === '*') {
          depth++
          k += 2
        } else if (src[k] === '*' && src[k + 1] === '/') {
          depth--
          k += 2
        } else k++
      }
      blank(i, k, ' ')
      i = k
    } else if (c === '"') {
      const interp = scala && i > 0 && isIdent(src[i - 1])
      const end = stringEnd(src, i, interp)
      blank(i + (src.startsWith('"""', i) ? 3 : 1), Math.max(i + 1, end - (src.startsWith('"""', i) ? 3 : 1)), MASK)
      i = end
    } else if (c === "'") {
      // Char literal 'x', '\n', '\u0000'; otherwise a Scala symbol or a type-level quote: skip one char.
      if (src[i + 1] === '\\') {
        const e = src.indexOf("'", i + 2)
        if (e > 0 && e - i < 10) {
          blank(i + 1, e, MASK)
          i = e + 1
          continue
        }
      } else if (src[i + 2] === "'") {
        blank(i + 1, i + 2, MASK)
        i += 3
        continue
      }
      i++
    } else i++
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('utf16le')
}

/** Index just past the string literal starting at `start` (a `"` or `"""`). */
function stringEnd(src: string, start: number, interpolated: boolean): number {
  const n = src.length
  if (src.startsWith('"""', start)) {
    let k = start + 3
    while (k < n) {
      if (interpolated && src[k] === '$' && src[k + 1] === '{') {
        k = interpolationEnd(src, k + 2)
        continue
      }
      if (src.startsWith('"""', k)) {
        while (src[k + 3] === '"') k++
        return k + 3
      }
      k++
    }
    return n
  }
  let k = start + 1
  while (k < n) {
    const c = src[k]
    if (c === '\\') k += 2
    else if (interpolated && c === '$' && src[k + 1] === '{') k = interpolationEnd(src, k + 2)
    else if (interpolated && c === '$' && src[k + 1] === '$') k += 2
    else if (c === '"') return k + 1
    else if (c === '\n') return k
    else k++
  }
  return n
}

/** Index just past the `}` closing a `${` whose body starts at `from` (strings inside skipped). */
function interpolationEnd(src: string, from: number): number {
  let depth = 1
  let k = from
  while (k < src.length && depth > 0) {
    const c = src[k]
    if (c === '"') {
      k = stringEnd(src, k, k > 0 && isIdent(src[k - 1]))
      continue
    }
    if (c === '{') depth++
    else if (c === '}') depth--
    k++
  }
  return k
}

/** Index of the bracket closing the one at `open` in masked text, or -1. */
function closing(masked: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' }
  const stack: string[] = []
  for (let k = open; k < masked.length; k++) {
    const c = masked[k]
    if (c === '(' || c === '[' || c === '{') stack.push(pairs[c])
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) return -1
      if (stack.length === 0) return k
    }
  }
  return -1
}

/** Splits [from, to) at top-level occurrences of `sep` in masked text; returns [start, end) ranges. */
function splitTop(masked: string, from: number, to: number, sep: string): [number, number][] {
  const out: [number, number][] = []
  let depth = 0
  let start = from
  for (let k = from; k < to; k++) {
    const c = masked[k]
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') depth--
    else if (depth === 0 && c === sep) {
      // `+` in `1e+5`, `++`, `+=` are not concatenation.
      if (sep === '+' && (masked[k + 1] === '+' || masked[k - 1] === '+' || masked[k + 1] === '=')) continue
      out.push([start, k])
      start = k + 1
    }
  }
  out.push([start, to])
  return out
}

const JAVA_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', "'": "'", '\\': '\\', s: ' ' }

/** Processes backslash escapes of a Java/Scala literal body. */
function unescape(body: string): string {
  return body.replace(/\\(u+[0-9a-fA-F]{4}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e[0] === 'u') return String.fromCharCode(parseInt(e.slice(-4), 16))
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8))
    return JAVA_ESCAPES[e] ?? e
  })
}

/** Scala `.stripMargin`: drops leading blanks and the `|` of every line. */
function stripMargin(text: string): string {
  return text.replace(/(^|\n)[ \t]*\|/g, '$1')
}

const FORMAT_SPEC = /%(?:\d+\$)?[-#+ 0,(<]*\d*(?:\.\d+)?(?:[tT])?[a-zA-Z%]/g

/** `%s`, `%d`, `%.2f`… become values; `%%` a percent sign and `%n` a newline. */
function formatToValues(text: string): string {
  return text.replace(FORMAT_SPEC, (m) => (m === '%%' ? '%' : m === '%n' ? '\n' : VALUE))
}

/** Body of an s/f/raw interpolated string: `$x`, `${…}` become values; f-string specs after them are dropped. */
function interpolate(body: string, kind: string): string {
  let out = ''
  let k = 0
  const escapes = kind !== 'raw'
  while (k < body.length) {
    const c = body[k]
    if (c === '$' && body[k + 1] === '$') {
      out += '$'
      k += 2
    } else if (c === '$' && body[k + 1] === '{') {
      k = interpolationEnd(body, k + 2)
      out += VALUE
      if (kind === 'f') k = skipSpec(body, k)
    } else if (c === '$' && /[A-Za-z_]/.test(body[k + 1] ?? '')) {
      k++
      while (k < body.length && /[A-Za-z0-9_]/.test(body[k])) k++
      out += VALUE
      if (kind === 'f') k = skipSpec(body, k)
    } else if (c === '\\' && escapes) {
      const m = /^\\(u+[0-9a-fA-F]{4}|[0-7]{1,3}|.)/.exec(body.slice(k, k + 8))
      out += m ? unescape(m[0]) : '\\'
      k += m ? m[0].length : 1
    } else {
      out += c
      k++
    }
  }
  return kind === 'f' ? formatToValues(out) : out
}

function skipSpec(body: string, k: number): number {
  if (body[k] !== '%') return k
  const m = /^%[-#+ 0,(]*\d*(?:\.\d+)?[a-zA-Z]/.exec(body.slice(k, k + 12))
  return m ? k + m[0].length : k
}

/** A message expression -> template text (values as VALUE) and whether a format call applies. */
function templateOf(src: string, masked: string, from: number, to: number, scala: boolean): string {
  let out = ''
  for (const [a0, b0] of splitTop(masked, from, to, '+')) {
    let a = a0
    let b = b0
    while (a < b && /\s/.test(src[a])) a++
    while (b > a && /\s/.test(src[b - 1])) b--
    out += piece(src, masked, a, b, scala)
  }
  return out
}

function piece(src: string, masked: string, a: number, b: number, scala: boolean): string {
  // A Java message supplier: () -> "…" + x
  const supplier = /^\(\)\s*->\s*/.exec(src.slice(a, b))
  if (supplier) return templateOf(src, masked, a + supplier[0].length, b, scala)
  const text = src.slice(a, b)
  // Parenthesised sub-expression: ("a" + b)
  if (src[a] === '(' && closing(masked, a) === b - 1) return templateOf(src, masked, a + 1, b - 1, scala)
  const fmt = /^String\.format\s*\(/.exec(text)
  if (fmt) {
    const open = a + fmt[0].length - 1
    const close = closing(masked, open)
    if (close < 0) return VALUE
    const args = splitTop(masked, open + 1, close, ',')
    let [fa, fb] = args[0]
    // String.format(Locale.ROOT, "…", …)
    if (args.length > 1 && !/["]/.test(src.slice(fa, fb))) [fa, fb] = args[1]
    return formatToValues(templateOf(src, masked, fa, fb, scala))
  }
  const lit = /^(s|f|raw)?("""|")/.exec(text)
  if (!lit || (lit[1] && !scala)) return VALUE
  const kind = lit[1] ?? ''
  const q = lit[2]
  const start = a + kind.length
  const end = stringEnd(src, start, kind !== '')
  let body = src.slice(start + q.length, end - q.length)
  const rest = src.slice(end, b).replace(/\s+/g, '')
  if (q === '"""') {
    body = kind ? interpolate(body, kind === 's' ? 'raw' : kind) : body
  } else {
    body = kind ? interpolate(body, kind) : unescape(body)
  }
  if (/^\.stripMargin/.test(rest)) body = stripMargin(body)
  if (/^(?:\.stripMargin)?\.(?:format|formatted)\(/.test(rest)) body = formatToValues(body)
  else if (rest !== '' && !/^\.(?:stripMargin|trim)/.test(rest)) return VALUE
  return body
}

type TypeRange = { name: string; start: number; end: number; object: boolean; header: string }

/** Named classes, objects, traits, interfaces, enums and records with the extent of their bodies. */
function typeRanges(masked: string): TypeRange[] {
  const out: TypeRange[] = []
  const re = /\b(class|object|trait|interface|enum|record)\s+([A-Za-z_]\w*)/g
  let m: RegExpExecArray | null
  while ((m = re.exec(masked))) {
    const before = masked.slice(Math.max(0, m.index - 1), m.index)
    if (before === '.' || before === '@') continue
    let k = m.index + m[0].length
    let depth = 0
    let body = -1
    while (k < masked.length) {
      const c = masked[k]
      if (c === '(' || c === '[') depth++
      else if (c === ')' || c === ']') depth--
      else if (depth === 0 && c === '{') {
        body = k
        break
      } else if (depth === 0 && (c === ';' || c === '}' || (c === '\n' && /^\n[ \t]*\n/.test(masked.slice(k, k + 200))))) break
      else if (depth === 0 && /^\b(?:def|val|var|class|object|trait|import|package|case)\b/.test(masked.slice(k, k + 8)) && /\W/.test(masked[k - 1])) break
      k++
    }
    if (body < 0) continue
    const end = closing(masked, body)
    if (end < 0) continue
    out.push({ name: m[2], start: body, end, object: m[1] === 'object', header: masked.slice(m.index, body) })
  }
  return out
}

/**
 * The class name log4j prints for code at `pos`: package, enclosing named types joined by `$`, `$`
 * after an object. With `logging`, Scala's rule: a bare `info(…)` in a nested type that does not
 * itself mix in Logging (directly or through a thread or metrics base) uses the outer type's logger.
 */
function classAt(ranges: TypeRange[], pkg: string, pos: number, logging = false): string | undefined {
  let chain = ranges.filter((r) => r.start < pos && pos < r.end).sort((x, y) => x.start - y.start)
  if (chain.length === 0) return undefined
  if (logging) {
    let k = chain.length - 1
    while (k > 0 && !/Logging|Thread|MetricsGroup/.test(chain[k].header)) k--
    chain = chain.slice(0, k + 1)
  }
  const inner = chain[chain.length - 1]
  const name = chain.map((r) => r.name).join('$') + (inner.object ? '$' : '')
  return pkg ? `${pkg}.${name}` : name
}

/** Logger variables a file declares and the logger name each one writes under. */
function loggerFields(src: string, masked: string, pkg: string, imports: Map<string, string>, ranges: TypeRange[]): Map<string, { name?: string; context: boolean }> {
  const out = new Map<string, { name?: string; context: boolean }>()
  const re = /\b([A-Za-z_]\w*)\s*(?::\s*[\w.[\]]+\s*)?=\s*(?:new\s+)?([\w.]*?(?:getLogger|logger|Logger|LoggerFactory\.getLogger|\.logger))\s*\(/g
  let m: RegExpExecArray | null
  while ((m = re.exec(masked))) {
    if (!/log/i.test(m[1])) continue
    const open = m.index + m[0].length - 1
    const close = closing(masked, open)
    if (close < 0) continue
    const arg = src.slice(open + 1, close).trim()
    const context = /logContext|LogContext/.test(m[2]) || /logContext|LogContext/.test(src.slice(Math.max(0, m.index - 60), open))
    let name: string | undefined
    const cls = /^(?:classOf\[([\w.]+)\]|([\w.]+)\.class)$/.exec(arg)
    const str = /^"([^"]+)"$/.exec(arg)
    if (cls) name = resolveClass(cls[1] ?? cls[2], pkg, imports, ranges)
    else if (str) name = str[1]
    if (!out.has(m[1]) || name) out.set(m[1], { name, context })
  }
  return out
}

function resolveClass(simple: string, pkg: string, imports: Map<string, string>, ranges: TypeRange[]): string {
  if (simple.includes('.') && /^[a-z]/.test(simple)) return simple
  const own = ranges.find((r) => r.name === simple)
  if (own) return classAt(ranges, pkg, own.start + 1)?.replace(/\$$/, '') ?? simple
  return imports.get(simple) ?? (pkg ? `${pkg}.${simple}` : simple)
}

/** Lists the log statements of one source file. */
export function extractStatements(src: string, file: string): Statement[] {
  const scala = file.endsWith('.scala')
  const masked = maskSource(src, scala)
  const pkgs = [...masked.matchAll(/^[ \t]*package[ \t]+([\w.]+)/gm)].map((m) => m[1])
  const pkg = pkgs.join('.')
  const imports = new Map<string, string>()
  for (const m of masked.matchAll(/^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)\.(\w+)[ \t]*;?[ \t]*$/gm)) imports.set(m[2], `${m[1]}.${m[2]}`)
  const ranges = typeRanges(masked)
  const fields = loggerFields(src, masked, pkg, imports, ranges)
  const usesLogging = scala && /\bLogging\b/.test(masked)
  const idents = scala ? [...masked.matchAll(/\blogIdent\s*=/g)].map((x) => x.index) : []
  const identAssigned = (r: TypeRange) => idents.some((p) => r.start < p && p < r.end)
  const out: Statement[] = []
  const re = /(\.\s*)?\b(trace|debug|info|warn|error|fatal)\s*\(/g
  let m: RegExpExecArray | null
  while ((m = re.exec(masked))) {
    const at = m.index
    const open = at + m[0].length - 1
    let viaField: { name?: string; context: boolean } | undefined
    let stateChange = false
    if (m[1]) {
      const chain = receiverChain(masked, at)
      if (!chain.some((id) => /log/i.test(id))) continue
      stateChange = chain.some((id) => /stateChangeLogger/.test(id))
      for (const id of chain) viaField ??= fields.get(id)
    } else {
      // Bare calls: the Logging trait (mixed in here or by a base class such as AbstractFetcherThread).
      if (!usesLogging && !/^\s*(?:s|f|raw)?"/.test(src.slice(open + 1, open + 12))) continue
      const before = masked.slice(Math.max(0, at - 12), at)
      if (/\b(?:def|new)\s+$/.test(before) || /[\w$]$/.test(before)) continue
    }
    const close = closing(masked, open)
    if (close < 0) continue
    const args = splitTop(masked, open + 1, close, ',').filter(([a, b]) => src.slice(a, b).trim() !== '')
    if (args.length === 0) continue
    // A FATAL marker as first argument (Logging.FatalMarker) is not the message.
    if (/Marker/.test(src.slice(args[0][0], args[0][1])) && args.length > 1) args.shift()
    let [a, b] = args[0]
    // A message built into a local first: `String warnInfo = "…" + x; LOG.warn(warnInfo)`.
    const local = /^[a-z]\w*$/.exec(src.slice(a, b).trim())
    if (local) {
      const def = localDefinition(src, masked, local[0], a, scala)
      if (def) [a, b] = def
    }
    const raw = templateOf(src, masked, a, b, scala)
    if (!/["]/.test(src.slice(a, b)) && raw === VALUE && !m[1]) continue
    const slf4j = (raw.match(/\{\}/g) ?? []).length
    const rest = args.length - 1
    const throwable = slf4j === 0 ? rest >= 1 && (scala || rest === 1 && /(?:^|\W)(?:e|t|ex|exc|err|ioe|cause|exception|throwable|error|\w+Exception|\w+Error)$/.test(src.slice(args[rest][0], args[rest][1]).trim())) : rest > slf4j
    const template = normalise(raw)
    const logger = stateChange
      ? 'state.change.logger'
      : (viaField?.name ?? classAt(ranges, pkg, at, scala && !m[1]) ?? (pkg ? `${pkg}.${file.replace(/^.*\//, '').replace(/\.\w+$/, '')}` : file))
    const cls = ranges.filter((r) => r.start < at && at < r.end)
    const logIdent = scala && (stateChange || cls.some((r) => identAssigned(r)))
    const prefix: Statement['prefix'] = viaField?.context ? 'logContext' : logIdent ? 'logIdent' : '-'
    out.push({ level: LEVEL_OF[m[2]], logger, template, throwable, prefix })
  }
  out.push(...logDirFailureMessages(src, masked, scala))
  return out
}

/** The expression last assigned to local `name` before `at` (Java up to `;`, Scala to the end of the line at depth 0). */
function localDefinition(src: string, masked: string, name: string, at: number, scala: boolean): [number, number] | undefined {
  const window = masked.slice(Math.max(0, at - 3000), at)
  const re = new RegExp(`(?:\\bString\\s+|\\bval\\s+|\\bvar\\s+|[;{}]\\s*)${name}\\s*(?::\\s*String\\s*)?=(?!=)`, 'g')
  let last: RegExpExecArray | null = null
  let m: RegExpExecArray | null
  while ((m = re.exec(window))) last = m
  if (!last) return undefined
  const from = Math.max(0, at - 3000) + last.index + last[0].length
  let depth = 0
  for (let k = from; k < at; k++) {
    const c = masked[k]
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') depth--
    if (depth < 0) return undefined
    if (depth === 0 && (c === ';' || (scala && c === '\n' && !/^\n\s*[+.]/.test(masked.slice(k, k + 40)) && !/[+(,]\s*$/.test(masked.slice(from, k))))) {
      return /["]/.test(src.slice(from, k)) ? [from, k] : undefined
    }
  }
  return undefined
}

/**
 * Kafka's log layer hands the message of a failed disk operation to LogDirFailureChannel, which logs it
 * at ERROR with the IOException: `maybeHandleIOException(s"Error while appending records to $tp in dir
 * ${dir.getParent}") {…}` (1.0+), `() -> "…"` suppliers in 3.7+ Java, and
 * `logDirFailureChannel.maybeAddOfflineLogDir(dir, s"…", e)`. Those messages are statements of that class.
 */
export const LOG_DIR_FAILURE_CHANNEL = '@LogDirFailureChannel'

function logDirFailureMessages(src: string, masked: string, scala: boolean): Statement[] {
  const out: Statement[] = []
  for (const m of masked.matchAll(/\b(maybeHandleIOException|maybeAddOfflineLogDir)\s*\(/g)) {
    const open = (m.index as number) + m[0].length - 1
    const before = masked.slice(Math.max(0, (m.index as number) - 12), m.index)
    if (/\b(?:def|void)\s+$|<T>\s*T\s+$|\bT\s+$/.test(before)) continue
    const close = closing(masked, open)
    if (close < 0) continue
    const arg = splitTop(masked, open + 1, close, ',').find(([a, b]) => /^\s*(?:\(\)\s*->\s*)?(?:s|f)?"/.test(src.slice(a, b)))
    if (!arg) continue
    const template = normalise(templateOf(src, masked, arg[0], arg[1], scala))
    out.push({ level: 'ERROR', logger: LOG_DIR_FAILURE_CHANNEL, template, throwable: true, prefix: '-' })
  }
  return out
}

/** Identifiers of the receiver before `.level(`: `this.log` -> [this, log]; `stateChangeLogger.withControllerEpoch(e)` too. */
function receiverChain(masked: string, dot: number): string[] {
  const ids: string[] = []
  let k = dot - 1
  for (let steps = 0; steps < 6; steps++) {
    while (k >= 0 && /\s/.test(masked[k])) k--
    if (masked[k] === ')') {
      let depth = 0
      for (; k >= 0; k--) {
        if (masked[k] === ')') depth++
        else if (masked[k] === '(' && --depth === 0) break
      }
      k--
    }
    let e = k + 1
    while (k >= 0 && /[\w$]/.test(masked[k])) k--
    if (e === k + 1) break
    ids.push(masked.slice(k + 1, e))
    while (k >= 0 && /\s/.test(masked[k])) k--
    if (masked[k] !== '.') break
    k--
    e = k
  }
  return ids
}

/** Values and SLF4J placeholders become one `{}`; runs of them collapse; the text is kept otherwise. */
export function normalise(raw: string): string {
  return raw.split(VALUE).join('{}').replace(/(?:\{\})+/g, '{}')
}
