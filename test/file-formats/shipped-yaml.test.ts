import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { incidentFileSchema } from '../../file-formats/incident-file.js'
import { kafkaWhyConfigSchema } from '../../file-formats/kafka-why-config.js'
import { ruleTestFileSchema } from '../../file-formats/rule-test-file.js'
import { SCHEMA_FILES, schemaComment } from '../../file-formats/schema-comment.js'
import { renderProblem, validateYaml } from '../../file-formats/yaml-validate.js'
import type { z } from 'zod'

// Every YAML file kafka-why ships in one of its formats points the editor at its schema, and is
// valid by the checked-in JSON Schema (ajv) and by the zod schema the code uses: the same verdict on
// real files is what shows the generated JSON Schema says what the code checks.

type Format = { schemaFile: string; zod: z.ZodType }
const FORMATS: Record<keyof typeof SCHEMA_FILES, Format> = {
  config: { schemaFile: SCHEMA_FILES.config, zod: kafkaWhyConfigSchema },
  incident: { schemaFile: SCHEMA_FILES.incident, zod: incidentFileSchema },
  ruleTest: { schemaFile: SCHEMA_FILES.ruleTest, zod: ruleTestFileSchema },
}

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })
const validators = Object.fromEntries(
  Object.entries(FORMATS).map(([k, f]) => [k, ajv.compile(JSON.parse(readFileSync(path.join('schemas', f.schemaFile), 'utf8')))]),
) as Record<keyof typeof SCHEMA_FILES, ReturnType<typeof ajv.compile>>

const tracked = (pattern: string) => execFileSync('git', ['ls-files', pattern], { encoding: 'utf8' }).split('\n').filter(Boolean)
const SHIPPED: [string, keyof typeof SCHEMA_FILES][] = [
  ['kafka-why.example.yaml', 'config'],
  // claims-allow.yaml is the claims pass's allow-list, not a rule test; cli/rule-test/claims.ts checks it.
  ...tracked('rules/tests/*.yaml').filter((f) => !['incident.yaml', 'claims-allow.yaml'].includes(path.basename(f))).map((f): [string, 'ruleTest'] => [f, 'ruleTest']),
  ...tracked('*incident.yaml').map((f): [string, 'incident'] => [f, 'incident']),
]

/** YAML examples in the docs, by the format their top-level keys say they are in. */
function docExamples(): [string, string, keyof typeof SCHEMA_FILES][] {
  const out: [string, string, keyof typeof SCHEMA_FILES][] = []
  for (const file of ['README.md', ...tracked('docs/*.md')]) {
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
      const keys = Object.keys((parseYaml(m[1]) as Record<string, unknown> | null) ?? {})
      const line = text.slice(0, m.index).split('\n').length + 1
      const format = keys.includes('tests') ? 'ruleTest' : keys.includes('sources') ? 'incident' : 'config'
      out.push([`${file}:${line}`, m[1], format])
    }
  }
  return out
}

describe('shipped YAML files', () => {
  it('finds the files of every format', () => {
    const counts = SHIPPED.reduce<Record<string, number>>((acc, [, f]) => ({ ...acc, [f]: (acc[f] ?? 0) + 1 }), {})
    expect(counts.config).toBe(1)
    expect(counts.ruleTest).toBeGreaterThan(10)
    expect(counts.incident).toBeGreaterThan(50)
  })

  it.each(SHIPPED)('%s names its schema on the first line', (file, format) => {
    const first = readFileSync(file, 'utf8').split('\n')[0]
    const ref = /^# yaml-language-server: \$schema=(\S+)$/.exec(first)?.[1]
    expect(ref, `${file} must start with: ${schemaComment(path.dirname(file), FORMATS[format].schemaFile)}`).toBeDefined()
    expect(path.resolve(path.dirname(file), ref!)).toBe(path.resolve('schemas', FORMATS[format].schemaFile))
  })

  it.each(SHIPPED)('%s is valid by the JSON Schema and by the code', (file, format) => {
    const text = readFileSync(file, 'utf8')
    const valid = validators[format](parseYaml(text) ?? {})
    expect(validators[format].errors ?? [], file).toEqual([])
    expect(valid).toBe(true)
    const checked = validateYaml(text, file, FORMATS[format].zod)
    expect(checked.ok ? [] : checked.problems.map(renderProblem)).toEqual([])
  })

  it.each(docExamples())('the example at %s is valid by the JSON Schema and by the code', (where, text, format) => {
    expect(validators[format](parseYaml(text) ?? {}), JSON.stringify(validators[format].errors)).toBe(true)
    const checked = validateYaml(text, where, FORMATS[format].zod)
    expect(checked.ok ? [] : checked.problems.map(renderProblem)).toEqual([])
  })

  it.each([
    ['config', 'clusters:\n  prod: { brokers: [kafka-1:9092], channel: C0PROD, colour: red }\n'],
    ['config', 'live:\n  engine: { enabled: "yes" }\n'],
    ['config', 'clusters:\n  prod: { brokers: [kafka-1], channel: C0PROD }\n'],
    ['config', 'live:\n  clusters:\n    prod:\n      admin: { sasl: { mechanism: kerberos, username: u, password: p } }\n'],
    ['incident', 'cluster: lab\nsources:\n  - { path: server.log, format: syslog }\n'],
    ['incident', 'sources: []\n'],
    ['ruleTest', 'tests:\n  - name: x\n    series: ["isr.shrink: 1"]\n    expect: [{ rule: r, severity: fatal }]\n'],
    ['ruleTest', 'tests:\n  - name: x\n    serie: ["isr.shrink: 1"]\n    absent: [{ rule: r }]\n'],
    ['ruleTest', 'tests: {}\n'],
  ] as const)('a %s file with a mistake is refused by both: %j', (format, text) => {
    expect(validators[format](parseYaml(text))).toBe(false)
    expect(validateYaml(text, 'bad.yaml', FORMATS[format].zod).ok).toBe(false)
  })
})
