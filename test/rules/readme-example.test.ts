import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadRules } from '../../rule-files/load-rules.js'
import { runCase } from '../../cli/rule-test/run-case.js'
import { parseTestFile } from '../../cli/rule-test/test-file.js'

/** The rule-test example in the docs' rules section is a real test file that passes. */
describe('docs/rules.md', () => {
  it('shows a rule-test file that loads and passes as if it were rules/tests/example.yaml', async () => {
    const readme = await readFile('docs/rules.md', 'utf8')
    const section = readme.slice(readme.indexOf('<!-- section:rules -->'), readme.indexOf('<!-- /section:rules -->'))
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1]
    expect(example).toBeDefined()
    const parsed = parseTestFile(example!, resolve('rules/tests/example.yaml'))
    expect(parsed.errors).toEqual([])
    expect(parsed.file.rules).toEqual([resolve('rules/jvm.rules')])
    const { rules } = await loadRules(['rules/'])
    for (const tc of parsed.file.tests) {
      const r = await runCase(tc, rules)
      expect(r.assertions.filter((a) => !a.ok), tc.name).toEqual([])
    }
  })
})
