import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { JSON_SCHEMAS, renderJsonSchema } from './json-schemas.js'

/**
 * `npm run schemas`: writes schemas/*.schema.json from the zod schemas. Run it after changing a file
 * format; test/file-formats/json-schemas.test.ts fails while a checked-in schema is stale.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dir = path.join(root, 'schemas')
mkdirSync(dir, { recursive: true })
for (const entry of JSON_SCHEMAS) {
  writeFileSync(path.join(dir, entry.file), renderJsonSchema(entry))
  console.log(`wrote schemas/${entry.file}`)
}
