import { access, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { SCHEMA_FILES, schemaComment } from '../../file-formats/schema-comment.js'
import type { INIT_OPTIONS } from '../command-line/commands.js'
import type { CommandInput } from '../command-line/option-spec.js'
import { runCommand } from '../command-line/program.js'
import { UsageError } from '../usage-error.js'

/** The command as the command line runs it (tests, scripts): parses argv, then the body. */
export const run = (argv: string[]): Promise<number> => runCommand('init', argv)

/** The commented example shipped with kafka-why; the same file a test loads as written. */
const EXAMPLE = fileURLToPath(new URL('../../kafka-why.example.yaml', import.meta.url))

/**
 * `kafka-why init`: the starter config, never over an existing file unless asked. Its first line
 * points the editor's YAML language server at the installed schema, relative to where it is written.
 */
export async function execute({ options }: CommandInput<typeof INIT_OPTIONS>): Promise<number> {
  const out = options.out
  if (!options.force && (await access(out).then(() => true, () => false))) throw new UsageError(`${out} exists; pass --force to overwrite it, or --out another path`)
  try {
    const example = await readFile(EXAMPLE, 'utf8')
    const body = example.replace(/^# yaml-language-server:.*\n/, '')
    await writeFile(out, `${schemaComment(path.dirname(path.resolve(out)), SCHEMA_FILES.config)}\n${body}`)
  } catch (err) {
    console.error(`kafka-why init: cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    return 1
  }
  console.log(`wrote ${out}: set clusters, channels, allowed users and live.clusters, then\n  export SLACK_BOT_TOKEN=xoxb-… SLACK_SIGNING_SECRET=… REDIS_URL=redis://127.0.0.1:6379\n  kafka-why serve --config ${out}`)
  return 0
}
