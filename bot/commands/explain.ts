/** `/kafka explain <rule>` shares its renderer with `/kafka rules <name>`; see rules.ts. */
export { explain } from './rules.js'
