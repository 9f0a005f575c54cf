import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { loadRules } from '../../rule-files/load-rules.js'
import { BEGIN, END, REFERENCE_PAGE, renderReference, spliceReference } from '../../cli/rule-test/gen-reference.js'

describe('cli/rule-test/gen-reference', () => {
  it('lists every shipped rule with its severity, meaning and signals', async () => {
    const { rules } = await loadRules(['rules/'])
    const ref = renderReference(rules)
    for (const r of rules) expect(ref).toContain(`| \`${r.name ?? r.id}\` | ${r.severity} |`)
    expect(ref).toMatch(/\| `stw_pause_session_expiry` \| critical \| Seed 000: .* \| `zk\.session_timeout`, `safepoint\.sync`, `zk\.session_expired` \| `zk\.session_timeout within 5s of safepoint\.sync > 33% of zk\.session_timeout_limit and \(zk\.session_expired or safepoint\.sync > zk\.session_timeout_limit\)` \|/)
  })

  it('rewrites only the generated block of the rules section', () => {
    const readme = `# x\n<!-- section:other -->\n${BEGIN}\nkeep\n${END}\n<!-- /section:other -->\n<!-- section:rules -->\nintro\n${BEGIN}\nold\n${END}\noutro\n<!-- /section:rules -->\n`
    const next = spliceReference(readme, 'NEW')
    expect(next).toBe(readme.replace(`${BEGIN}\nold\n${END}`, `${BEGIN}\n\nNEW\n\n${END}`))
    expect(() => spliceReference('# no section\n', 'NEW')).toThrow('no <!-- section:rules -->')
  })

  it('matches docs/rules.md (regenerate with npx tsx cli/rule-test/gen-reference.ts)', async () => {
    const { rules } = await loadRules(['rules/'])
    const readme = await readFile(REFERENCE_PAGE, 'utf8')
    expect(spliceReference(readme, renderReference(rules))).toBe(readme)
  })
})
