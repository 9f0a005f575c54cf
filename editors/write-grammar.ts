import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderRulesGrammar } from './rules-grammar.js'

/** `npm run grammar`: writes editors/kafka-why-rules.tmLanguage.json from dsl/tokens.ts. */
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'kafka-why-rules.tmLanguage.json')
writeFileSync(out, renderRulesGrammar())
console.log(`wrote ${path.relative(process.cwd(), out)}`)
