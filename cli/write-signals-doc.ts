import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadRules } from '../rule-files/load-rules.js'
import { renderSignalsDoc } from './signals-doc.js'

/** `npm run signals-doc`: rewrites docs/signals.md from the catalogue and the shipped rules. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { rules } = await loadRules([path.join(root, 'rules')])
writeFileSync(path.join(root, 'docs', 'signals.md'), renderSignalsDoc(rules))
console.log(`wrote docs/signals.md (${rules.length} rules read for examples)`)
