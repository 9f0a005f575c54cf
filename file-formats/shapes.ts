import { z } from 'zod'
import { parseInterval } from '../adapters/agent/parse-interval.js'

/**
 * Building blocks the file schemas share, so a duration or an unknown key reads the same in every
 * format and in the JSON Schemas editors load.
 */

/**
 * A mapping that refuses keys it does not know, naming the ones it does: a typo is an error with a
 * hint, never a silently ignored setting.
 */
export function closedObject<S extends z.core.$ZodLooseShape>(shape: S, description?: string, notAMapping?: string) {
  const known = Object.keys(shape).join(', ')
  const obj = z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `known: ${known}` : iss.code === 'invalid_type' ? notAMapping : undefined),
  })
  return description ? obj.describe(description) : obj
}

/**
 * The text of a duration, for editors: a number and one of the rule language's duration units
 * (signals/units.ts). The code's own check (parseInterval) stays the one that decides.
 */
const DURATION_TEXT = /^\s*\d+(?:\.\d+)?\s*(?:ns|us|ms|s|m|h|d)?\s*$/

/** A duration as a person writes it: text matching DURATION_TEXT, or a number of milliseconds. */
const durationInput = (examples: string) =>
  z.union([z.string().regex(DURATION_TEXT, { error: (iss) => `'${String(iss.input)}' is not a duration (${examples})` }), z.number()], {
    error: `expected a duration (${examples})`,
  })

/** An operator's interval ("15s", "500ms", "2m", or plain milliseconds) read as milliseconds. */
export function interval(description: string) {
  return durationField(description, 'e.g. 15s, 500ms, 1m', false)
}

/** Like `interval`, where 0 is meaningful (no lag, no settle time). */
export function intervalOrZero(description: string) {
  return durationField(description, 'e.g. 0s, 2s, 500ms', true)
}

function durationField(description: string, examples: string, zeroAllowed: boolean) {
  return durationInput(examples)
    .transform((v, ctx) => {
      if (zeroAllowed && (v === 0 || v === '0' || v === '0s')) return 0
      const ms = parseInterval(v)
      if (ms === undefined) {
        ctx.issues.push({ code: 'custom', input: v, message: `'${String(v)}' is not a duration (${examples})` })
        return z.NEVER
      }
      return ms
    })
    .describe(description)
}

/** A broker id as brokers number themselves; YAML may write it as a number or as text. */
export const brokerId = z
  .union([z.string().regex(/^\d+$/), z.number().int().nonnegative()], { error: 'expected a broker id (a number such as 1)' })
  .transform(String)
  .describe('broker id, e.g. "1"')

/** `host:port`, the way Kafka bootstrap lists are written. */
export const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, { error: (iss) => `'${String(iss.input)}' is not host:port` })
