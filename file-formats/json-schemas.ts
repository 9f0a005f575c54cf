import { z } from 'zod'
import { incidentFileSchema } from './incident-file.js'
import { kafkaWhyConfigSchema } from './kafka-why-config.js'
import { ruleTestFileSchema } from './rule-test-file.js'
import { signalLineSchema } from './signal-line.js'

/**
 * The JSON Schemas editors and CI load, one per file format, generated from the zod schemas the
 * code validates with (`npm run schemas` writes them under schemas/; a test fails when they are stale).
 */

/** One generated schema: the file it is written to, and what it describes. */
export type JsonSchemaEntry = { file: string; title: string; schema: z.ZodType; appliesTo: string }

/** Every format with an editor schema, in the order docs/schemas.md lists them. */
export const JSON_SCHEMAS: readonly JsonSchemaEntry[] = [
  { file: 'kafka-why.schema.json', title: 'kafka-why.yaml', schema: kafkaWhyConfigSchema, appliesTo: 'kafka-why.yaml, kafka-why.example.yaml' },
  { file: 'incident.schema.json', title: 'incident.yaml', schema: incidentFileSchema, appliesTo: 'incident.yaml of a recorded incident' },
  { file: 'rule-test.schema.json', title: 'kafka-why rule tests', schema: ruleTestFileSchema, appliesTo: 'rules/tests/*.yaml' },
  { file: 'signal-line.schema.json', title: 'one line of signals.jsonl', schema: signalLineSchema, appliesTo: 'each line of signals.jsonl' },
]

/** The JSON Schema (draft 2020-12) of what a person writes: the input side of each transform. */
export function renderJsonSchema(entry: JsonSchemaEntry): string {
  const json = z.toJSONSchema(entry.schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>
  return `${JSON.stringify({ $schema: json.$schema, title: entry.title, ...json }, null, 2)}\n`
}
