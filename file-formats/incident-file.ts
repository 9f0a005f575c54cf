import { z } from 'zod'
import { resolveZone } from '../adapters/logs/timestamp.js'
import { parseAt } from '../signals/jsonl.js'
import { closedObject } from './shapes.js'

/**
 * The schema of incident.yaml, the index of a recorded incident: which raw logs it holds, whose they
 * are and how to read their timestamps. Replay, rule tests, the corpus and the lab recorder read and
 * write it through this definition; schemas/incident.schema.json is generated from it.
 */

/** The log families a source may be pinned to when detection should not guess. */
export const LOG_FORMATS = ['kafka', 'gc', 'client'] as const
/** The line layouts a source may be pinned to. */
export const LOG_LAYOUTS = ['apache', 'strimzi', 'cloudera', 'jvm', 'none'] as const

const zone = z
  .string({ error: 'expected text like "+08:00" or an IANA zone' })
  .refine((tz) => resolveZone(tz) !== undefined, { error: (iss) => `unknown zone '${String(iss.input)}'` })
  .describe('zone of timestamps written without an offset: "+08:00", "Z" or an IANA name')

const instant = z
  .union([z.string(), z.number()], { error: 'expected an ISO date-time with an offset' })
  .transform((v, ctx) => {
    const ms = parseAt(v)
    if (ms === undefined) {
      ctx.issues.push({ code: 'custom', input: v, message: 'expected an ISO date-time with an offset' })
      return z.NEVER
    }
    return ms
  })

const source = closedObject(
  {
    path: z.string({ error: 'expected a relative path' }).min(1, { error: 'expected a relative path' }).describe('the log file, relative to this file'),
    broker: z
      .union([z.string().min(1), z.number()], { error: 'expected the broker id (or the name of the node) whose log this is' })
      .transform(String)
      .optional()
      .describe('broker whose log this is: its id, or a name for a node that is not a broker ("zookeeper")'),
    format: z.enum(LOG_FORMATS, { error: `expected ${LOG_FORMATS.join(', ')}` }).optional().describe('log family; detected when absent'),
    layout: z.enum(LOG_LAYOUTS, { error: `expected one of ${LOG_LAYOUTS.join(', ')}` }).optional().describe('line layout; detected when absent'),
    timeZone: zone.optional(),
    jvmStart: instant.optional().describe('JVM start time, for GC logs stamped in uptime seconds'),
    start: instant.optional().describe('time of the first line, for logs with no dates'),
  },
  'one raw log of the incident',
)

/** The whole of incident.yaml. */
export const incidentFileSchema = closedObject(
  {
    cluster: z.string({ error: 'expected a name' }).min(1, { error: 'expected a name' }).describe('cluster the signals belong to'),
    timeZone: zone.optional(),
    sources: z.array(source, { error: 'expected a list' }).default([]).describe('raw logs, read in this order (signals.jsonl beside this file is read after them)'),
  },
  'a recorded incident (incident.yaml)',
)

/** incident.yaml as validated, times in epoch ms. */
export type IncidentFile = z.output<typeof incidentFileSchema>
