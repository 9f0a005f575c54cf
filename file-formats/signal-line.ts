import { z } from 'zod'
import { lookupSignal } from '../signals/catalogue.js'
import { parseAt } from '../signals/jsonl.js'
import type { Signal } from '../signals/signal.js'

/**
 * The schema of one recorded signal, a line of signals.jsonl (signals/jsonl.ts describes the
 * format). Ingestion keeps its hand-written check (signals/jsonl.ts validateSignal), measured faster
 * by `npm run bench -- signals-validate`; this schema is what editors and tools get as JSON Schema,
 * and a test holds the two to the same verdict on the same lines.
 */
export const signalLineSchema = z
  .object({
    name: z
      .string({ error: 'missing name' })
      .min(1, { error: 'missing name' })
      .refine((n) => lookupSignal(n) !== undefined, { error: (iss) => `unknown signal '${String(iss.input)}'` })
      .describe('catalogue name, e.g. safepoint.sync (docs/signals.md)'),
    at: z
      .union([z.number(), z.string()], { error: 'invalid at' })
      .transform((v, ctx) => {
        const ms = parseAt(v)
        if (ms === undefined) {
          ctx.issues.push({ code: 'custom', input: v, message: 'invalid at: epoch ms, or an ISO-8601 date-time with an offset' })
          return z.NEVER
        }
        return ms
      })
      .describe('epoch milliseconds, or an ISO-8601 date-time with an offset'),
    cluster: z.string({ error: 'missing cluster' }).min(1, { error: 'missing cluster' }),
    broker: z
      .union([z.string().min(1), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)], { error: 'invalid broker' })
      .transform(String)
      .optional()
      .describe('broker id; absent for cluster-wide signals'),
    value: z.number({ error: 'invalid value' }).refine(Number.isFinite, { error: 'invalid value' }).optional().describe("in the catalogue's base unit; gauges and facts must carry one"),
    labels: z.record(z.string(), z.string({ error: 'invalid labels' }), { error: 'invalid labels' }).optional(),
    source: z.string({ error: 'missing source' }).min(1, { error: 'missing source' }).describe('which adapter, file and line produced it; the line position when absent'),
    text: z.string({ error: 'invalid text' }).optional().describe('the raw evidence line'),
  })
  .superRefine((s, ctx) => {
    const entry = lookupSignal(s.name)
    if (entry && entry.kind !== 'event' && s.value === undefined) ctx.issues.push({ code: 'custom', input: s, path: ['value'], message: `missing value: ${entry.kind} ${s.name}` })
  })
  .describe('one recorded signal (a line of signals.jsonl)')

/** A validated line is a Signal: the schema's output type is the engine's own. */
export type SignalLine = z.output<typeof signalLineSchema> & Signal
