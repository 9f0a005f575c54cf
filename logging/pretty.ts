/**
 * The readable form of a log record for a terminal: `HH:MM:SS.mmm LEVEL message key=value …`, the
 * error's stack indented under it. Written here rather than taken from pino-pretty: one small
 * function with no dependencies covers what serve prints. Text from brokers and clients is data, so
 * control characters are shown escaped and can never move the cursor or recolour the terminal.
 */

const LEVEL_COLOR: Record<string, string> = { trace: '90', debug: '90', info: '32', warn: '33', error: '31', fatal: '35' }
// Shown by the line's layout (time, level, message) or of no use at a terminal (pid, hostname, the command run).
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'cmd', 'err'])
// Every C0/C1 control except the newline, which the stack and multi-line messages keep.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g

/** One JSON record from pino → one readable line (more when it carries a stack), ending in a newline. */
export function formatPrettyRecord(jsonLine: string, opts: { colors?: boolean } = {}): string {
  let r: Record<string, unknown>
  try {
    r = JSON.parse(jsonLine) as Record<string, unknown>
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`
  }
  const paint = (code: string, text: string) => (opts.colors ? `\u001b[${code}m${text}\u001b[0m` : text)
  const level = String(r.level ?? 'info')
  const time = typeof r.time === 'number' ? new Date(r.time).toISOString().slice(11, 23) : '--:--:--.---'
  const fields = Object.entries(r)
    .filter(([k, v]) => !HIDDEN.has(k) && v !== undefined)
    .map(([k, v]) => `${paint('2', `${k}=`)}${fieldValue(v)}`)
  const head = [paint('2', time), paint(LEVEL_COLOR[level] ?? '0', level.toUpperCase().padEnd(5)), escapeControls(String(r.msg ?? '')), ...fields].join(' ')
  const err = r.err as { stack?: string; message?: string } | undefined
  const stack = err && typeof err === 'object' ? (err.stack ?? err.message) : undefined
  return stack ? `${head}\n${indent(escapeControls(String(stack)))}\n` : `${head}\n`
}

function fieldValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v)
  return /^[^\s"=]+$/.test(s) ? escapeControls(s) : escapeControls(JSON.stringify(s))
}

function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\t' ? '  ' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')
}
