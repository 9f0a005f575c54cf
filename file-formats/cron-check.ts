/**
 * A bounded check of a cron expression before node-cron sees it. node-cron expands each range into
 * an array of its values: `0-998038269 9 * * *` in the digest schedule killed Node with a V8 fatal
 * error and `0-9999999` took 20 s and 1.3 GB to refuse. Here every number is read with at most two
 * digits and checked against its field's bounds first, so any text is judged in time linear in its
 * length; only an expression that passes is given to node-cron.
 */

/** Longest cron expression accepted: a real schedule is a few dozen characters. */
export const CRON_MAX_CHARS = 200

type Field = { name: string; min: number; max: number; names?: readonly string[] }

const SECOND: Field = { name: 'second', min: 0, max: 59 }
const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
]

const VALUE = /^(?:\d{1,2}|[a-z]{3,9})$/i

/** Why `expr` is not a cron expression this bot accepts, or undefined when it is one. */
export function checkCron(expr: string): string | undefined {
  if (expr.length > CRON_MAX_CHARS) return `longer than ${CRON_MAX_CHARS} characters`
  const parts = expr.trim().split(/\s+/)
  if (parts.length !== 5 && parts.length !== 6) return `expected 5 or 6 fields (minute hour day-of-month month day-of-week, optionally seconds first), found ${parts.length}`
  const fields = parts.length === 6 ? [SECOND, ...FIELDS] : FIELDS
  for (let i = 0; i < parts.length; i++) {
    const problem = checkField(parts[i], fields[i])
    if (problem) return `${problem} in the ${fields[i].name} field`
  }
  return undefined
}

function checkField(text: string, f: Field): string | undefined {
  for (const item of text.split(',')) {
    const [range, step, extra] = item.split('/')
    if (extra !== undefined) return `'${item}' has two steps`
    if (step !== undefined) {
      if (!/^\d{1,2}$/.test(step) || Number(step) === 0) return `'${item}' needs a step of 1 to 99 (a step of 0 never fires)`
    }
    if (range === '*') continue
    const ends = range.split('-')
    if (ends.length > 2) return `'${item}' is not a value or a range`
    const values: number[] = []
    for (const end of ends) {
      const v = valueOf(end, f)
      if (typeof v === 'string') return v
      values.push(v)
    }
    if (values.length === 2 && values[0] > values[1]) return `'${item}' is a range that runs backwards`
  }
  return undefined
}

function valueOf(text: string, f: Field): number | string {
  if (!VALUE.test(text)) return /^\d+$/.test(text) ? `'${text.slice(0, 20)}' is a range past ${f.max}` : `'${text.slice(0, 20)}' is not a number${f.names ? ' or a name' : ''}`
  if (/^\d/.test(text)) {
    const n = Number(text)
    return n < f.min || n > f.max ? `'${text}' is past ${n < f.min ? `below ${f.min}` : f.max}` : n
  }
  const t = text.toLowerCase()
  const i = f.names?.findIndex((name) => t === name || FULL[name] === t)
  return i === undefined || i < 0 ? `'${text.slice(0, 20)}' is not a ${f.name} name` : i + (f.name === 'month' ? 1 : 0)
}

const FULL: Record<string, string> = { jan: 'january', feb: 'february', mar: 'march', apr: 'april', may: 'may', jun: 'june', jul: 'july', aug: 'august', sep: 'september', oct: 'october', nov: 'november', dec: 'december', sun: 'sunday', mon: 'monday', tue: 'tuesday', wed: 'wednesday', thu: 'thursday', fri: 'friday', sat: 'saturday' }

