import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderSignalsDoc } from '../../cli/signals-doc.js'
import { loadRules } from '../../rule-files/load-rules.js'
import { CATALOGUE } from '../../signals/catalogue.js'

// docs/signals.md is the catalogue as rule authors read it; it must say what the catalogue says now.
const ROOT = path.resolve(import.meta.dirname, '../..')

describe('docs/signals.md', () => {
  it('is fresh (regenerate with npm run signals-doc)', { timeout: 60_000 }, async () => {
    const { rules } = await loadRules([path.join(ROOT, 'rules')])
    expect(readFileSync(path.join(ROOT, 'docs/signals.md'), 'utf8')).toBe(renderSignalsDoc(rules))
  })

  it('lists every catalogue signal once, with its kind, unit and labels', { timeout: 60_000 }, async () => {
    const { rules } = await loadRules([path.join(ROOT, 'rules')])
    const page = renderSignalsDoc(rules)
    for (const [name, e] of Object.entries(CATALOGUE)) {
      const rows = page.split('\n').filter((l) => l.startsWith(`| \`${name}\` |`))
      expect(rows, name).toHaveLength(1)
      expect(rows[0]).toContain(` | ${e.unit} | `)
      for (const l of e.labels) expect(rows[0], name).toContain(`\`${l}\``)
    }
    expect(page).toMatch(/^\| `zk\.session_timeout` \| event \| duration \| `session` \| .+ \| `when .*zk\.session_timeout.*` \(/m)
  })
})
