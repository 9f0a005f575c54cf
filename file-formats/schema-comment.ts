import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The first line of every YAML file kafka-why ships or writes: the comment the YAML language server
 * (VS Code's YAML extension, Neovim's yamlls, JetBrains) reads to validate and complete the file.
 */

/** schemas/ of this installation: where `npm run schemas` writes and editors look. */
export const SCHEMAS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'schemas')

/** The schema file of each YAML format. */
export const SCHEMA_FILES = {
  config: 'kafka-why.schema.json',
  incident: 'incident.schema.json',
  ruleTest: 'rule-test.schema.json',
} as const

/** `# yaml-language-server: $schema=<path>`, the path relative to the directory the file is in. */
export function schemaComment(fileDir: string, schemaFile: string): string {
  const rel = path.relative(path.resolve(fileDir), path.join(SCHEMAS_DIR, schemaFile)).split(path.sep).join('/')
  return `# yaml-language-server: $schema=${rel}`
}
